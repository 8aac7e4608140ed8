import { panelAccessCommand } from './admin-grant.ts';

/** `gatehouse admin:revoke <email>`; an open panel session of that user gets 403 on its next request. */
export const adminRevokeCommand = panelAccessCommand(false);
