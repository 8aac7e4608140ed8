import type { Insertable, Selectable } from 'kysely';
import type { LeasedColumns } from '../outbox/leased-rows.ts';

/**
 * A back-channel logout notice for one client (backchannel-logout.ts). `payload` is
 * `{"sub", "sid"}` (no secret: the logout token is signed at delivery); wiped once delivered.
 */
export interface OauthLogoutOutboxTable extends LeasedColumns {
  client_id: string;
}

export type LogoutOutboxRow = Selectable<OauthLogoutOutboxTable>;
export type NewLogoutOutboxRow = Insertable<OauthLogoutOutboxTable>;
