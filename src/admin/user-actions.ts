import type { Kysely } from 'kysely';
import { type AuditContext, type AuditEvent, recordAudit } from '../audit/audit.ts';
import { revokeRememberTokens } from '../auth/remember-me/remember-me.ts';
import { destroyUserSessions } from '../auth/sessions/sessions.ts';
import { deleteTokens } from '../auth/tokens/access-tokens.repository.ts';
import type { Database, Db } from '../db/schema.ts';
import { endProviderSessionsOf } from '../oauth/provider-sessions.ts';
import { ownerId } from './owner.ts';
import { setUserFlag, type UserFlagChange, userExists } from './panel.repository.ts';

/**
 * The panel's account actions. Each one is a conditional UPDATE (so two admins clicking at once
 * change the row once and audit once) plus its audit row, in one transaction.
 *
 * - `ok`: changed and audited; `unchanged`: already in that state, nothing written;
 * - `self`: refused because an admin may not lock themselves out; `not_found`: no such user;
 * - `owner`: refused because no admin may lock the installation's owner out (docs/security.md).
 */
export type AccountActionResult = 'ok' | 'unchanged' | 'self' | 'owner' | 'not_found';

/**
 * Who withdraws access: an admin in the panel, or the operator at the command line (admin:revoke).
 * Only the panel is held back from the owner: a rogue or compromised admin account must not be able
 * to lock out the person who set the installation up, while whoever runs the CLI already holds the
 * server (and the database) and is the one who can hand ownership on.
 */
export type ActingThrough = 'panel' | 'cli';

/** The owner rule: true when `through` may not lock `userId` out. */
async function protectsOwner(db: Db, userId: number, through: ActingThrough): Promise<boolean> {
  return through === 'panel' && (await ownerId(db)) === userId;
}

export function markEmailVerified(db: Kysely<Database>, userId: number, audit: AuditContext) {
  return change(db, userId, { verify: true }, 'admin.user.verified', audit);
}

/**
 * Disables an account: the provider refuses disabled users on every request, so their web sessions,
 * remember-me cookies and API tokens stop working at once; they are also deleted here, so that
 * enabling the account later does not bring the old credentials back.
 *
 * Admin-guard sessions are the exception: they are kept until their next panel request, which the
 * panel answers with 403 "access withdrawn" (docs/guides/admin-panel.md) and then ends. They cannot do anything
 * meanwhile — every panel request asks the provider again.
 */
export async function disableUser(
  db: Kysely<Database>,
  userId: number,
  audit: AuditContext,
): Promise<AccountActionResult> {
  if (audit.actorId === userId) return 'self';
  // Disabling is a panel action only (no CLI command), so the owner is always protected here.
  if (await protectsOwner(db, userId, 'panel')) return 'owner';
  return change(db, userId, { disabled: true }, 'admin.user.disabled', audit, async (trx) => {
    const sessions = await destroyUserSessions(trx, userId, 'web');
    await endProviderSessionsOf(trx, userId, audit.now, 'revoked');
    return {
      sessions,
      remember_tokens: await revokeRememberTokens(trx, userId),
      tokens: await deleteTokens(trx, userId),
    };
  });
}

export function enableUser(db: Kysely<Database>, userId: number, audit: AuditContext) {
  return change(db, userId, { disabled: false }, 'admin.user.enabled', audit);
}

/**
 * Grants or withdraws the panel-access flag. Nobody changes their own: an admin cannot lock
 * themselves out by mistake, nor has anything to gain by granting it. The panel cannot withdraw the
 * owner's access; the CLI can (ActingThrough). Withdrawing also forgets any admin remember-me tokens
 * left from before the panel lost remember-me; a live admin session gets 403 on its next request.
 */
export async function setPanelAccess(
  db: Kysely<Database>,
  userId: number,
  grant: boolean,
  audit: AuditContext,
  through: ActingThrough,
): Promise<AccountActionResult> {
  if (audit.actorId === userId) return 'self';
  if (!grant && (await protectsOwner(db, userId, through))) return 'owner';
  const event = grant ? 'admin.user.panel_granted' : 'admin.user.panel_revoked';
  return change(db, userId, { panelAccess: grant }, event, audit, async (trx) =>
    grant ? undefined : { remember_tokens: await revokeRememberTokens(trx, userId, 'admin') },
  );
}

async function change(
  db: Kysely<Database>,
  userId: number,
  flag: UserFlagChange,
  event: AuditEvent,
  audit: AuditContext,
  sideEffects?: (trx: Db) => Promise<Record<string, unknown> | undefined>,
): Promise<AccountActionResult> {
  return db.transaction().execute(async (trx) => {
    if (!(await setUserFlag(trx, userId, flag, audit.now))) {
      return (await userExists(trx, userId)) ? 'unchanged' : 'not_found';
    }
    const details = await sideEffects?.(trx);
    await recordAudit(trx, event, audit, userId, details);
    return 'ok';
  });
}
