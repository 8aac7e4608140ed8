import type { Kysely } from 'kysely';
import type { AuditContext } from '../audit/audit.ts';
import type { UserProvider } from '../auth/guards/guards.ts';
import type { LoginMeter } from '../auth/login/login-outcome.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/schema.ts';
import type { Mailing } from '../mail/mailing.ts';
import type { User } from '../users/user.ts';
import { loginOptions, verifyPasskeyLogin } from './authentication.ts';
import { deletePasskey, renamePasskey } from './management.ts';
import type { PasskeyDeps } from './passkey-deps.ts';
import { listPasskeys } from './passkeys.repository.ts';
import { registerPasskey, registrationOptions } from './registration.ts';
import { relyingParty } from './relying-party.ts';

type Owner = Pick<User, 'id' | 'email' | 'name' | 'locale' | 'emailVerifiedAt'>;

/**
 * Passkeys (docs/guides/passkeys.md), each use case with its dependencies bound once: registration, sign-in,
 * rename, delete; sign-ins are counted by `meter`. The relying party is APP_URL's (origin and hostname). Built by services.ts; the HTTP
 * layer passes the browser session's binding (BrowserSession.binding) and the web guard's provider.
 */
export function createPasskeyService(
  config: Config,
  db: Kysely<Database>,
  mailing: Mailing,
  meter: LoginMeter = () => {},
) {
  const deps: PasskeyDeps = {
    db,
    mailing,
    relyingParty: relyingParty(config.appUrl, config.appName),
    appKey: config.appKey,
  };
  return {
    relyingParty: deps.relyingParty,
    list: (userId: number) => listPasskeys(db, userId),
    registrationOptions: (user: Pick<User, 'id' | 'email' | 'name'>, sessionBinding: string, now: number) =>
      registrationOptions(deps, user, sessionBinding, now),
    register: (
      user: Owner,
      input: { name: string; credential: unknown },
      sessionBinding: string,
      audit: AuditContext,
    ) => registerPasskey(deps, user, input, sessionBinding, audit),
    rename: (userId: number, passkeyId: number, name: string, audit: AuditContext) =>
      renamePasskey(deps, userId, passkeyId, name, audit),
    delete: (user: Owner, passkeyId: number, audit: AuditContext, by: 'user' | 'admin' = 'user') =>
      deletePasskey(deps, user, passkeyId, audit, by),
    loginOptions: (sessionBinding: string, now: number) => loginOptions(deps, sessionBinding, now),
    /** A passkey sign-in, counted like any other login attempt of the web guard (gatehouse_logins_total). */
    login: async (
      provider: UserProvider,
      credential: unknown,
      sessionBinding: string,
      audit: AuditContext,
    ) => {
      const result = await verifyPasskeyLogin(deps, provider, credential, sessionBinding, audit);
      meter('web', result.status === 'failed' ? 'failed' : result.twoFactorOwed ? 'two_factor' : 'success');
      return result;
    },
  };
}

export type PasskeyService = ReturnType<typeof createPasskeyService>;
