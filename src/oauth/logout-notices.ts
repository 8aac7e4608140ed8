import type { Db } from '../db/schema.ts';
import { clientsWithBackchannel, insertLogoutNotices } from './logout-outbox.repository.ts';
import { modelsOfAccount } from './models.repository.ts';

/** A provider session's sign-ins, per client (the library's Session `authorizations`). */
export type SessionAuthorizations = Readonly<
  Record<string, { sid?: string; grantId?: string; persistsLogout?: boolean } | undefined>
>;

/** What a queued notice holds: who signed out of which session. The token is signed at delivery. */
export interface LogoutNotice {
  readonly sub: string;
  readonly sid: string;
}

/**
 * Back-channel logout (docs/guides/oidc-provider.md "Logout"): a provider session ended, so every
 * client it signed in that registered a `backchannel_logout_uri` gets a notice, written to the durable
 * outbox in the caller's transaction (the worker, logout-worker.ts, signs and POSTs it, with retries).
 */
export async function queueLogoutNotices(
  db: Db,
  accountId: string,
  authorizations: SessionAuthorizations,
  now: number,
): Promise<number> {
  const sids = new Map<string, string>();
  for (const [clientId, authorization] of Object.entries(authorizations)) {
    if (authorization?.sid) sids.set(clientId, authorization.sid);
  }
  const clients = await clientsWithBackchannel(db, [...sids.keys()]);
  await insertLogoutNotices(
    db,
    clients.map((clientId) => ({
      client_id: clientId,
      payload: JSON.stringify({ sub: accountId, sid: sids.get(clientId)! } satisfies LogoutNotice),
      attempts: 0,
      available_at: now,
      created_at: now,
    })),
  );
  return clients.length;
}

/**
 * A connected app disconnected (its grants revoked): every live provider session of the user that
 * signed that client in tells it, by back-channel logout, that its session there is over.
 */
export async function queueClientLogouts(db: Db, userId: number, clientId: string, now: number) {
  for (const row of await modelsOfAccount(db, 'Session', String(userId), now)) {
    const stored = JSON.parse(row.payload) as { authorizations?: SessionAuthorizations };
    const authorization = stored.authorizations?.[clientId];
    if (authorization) await queueLogoutNotices(db, String(userId), { [clientId]: authorization }, now);
  }
}
