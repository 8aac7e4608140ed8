import type { Kysely, Transaction } from 'kysely';
import type { AuditContext } from '../audit/audit.ts';
import type { UserProvider } from '../auth/guards/guards.ts';
import type { LoginMeter } from '../auth/login/login-outcome.ts';
import type { PasswordHasher } from '../auth/passwords/passwords.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/schema.ts';
import { createSealer } from '../lib/sealing.ts';
import type { Mailing } from '../mail/mailing.ts';
import type { User } from '../users/user.ts';
import { newAttempt, openAttempt, sealAttempt, type UpstreamAttempt } from './attempt.ts';
import { listIdentities, userHasPassword } from './identities.repository.ts';
import { linkToUser, unlinkIdentity } from './linking.ts';
import type { UpstreamProfile } from './profile.ts';
import { LoginProviders } from './providers/registry.ts';
import { upstreamFailure } from './providers/upstream-provider.ts';
import { signInWithIdentity } from './sign-in.ts';
import { UpstreamFailure } from './upstream-failure.ts';

export interface IdentityServiceDeps {
  readonly config: Config;
  readonly db: Kysely<Database>;
  readonly hasher: PasswordHasher;
  readonly mailing: Mailing;
  readonly users: UserProvider;
  readonly queueVerification: (trx: Transaction<Database>, user: User) => Promise<void>;
  /** Counts sign-ins (gatehouse_logins_total, docs/reference/metrics.md); links are not sign-ins. */
  readonly meter?: LoginMeter;
}

export type Begun =
  | { readonly status: 'redirect'; readonly url: string; readonly sealedAttempt: string }
  | { readonly status: 'failed'; readonly failure: UpstreamFailure };

export type Finished =
  | { readonly status: 'ok'; readonly attempt: UpstreamAttempt; readonly profile: UpstreamProfile }
  | {
      readonly status: 'failed';
      readonly failure: UpstreamFailure;
      readonly attempt: UpstreamAttempt | null;
    };

/**
 * Signing in with other providers (docs/guides/login-providers.md): the providers, the two halves of a
 * sign-in (begin: where to send the browser and the sealed attempt it carries; finish: the callback
 * checked into a profile), the linking rules, and the account's linked identities.
 */
export function createIdentityService(deps: IdentityServiceDeps) {
  const { config, db, mailing } = deps;
  const meter = deps.meter ?? (() => {});
  const providers = new LoginProviders(config.loginProviders);
  // Its own key (HKDF of APP_KEY for this purpose): an attempt cookie opens nothing else, and nothing
  // else opens as an attempt.
  const sealer = createSealer(config.appKey, 'gatehouse upstream sign-in attempt');
  const redirectUri = (name: string) => `${config.appUrl}/auth/${name}/callback`;
  const labelOf = (name: string) => providers.get(name)?.label ?? name;

  return {
    providers,
    /** The callback URL to register with a provider: `{APP_URL}/auth/{name}/callback`. */
    redirectUri,
    labelOf,

    /** A new attempt for `name` (known to the caller) and the provider's authorization URL. */
    async begin(
      name: string,
      options: { remember: boolean; linkUserId: number | null },
      now: number,
    ): Promise<Begun> {
      const provider = providers.get(name)!;
      const attempt = newAttempt(name, options, now);
      try {
        const url = await provider.authorizationUrl(redirectUri(name), attempt);
        return { status: 'redirect', url: url.href, sealedAttempt: sealAttempt(sealer, attempt) };
      } catch (error) {
        return { status: 'failed', failure: upstreamFailure(error) };
      }
    },

    /**
     * The callback of `name`: the browser's attempt (its cookie) must have been sealed for this
     * provider and be under 10 minutes old, then the provider's answer (`query`, the callback's query
     * string) passes every check of provider.complete.
     */
    async finish(name: string, sealed: string | undefined, query: string, now: number): Promise<Finished> {
      const provider = providers.get(name)!;
      const attempt = openAttempt(sealer, name, sealed, now);
      if (attempt === null) {
        meter('web', 'failed');
        return {
          status: 'failed',
          attempt,
          failure: new UpstreamFailure('failed', 'no sign-in with this provider under way in this browser'),
        };
      }
      try {
        const callback = new URL(`${redirectUri(name)}${query === '' ? '' : `?${query}`}`);
        return { status: 'ok', attempt, profile: await provider.complete(callback, attempt) };
      } catch (error) {
        if (attempt.linkUserId === null) meter('web', 'failed');
        return { status: 'failed', attempt, failure: upstreamFailure(error) };
      }
    },

    /** The linking rules (identities/sign-in.ts). */
    signIn: async (profile: UpstreamProfile, locale: string, audit: AuditContext) => {
      const provider = providers.get(profile.provider)!;
      const context = { trustEmail: provider.trustEmail, label: provider.label, locale };
      const result = await signInWithIdentity(deps, profile, context, audit);
      meter(
        'web',
        result.status !== 'signed_in' ? 'failed' : result.twoFactorOwed ? 'two_factor' : 'success',
      );
      return result;
    },
    link: (user: User, profile: UpstreamProfile, audit: AuditContext) =>
      linkToUser({ db, mailing }, user, profile, labelOf(profile.provider), audit),
    unlink: (user: User, identityId: number, audit: AuditContext) =>
      unlinkIdentity({ db, mailing }, user, identityId, labelOf, audit),
    list: (userId: number) => listIdentities(db, userId),
    /** Whether the user has a password (linking then asks for its confirmation). */
    hasPassword: (userId: number) => userHasPassword(db, userId),
    close: () => providers.stop(),
  };
}

export type IdentityService = ReturnType<typeof createIdentityService>;
