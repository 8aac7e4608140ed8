import type { User } from '../users/user.ts';
import type { AccessToken } from './access-tokens.ts';

/** What a guard may read of a request. The HTTP layer adapts Fastify's request to it. */
export interface AuthRequest {
  header(name: string): string | undefined;
  /** The session a session guard owns on this request (loaded at most once per request). */
  session(guard: string): Promise<{ readonly userId: number | null } | null>;
}

export interface Identity {
  readonly guard: string;
  readonly user: User;
  /** Set when a bearer token authenticated the request; sessions hold every ability. */
  readonly token?: AccessToken;
}

/** Session, admin-session and token guards all answer these two questions over a user provider. */
export interface Guard {
  readonly name: string;
  readonly driver: string;
  authenticate(request: AuthRequest): Promise<Identity | null>;
  check(request: AuthRequest): Promise<boolean>;
}

/** Finds the users a guard may let in. Returning null (e.g. for a disabled account) refuses them. */
export interface UserProvider {
  retrieveById(id: number): Promise<User | null>;
  /** For credential checks: refuses users this provider does not serve (e.g. no panel access). */
  accepts(user: User): boolean;
}

export interface GuardConfig {
  readonly driver: string;
  readonly provider: string;
  /** Driver-specific options (cookie names, login path, lifetimes for session guards). */
  readonly [option: string]: unknown;
}

export interface ProviderConfig {
  readonly driver: string;
  readonly [option: string]: unknown;
}

/**
 * The authentication configuration (Laravel's config/auth.php): adding a guard is adding an entry
 * here together with a provider; drivers are the code that interprets them.
 */
export interface AuthConfig {
  readonly guards: Readonly<Record<string, GuardConfig>>;
  readonly providers: Readonly<Record<string, ProviderConfig>>;
}

export type GuardDriver = (name: string, config: GuardConfig, provider: UserProvider) => Guard;
export type ProviderDriver = (config: ProviderConfig) => UserProvider;

export class AuthConfigError extends Error {}

export function createGuards(
  config: AuthConfig,
  drivers: Readonly<Record<string, GuardDriver>>,
  providerDrivers: Readonly<Record<string, ProviderDriver>>,
): { guards: ReadonlyMap<string, Guard>; providers: ReadonlyMap<string, UserProvider> } {
  const providers = new Map<string, UserProvider>();
  for (const [name, provider] of Object.entries(config.providers)) {
    const driver = providerDrivers[provider.driver];
    if (!driver)
      throw new AuthConfigError(`Auth provider "${name}" uses unknown driver "${provider.driver}"`);
    providers.set(name, driver(provider));
  }
  const guards = new Map<string, Guard>();
  for (const [name, guard] of Object.entries(config.guards)) {
    const driver = drivers[guard.driver];
    if (!driver) throw new AuthConfigError(`Auth guard "${name}" uses unknown driver "${guard.driver}"`);
    const provider = providers.get(guard.provider);
    if (!provider)
      throw new AuthConfigError(`Auth guard "${name}" uses unknown provider "${guard.provider}"`);
    guards.set(name, driver(name, guard, provider));
  }
  return { guards, providers };
}
