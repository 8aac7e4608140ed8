import type { Kysely, Transaction } from 'kysely';
import { type AuditContext, recordAudit } from '../audit/audit.ts';
import type { UserProvider } from '../auth/guards/guards.ts';
import { recordLoginSucceeded } from '../auth/login/login.ts';
import type { PasswordHasher } from '../auth/passwords/passwords.ts';
import { isUniqueViolation } from '../db/errors.ts';
import type { Database, Db } from '../db/schema.ts';
import type { Mailing } from '../mail/mailing.ts';
import { hasConfirmedTwoFactor } from '../two-factor/two-factor.repository.ts';
import { createUser } from '../users/new-user.ts';
import { toUser, type User } from '../users/user.ts';
import { findUserByEmail } from '../users/users.repository.ts';
import { findIdentity, insertIdentity, recordIdentityUse } from './identities.repository.ts';
import { queueIdentityNotice } from './mails.ts';
import type { UpstreamProfile } from './profile.ts';

export interface SignInDeps {
  readonly db: Kysely<Database>;
  readonly hasher: PasswordHasher;
  readonly mailing: Mailing;
  /** The web guard's user provider: a disabled account signs in through no door. */
  readonly users: UserProvider;
  /** Queues the verification mail of a new account whose address the provider did not verify. */
  readonly queueVerification: (trx: Transaction<Database>, user: User) => Promise<void>;
}

export interface SignInContext {
  /** NAME_TRUST_EMAIL of the provider the profile came from. */
  readonly trustEmail: boolean;
  /** The provider's button text, for the notice mail. */
  readonly label: string;
  /** The request's language: a new account's mails use it. */
  readonly locale: string;
}

export type UpstreamSignIn =
  /** Rules 1–3 let the person in; the login completes unless the user's second factor is owed. */
  | {
      readonly status: 'signed_in';
      readonly user: User;
      readonly twoFactorOwed: boolean;
      readonly how: 'linked' | 'linked_by_email' | 'registered';
    }
  /** An account has this address but may not be linked by it: log in with it, then link (rule 2). */
  | { readonly status: 'link_first'; readonly email: string }
  /** An account has this address and another identity of this provider already. */
  | { readonly status: 'provider_taken' }
  /** The account is disabled. */
  | { readonly status: 'refused' }
  /** Nobody has the address, and the provider gave none (or no account can be made: a race lost). */
  | { readonly status: 'no_account' };

/**
 * Who a provider's sign-in lets in (docs/guides/login-providers.md), the linking rules in order:
 * 1. the identity (provider + subject) is linked → its user;
 * 2. not linked, and a user has the address → linked only when the provider asserts the address
 *    verified AND NAME_TRUST_EMAIL is true AND the local address is verified too (a notice mail goes to
 *    the user); otherwise nothing is linked and the person is asked to log in and link from the
 *    account page. Each condition closes a takeover the field has shipped: an unverified provider
 *    address (Zitadel GHSA-992q-9gwp-7r79), a provider whose `email` anyone sets (Microsoft's "nOAuth"),
 *    an account pre-registered with someone else's address waiting to be claimed;
 * 3. nobody has the address → a new account (verified when the provider verified it, no password).
 * Two-factor applies to rules 1 and 2 as to a password. Every write of a rule is one transaction.
 */
export async function signInWithIdentity(
  deps: SignInDeps,
  profile: UpstreamProfile,
  context: SignInContext,
  audit: AuditContext,
): Promise<UpstreamSignIn> {
  const linked = await findIdentity(deps.db, profile.provider, profile.subject);
  if (linked !== undefined) {
    const user = await deps.users.retrieveById(linked.user_id);
    if (user === null || !deps.users.accepts(user)) return { status: 'refused' };
    return signedIn(deps, user, profile, 'linked', audit, async (trx) => {
      await recordIdentityUse(trx, linked.id, profile, audit.now);
    });
  }
  if (profile.email === null) return { status: 'no_account' };

  const row = await findUserByEmail(deps.db, profile.email);
  if (row !== undefined) {
    const user = toUser(row);
    const provable = profile.emailVerified && context.trustEmail && user.emailVerifiedAt !== null;
    if (!provable) return { status: 'link_first', email: profile.email };
    if (!deps.users.accepts(user)) return { status: 'refused' };
    try {
      return await signedIn(deps, user, profile, 'linked_by_email', audit, async (trx) => {
        await linkIdentity(trx, user.id, profile, audit);
        await recordAudit(trx, 'identity.linked', { ...audit, actorId: user.id }, user.id, {
          provider: profile.provider,
          via: 'verified_email',
        });
        await queueIdentityNotice(trx, deps.mailing, user, {
          event: 'linked',
          label: context.label,
          at: audit.now,
        });
      });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // The same identity linked by a concurrent sign-in (then rule 1 applies), or another identity of
      // this provider is linked to the account already.
      const now = await findIdentity(deps.db, profile.provider, profile.subject);
      if (now?.user_id === user.id) return signInWithIdentity(deps, profile, context, audit);
      return { status: 'provider_taken' };
    }
  }
  return register(deps, profile, profile.email, context, audit);
}

/** Rule 3: a new account, linked to the identity, in one transaction with its audit and mails. */
async function register(
  deps: SignInDeps,
  profile: UpstreamProfile,
  email: string,
  context: SignInContext,
  audit: AuditContext,
): Promise<UpstreamSignIn> {
  const result = await createUser(
    deps,
    {
      name: profile.name ?? email.slice(0, email.indexOf('@')),
      email,
      // No password: the person signs in through the provider, and can set one through the reset flow.
      password: null,
      locale: context.locale,
      verifiedAt: profile.emailVerified ? audit.now : null,
      canAccessPanel: false,
    },
    audit.now,
    async (trx, user) => {
      await linkIdentity(trx, user.id, profile, audit);
      const by = { ...audit, actorId: user.id };
      await recordAudit(trx, 'user.registered', by, user.id, {
        method: 'provider',
        provider: profile.provider,
      });
      await recordAudit(trx, 'identity.linked', by, user.id, {
        provider: profile.provider,
        via: 'registration',
      });
      if (user.emailVerifiedAt === null) await deps.queueVerification(trx, user);
      await recordLoginSucceeded(trx, 'web', user.id, audit, loginDetails(profile));
    },
  );
  // Someone registered the address a moment ago: not this person's to take.
  if (result.status === 'email_taken') return { status: 'no_account' };
  return { status: 'signed_in', user: result.user, twoFactorOwed: false, how: 'registered' };
}

/** Rules 1 and 2 end here: the login (or its second step) recorded with the identity's changes. */
async function signedIn(
  deps: SignInDeps,
  user: User,
  profile: UpstreamProfile,
  how: 'linked' | 'linked_by_email',
  audit: AuditContext,
  write: (trx: Transaction<Database>) => Promise<void>,
): Promise<UpstreamSignIn> {
  const twoFactorOwed = await hasConfirmedTwoFactor(deps.db, user.id);
  await deps.db.transaction().execute(async (trx) => {
    await write(trx);
    const details = loginDetails(profile);
    if (twoFactorOwed)
      await recordAudit(trx, 'login.two_factor_challenged', { ...audit, actorId: user.id }, user.id, {
        channel: 'web',
        ...details,
      });
    else await recordLoginSucceeded(trx, 'web', user.id, audit, details);
  });
  return { status: 'signed_in', user, twoFactorOwed, how };
}

/** How a login through a provider is recorded (docs/reference/audit-actions.md). */
export function loginDetails(profile: Pick<UpstreamProfile, 'provider'>) {
  return { method: 'provider', provider: profile.provider };
}

/** The identity row of a new link; a unique violation when it (or the provider for the user) is taken. */
export function linkIdentity(db: Db, userId: number, profile: UpstreamProfile, audit: AuditContext) {
  return insertIdentity(db, {
    user_id: userId,
    provider: profile.provider,
    subject: profile.subject,
    email: profile.email,
    email_verified: profile.emailVerified ? 1 : 0,
    created_at: audit.now,
    updated_at: audit.now,
    last_used_at: audit.now,
  });
}
