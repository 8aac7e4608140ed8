import type { Kysely } from 'kysely';
import { type AuditContext, recordAudit } from '../audit/audit.ts';
import { revokeRememberTokens } from '../auth/remember-me/remember-me.ts';
import { deleteSessionOfUser } from '../auth/sessions/sessions.repository.ts';
import { destroyUserSessions } from '../auth/sessions/sessions.ts';
import { deleteTokens } from '../auth/tokens/access-tokens.repository.ts';
import type { Database } from '../db/schema.ts';
import { endProviderSessionsOf } from '../oauth/provider-sessions.ts';

/**
 * Revoking a user's API tokens and ending their web sessions from the panel. Deletion is the
 * revocation: the token guard and session loader read the row on every request, so the next request
 * with that token or cookie fails, on every instance. Each deletion and its audit row (who, what,
 * when, from where) commit together.
 */

/** Revokes one token of `userId`; a token id of another user matches nothing (→ 0). */
export function revokeUserToken(db: Kysely<Database>, userId: number, tokenId: number, audit: AuditContext) {
  return db.transaction().execute(async (trx) => {
    const count = await deleteTokens(trx, userId, { id: tokenId });
    if (count > 0) await recordAudit(trx, 'admin.token.revoked', audit, userId, { token_id: tokenId });
    return count;
  });
}

export function revokeAllUserTokens(db: Kysely<Database>, userId: number, audit: AuditContext) {
  return db.transaction().execute(async (trx) => {
    const count = await deleteTokens(trx, userId);
    if (count > 0) await recordAudit(trx, 'admin.token.revoked', audit, userId, { scope: 'all', count });
    return count;
  });
}

/**
 * Ends one web session, by its row key (the SHA-256 of the cookie, so the page never holds a usable
 * cookie value). A browser holding a remember-me cookie could sign in again; "end all" prevents that.
 */
export function endUserSession(db: Kysely<Database>, userId: number, key: string, audit: AuditContext) {
  return db.transaction().execute(async (trx) => {
    const ended = await deleteSessionOfUser(trx, userId, 'web', key);
    await endProviderSessionsOf(trx, userId, audit.now, 'revoked');
    if (ended) await recordAudit(trx, 'admin.session.ended', audit, userId, { scope: 'one' });
    return ended ? 1 : 0;
  });
}

/** Ends every web session of the user and forgets their web remember-me tokens, so none comes back. */
export function endAllUserSessions(db: Kysely<Database>, userId: number, audit: AuditContext) {
  return db.transaction().execute(async (trx) => {
    const sessions = await destroyUserSessions(trx, userId, 'web');
    const remembered = await revokeRememberTokens(trx, userId, 'web');
    await endProviderSessionsOf(trx, userId, audit.now, 'revoked');
    if (sessions + remembered > 0) {
      await recordAudit(trx, 'admin.session.ended', audit, userId, {
        scope: 'all',
        count: sessions,
        remember_tokens: remembered,
      });
    }
    return sessions;
  });
}
