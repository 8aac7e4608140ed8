import type { Kysely } from 'kysely';
import { type AuditContext, recordAudit } from '../audit/audit.ts';
import { isUniqueViolation } from '../db/errors.ts';
import type { Database } from '../db/schema.ts';
import type { Mailing } from '../mail/mailing.ts';
import type { User } from '../users/user.ts';
import { findUserRows } from '../users/users.repository.ts';
import {
  deleteIdentityRow,
  findIdentity,
  findOwnIdentity,
  otherSignInWays,
} from './identities.repository.ts';
import { queueIdentityNotice } from './mails.ts';
import type { UpstreamProfile } from './profile.ts';
import { linkIdentity } from './sign-in.ts';

export interface LinkingDeps {
  readonly db: Kysely<Database>;
  readonly mailing: Mailing;
}

export type LinkResult = 'linked' | 'already_linked' | 'linked_to_another_user' | 'provider_taken';

/**
 * Link from the account page (docs/guides/login-providers.md): the signed-in user came back from the
 * provider with an identity, which is linked unless it belongs to someone else already (it never moves
 * between accounts) or the user has another identity of this provider. A notice mail tells the user.
 */
export async function linkToUser(
  deps: LinkingDeps,
  user: User,
  profile: UpstreamProfile,
  label: string,
  audit: AuditContext,
): Promise<LinkResult> {
  const existing = await findIdentity(deps.db, profile.provider, profile.subject);
  if (existing !== undefined)
    return existing.user_id === user.id ? 'already_linked' : 'linked_to_another_user';
  try {
    await deps.db.transaction().execute(async (trx) => {
      await linkIdentity(trx, user.id, profile, audit);
      await recordAudit(trx, 'identity.linked', { ...audit, actorId: user.id }, user.id, {
        provider: profile.provider,
        via: 'account',
      });
      await queueIdentityNotice(trx, deps.mailing, user, { event: 'linked', label, at: audit.now });
    });
    return 'linked';
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const now = await findIdentity(deps.db, profile.provider, profile.subject);
    if (now === undefined) return 'provider_taken';
    return now.user_id === user.id ? 'already_linked' : 'linked_to_another_user';
  }
}

export type UnlinkResult =
  | { readonly status: 'unlinked' | 'last_way_in'; readonly provider: string }
  | { readonly status: 'not_found' };

/**
 * DELETE /user/linked-accounts/{id}: refused when the identity is the account's last way to sign in —
 * no password, no passkey, no other identity (the reset flow can still set a password). The user's
 * row is locked for the decision, so two unlinks of the last two identities cannot both pass.
 */
export async function unlinkIdentity(
  deps: LinkingDeps,
  user: User,
  identityId: number,
  label: (provider: string) => string,
  audit: AuditContext,
): Promise<UnlinkResult> {
  return deps.db.transaction().execute(async (trx): Promise<UnlinkResult> => {
    await findUserRows(trx, [user.id], { lock: true });
    const identity = await findOwnIdentity(trx, user.id, identityId);
    if (identity === undefined) return { status: 'not_found' };
    const { provider } = identity;
    const others = await otherSignInWays(trx, user.id, identity.id);
    if (!others.password && others.passkeys === 0 && others.identities === 0)
      return { status: 'last_way_in', provider };
    if (!(await deleteIdentityRow(trx, user.id, identity.id))) return { status: 'not_found' };
    await recordAudit(trx, 'identity.unlinked', { ...audit, actorId: user.id }, user.id, {
      provider,
      identity_id: identity.id,
    });
    await queueIdentityNotice(trx, deps.mailing, user, {
      event: 'unlinked',
      label: label(provider),
      at: audit.now,
    });
    return { status: 'unlinked', provider };
  });
}
