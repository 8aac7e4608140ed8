import { type AuditContext, recordAudit } from '../../audit/audit.ts';
import type { Db } from '../../db/schema.ts';
import { endProviderSessionsOf } from '../../oauth/provider-sessions.ts';
import { forgetRememberToken } from '../remember-me/remember-me.ts';
import { destroySession } from '../sessions/sessions.ts';

export interface EndingSession {
  readonly guard: string;
  /** The row's key (sha256 of the cookie), or null when the browser had no live session. */
  readonly key: string | null;
  readonly userId: number | null;
  /** The browser's remember-me cookie, if any: its token is deleted, so it can never log in again. */
  readonly rememberCookie: string | undefined;
}

/**
 * Logout: the session row is deleted (the old cookie stops working at once, on every instance, rather
 * than merely being forgotten by this browser) and the remember-me token behind the browser's cookie
 * is revoked. Recorded in the audit trail when a user was signed in.
 */
export async function endSession(db: Db, ending: EndingSession, audit: AuditContext): Promise<void> {
  if (ending.key !== null) await destroySession(db, ending.key);
  // The OpenID provider's sessions that followed it end too (docs/guides/oidc-provider.md "Logout").
  if (ending.userId !== null) await endProviderSessionsOf(db, ending.userId, audit.now, 'logout');
  await forgetRememberToken(db, ending.rememberCookie);
  if (ending.userId !== null) {
    await recordAudit(db, 'logout', { ...audit, actorId: ending.userId }, ending.userId, {
      guard: ending.guard,
    });
  }
}
