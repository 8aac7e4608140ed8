import type { User } from '../../users/user.ts';
import type { AccessToken } from '../tokens/access-tokens.ts';

/** What a guard may read of a request. The HTTP layer adapts Fastify's request to it. */
export interface AuthRequest {
  header(name: string): string | undefined;
  /** The session a session guard owns on this request (loaded at most once per request). */
  session(guard: string): Promise<{ readonly userId: number | null; readonly user?: User | null } | null>;
}

export interface Identity {
  readonly guard: string;
  readonly user: User;
  /** Set when a bearer token authenticated the request; sessions hold every ability. */
  readonly token?: AccessToken;
  /** Set when an OpenID Connect access token did (src/oauth/): its abilities are its API scopes. */
  readonly oauth?: { readonly clientId: string; readonly abilities: readonly string[] };
}

/**
 * A valid bearer token that a client holds as itself (OAuth client_credentials): no user stands
 * behind it, so a guard over users cannot admit it — and must not answer "unauthenticated" either
 * (docs/guides/oidc-provider.md "Client credentials"). requireAuth turns it into a 403.
 */
export class ClientTokenError extends Error {
  constructor(
    readonly clientId: string,
    readonly abilities: readonly string[],
  ) {
    super('a client token authenticates no user');
  }
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
  /**
   * `loaded`: the user row a joined read already brought along (a token's or session's user), which a
   * provider over the users table uses instead of asking again; other providers may ignore it.
   */
  retrieveById(id: number, loaded?: User | null): Promise<User | null>;
  /** For credential checks: refuses users this provider does not serve (e.g. no panel access). */
  accepts(user: User): boolean;
}

/** A browser session: its own cookies, login page and lifetime, and the paths whose forms it protects. */
export type SessionGuardConfig = {
  readonly driver: 'session';
  readonly provider: string;
  /**
   * The paths this guard owns: a state-changing request under this prefix must carry its session's
   * CSRF token. The longest matching prefix of all guards wins ('/' = every path nobody else claims).
   */
  readonly pathPrefix: string;
  /** Cookie names as configured; `__Host-` (`__Secure-` with SESSION_DOMAIN) is prepended when APP_URL is https. */
  readonly cookie: string;
  /** The remember-me cookie; a guard without one has no remember-me (its logins ignore `remember`). */
  readonly rememberCookie?: string;
  /** A cookie scripts may read, mirroring the CSRF token (Sanctum's XSRF-TOKEN), for SPAs. */
  readonly xsrfCookie?: string;
  /** Where a guest who needs this guard is sent (remembering the page asked for). */
  readonly loginPath: string;
  readonly idleMinutes: number;
  /**
   * A live session whose user the provider now refuses (access withdrawn, account disabled): with a
   * message key, that session is ended and the request answered 403 with it; without, the request is
   * simply unauthenticated (a login redirect).
   */
  readonly refusedMessage?: string;
};

/** `Authorization: Bearer <id>|<secret>`. */
export type TokenGuardConfig = {
  readonly driver: 'token';
  readonly provider: string;
};

/** Laravel Sanctum's guard: a session guard's cookie for stateful front ends, else a bearer token. */
export type SanctumGuardConfig = {
  readonly driver: 'sanctum';
  readonly provider: string;
  /** The session guard whose cookie (and CSRF token) a stateful front end uses. */
  readonly session: string;
  readonly pathPrefix: string;
};

/** A guard of an added driver (ServiceOverrides.guardDrivers): its options are that driver's business. */
export interface CustomGuardConfig {
  readonly driver: string;
  readonly provider: string;
  readonly [option: string]: unknown;
}

export type GuardConfig = SessionGuardConfig | TokenGuardConfig | SanctumGuardConfig | CustomGuardConfig;

export interface ProviderConfig {
  readonly driver: string;
  /** `database` driver: the name of an access check that narrows it (`canAccessPanel`). */
  readonly allow?: string;
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

/** Interprets one guard entry; an added driver reads its own options from `config`. */
export type GuardDriver = (name: string, config: CustomGuardConfig, provider: UserProvider) => Guard;
export type ProviderDriver = (config: ProviderConfig) => UserProvider;

export class AuthConfigError extends Error {}

export function isSessionGuard(config: GuardConfig | undefined): config is SessionGuardConfig {
  return config?.driver === 'session';
}

export function isSanctumGuard(config: GuardConfig | undefined): config is SanctumGuardConfig {
  return config?.driver === 'sanctum';
}

/** The session guards of a configuration, by name. */
export function sessionGuards(config: AuthConfig): ReadonlyMap<string, SessionGuardConfig> {
  const found = new Map<string, SessionGuardConfig>();
  for (const [name, guard] of Object.entries(config.guards))
    if (isSessionGuard(guard)) found.set(name, guard);
  return found;
}

/**
 * The guard that owns `path`: the session or sanctum guard with the longest `pathPrefix` the path
 * lies under (`/admin` owns `/admin` and `/admin/…`, not `/administrator`); null when none does.
 */
export function guardOwningPath(config: AuthConfig, path: string): string | null {
  let owner: string | null = null;
  let longest = -1;
  for (const [name, guard] of Object.entries(config.guards)) {
    if (!isSessionGuard(guard) && !isSanctumGuard(guard)) continue;
    const prefix = guard.pathPrefix.replace(/\/+$/, '');
    const under = prefix === '' || path === prefix || path.startsWith(`${prefix}/`);
    if (under && prefix.length > longest) {
      owner = name;
      longest = prefix.length;
    }
  }
  return owner;
}

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
    checkOptions(config, name, guard);
    guards.set(name, driver(name, guard, provider));
  }
  return { guards, providers };
}

/** The built-in drivers' options, checked at start: a typo fails the build, naming the entry. */
function checkOptions(config: AuthConfig, name: string, guard: GuardConfig): void {
  const fail = (why: string) => new AuthConfigError(`Auth guard "${name}" ${why}`);
  const text = (option: string) => typeof (guard as CustomGuardConfig)[option] === 'string';
  if (isSessionGuard(guard)) {
    for (const option of ['pathPrefix', 'cookie', 'loginPath']) {
      if (!text(option)) throw fail(`needs the option "${option}"`);
    }
    if (guard.rememberCookie !== undefined && !text('rememberCookie')) {
      throw fail('has a "rememberCookie" that is no cookie name');
    }
    if (!(Number.isInteger(guard.idleMinutes) && guard.idleMinutes > 0)) {
      throw fail('needs "idleMinutes", a whole number of minutes');
    }
  } else if (isSanctumGuard(guard)) {
    if (!text('pathPrefix')) throw fail('needs the option "pathPrefix"');
    if (!isSessionGuard(config.guards[guard.session])) {
      throw fail(`names "${String(guard.session)}" as its session, which is no session guard`);
    }
  }
}
