import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { appKey } from './config/app-key.ts';
import { type AuthCacheMode, authCacheMode } from './config/auth-cache.ts';
import { DEFAULT_DATABASE, parseDatabaseUrl } from './config/database-url.ts';
import { type LoginProviderConfig, loginProviders } from './config/login-providers.ts';
import { type OidcConfig, oidcConfig } from './config/oidc.ts';
import { type OperationsConfig, operationsConfig } from './config/operations.ts';
import { type OrgRoleDefinition, orgRoles } from './config/org-roles.ts';
import {
  boolean,
  defaultSender,
  forwardAuthDomains,
  headerSafe,
  integer,
  localPath,
  mailAddress,
  minutes,
  nullableMinutes,
  oneOf,
  redisPrefix,
  redisUrl,
  resolvePath,
  seconds,
  sessionDomain,
  statefulDomains,
  tokenAbilities,
  tokenPrefix,
  trustProxy,
  url,
} from './config/parsers.ts';
import { SUPPORTED_LOCALES } from './i18n/locales.ts';
import { deepFreeze } from './lib/deep-freeze.ts';

export { ConfigError } from './config/parsers.ts';

/** The whole service configuration: read once from the environment, validated, frozen. */
export interface Config extends OperationsConfig {
  readonly host: string;
  readonly port: number;
  readonly appName: string;
  /** `{base_url}` without a trailing slash. Every link in every mail is built from it, never from headers. */
  readonly appUrl: string;
  readonly secureCookies: boolean;
  /** Secret for HMAC signatures (verification links, CSRF tokens) and outbox encryption. */
  readonly appKey: Buffer;
  readonly storagePath: string;
  readonly database: DatabaseConfig;
  readonly redisUrl: string | null;
  /** Prefix of every Redis key (REDIS_PREFIX), so several deployments or test runs can share one Redis. */
  readonly redisPrefix: string;
  /** AUTH_CACHE: `notify` keeps token, session and user lookups in memory, dropped on change (server databases). */
  readonly authCache: AuthCacheMode;
  readonly sessionLifetimeMinutes: number;
  readonly sessionAbsoluteLifetimeMinutes: number;
  readonly adminSessionLifetimeMinutes: number;
  readonly rememberLifetimeMinutes: number;
  /** Minutes from creation; null = tokens never expire. */
  readonly tokenExpirationMinutes: number | null;
  readonly tokenPrefix: string;
  readonly statefulDomains: readonly string[];
  readonly loginRedirect: string;
  readonly locale: string;
  readonly fallbackLocale: string;
  readonly mail: MailConfig;
  /**
   * TRUST_PROXY. false (unset): X-Forwarded-* are ignored. A number N (`true` = 1): the app is reached
   * only through N proxies, so the client is the address the outermost of them appended — never a
   * value the client wrote into the header itself. Or the proxies' addresses/CIDRs, comma-separated.
   */
  readonly trustProxy: false | number | string;
  readonly apiRateLimitPerMinute: number;
  readonly loginMaxAttempts: number;
  readonly loginDecaySeconds: number;
  /** IP_AUTH_LIMIT: password, code and passkey checks per minute per client IP, all doors together; 0 = off. */
  readonly ipAuthLimit: number;
  /** ACCOUNT_MAX_FAILURES: failed checks per e-mail in 15 minutes, from any IP, before clients without a device cookie wait. */
  readonly accountMaxFailures: number;
  /** HASH_QUEUE_MAX: password checks allowed to wait for a hashing thread; one more gets 503. */
  readonly hashQueueMax: number;
  readonly passwordResetExpireMinutes: number;
  readonly verificationExpireMinutes: number;
  /** PASSWORD_TIMEOUT: seconds a password confirmation (POST /user/confirm-password) stays valid. */
  readonly passwordTimeoutSeconds: number;
  /** PASSWORD_CHANGE_REVOKES_TOKENS: a password change (PUT /user/password) also ends every API token. */
  readonly passwordChangeRevokesTokens: boolean;
  /** ADMIN_REQUIRE_TWO_FACTOR: an admin without two-factor on is sent to set it up before any panel page. */
  readonly adminRequireTwoFactor: boolean;
  /** TOKEN_ABILITIES: the catalogue offered when a user creates a token on the account page. */
  readonly tokenAbilities: readonly string[];
  readonly bodyLimitBytes: number;
  /** REQUEST_TIMEOUT: seconds a client has to send a whole request (headers and body) before a 408. */
  readonly requestTimeoutSeconds: number;
  readonly hashConcurrency: number;
  readonly logLevel: string;
  /** Comma-separated e-mail domains whose users may enter the panel without the flag; empty = flag only. */
  readonly panelEmailDomains: readonly string[];
  /**
   * FORWARD_AUTH_DOMAINS: the hosts (`host[:port]`, `*` wildcards, as SANCTUM_STATEFUL_DOMAINS) that
   * `/login?redirect=<absolute URL>` may send a browser to after login (docs/integrations/forward-auth.md); empty = none.
   */
  readonly forwardAuthDomains: readonly string[];
  /** SESSION_DOMAIN: the Domain of the web session cookies (sibling subdomains share them); null = host-only. */
  readonly sessionDomain: string | null;
  /** The OpenID Connect provider: OIDC_ISSUER and the token lifetimes (config/oidc.ts). */
  readonly oidc: OidcConfig;
  /** LOGIN_PROVIDERS and their NAME_* settings: sign-in with GitHub, Google, Microsoft, any OpenID provider. */
  readonly loginProviders: readonly LoginProviderConfig[];
  /** ORG_ROLES: the roles of organizations and their abilities (docs/guides/organizations.md). */
  readonly orgRoles: readonly OrgRoleDefinition[];
  /** ORG_INVITATION_EXPIRE: minutes an organization's invitation link stays valid. */
  readonly orgInvitationExpireMinutes: number;
}

export type DatabaseConfig =
  | { readonly dialect: 'sqlite'; readonly filename: string }
  | { readonly dialect: 'postgres'; readonly url: string }
  | { readonly dialect: 'mysql'; readonly url: string };

export interface MailConfig {
  readonly mailer: 'smtp' | 'log';
  readonly host: string;
  readonly port: number;
  readonly username: string | null;
  readonly password: string | null;
  readonly fromAddress: string;
  readonly fromName: string;
  /** `tls` = implicit TLS (port 465); otherwise STARTTLS is used when the server offers it. */
  readonly encryption: 'tls' | 'starttls' | 'none';
}

type Env = Record<string, string | undefined>;

/**
 * Reads `.env` from `cwd` (real environment variables win), validates every value and returns a frozen Config.
 * Throws ConfigError naming the first bad variable, so a start fails with one clear line. `storeAppKey:
 * false` never writes storage/app.key (config/app-key.ts).
 */
export function loadConfig(
  env: Env = process.env,
  options: { cwd?: string; readDotEnv?: boolean; storeAppKey?: boolean } = {},
): Config {
  const cwd = options.cwd ?? process.cwd();
  const dotEnvPath = join(cwd, '.env');
  const merged: Env =
    options.readDotEnv !== false && existsSync(dotEnvPath)
      ? { ...parseEnv(readFileSync(dotEnvPath, 'utf8')), ...env }
      : { ...env };
  const read = (name: string): string | undefined => {
    const value = merged[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };

  const port = integer(read, 'PORT', 3000, 0, 65535);
  const host = read('HOST') ?? '127.0.0.1';
  // localhost, not 127.0.0.1: browsers accept `localhost` as a passkey (WebAuthn RP) domain even over
  // plain http, never an IP address (docs/getting-started.md).
  const appUrl = url(read, 'APP_URL', `http://localhost:${port}`);
  const storagePath = resolvePath(cwd, read('STORAGE_PATH') ?? 'storage');
  const mailMailer = oneOf(read, 'MAIL_MAILER', ['smtp', 'log'] as const, 'log');
  const appHost = new URL(appUrl).host;

  const database = parseDatabaseUrl(read('DATABASE_URL') ?? DEFAULT_DATABASE, cwd);
  const redis = redisUrl(read('REDIS_URL'));

  const settings: Omit<Config, 'appKey'> = {
    host,
    port,
    appName: read('APP_NAME') ?? 'Gatehouse',
    appUrl,
    secureCookies: appUrl.startsWith('https:'),
    storagePath,
    database,
    redisUrl: redis,
    redisPrefix: redisPrefix(read('REDIS_PREFIX')),
    authCache: authCacheMode(read, database, redis),
    sessionLifetimeMinutes: minutes(read, 'SESSION_LIFETIME', 120),
    sessionAbsoluteLifetimeMinutes: minutes(read, 'SESSION_ABSOLUTE_LIFETIME', 1440),
    adminSessionLifetimeMinutes: minutes(read, 'ADMIN_SESSION_LIFETIME', 30),
    rememberLifetimeMinutes: minutes(read, 'REMEMBER_LIFETIME', 43200),
    tokenExpirationMinutes: nullableMinutes(
      read,
      'TOKEN_EXPIRATION',
      525960,
      merged['TOKEN_EXPIRATION'] !== undefined,
    ),
    tokenPrefix: tokenPrefix(read('TOKEN_PREFIX')),
    statefulDomains: statefulDomains(read('SANCTUM_STATEFUL_DOMAINS'), appHost),
    loginRedirect: localPath(read('LOGIN_REDIRECT') ?? '/dashboard'),
    locale: oneOf(read, 'APP_LOCALE', SUPPORTED_LOCALES, 'en'),
    fallbackLocale: oneOf(read, 'APP_FALLBACK_LOCALE', SUPPORTED_LOCALES, 'en'),
    mail: {
      mailer: mailMailer,
      host: read('MAIL_HOST') ?? '127.0.0.1',
      port: integer(read, 'MAIL_PORT', 587, 1, 65535),
      username: read('MAIL_USERNAME') ?? null,
      password: merged['MAIL_PASSWORD'] || null,
      fromAddress: mailAddress(read('MAIL_FROM_ADDRESS') ?? defaultSender(new URL(appUrl).hostname)),
      fromName: headerSafe('MAIL_FROM_NAME', read('MAIL_FROM_NAME') ?? read('APP_NAME') ?? 'Gatehouse'),
      encryption: oneOf(read, 'MAIL_ENCRYPTION', ['tls', 'starttls', 'none'] as const, 'starttls'),
    },
    trustProxy: trustProxy(read('TRUST_PROXY')),
    apiRateLimitPerMinute: integer(read, 'API_RATE_LIMIT', 60, 0),
    loginMaxAttempts: integer(read, 'LOGIN_MAX_ATTEMPTS', 5, 1),
    loginDecaySeconds: seconds(read, 'LOGIN_DECAY_SECONDS', 60),
    ipAuthLimit: integer(read, 'IP_AUTH_LIMIT', 30, 0),
    accountMaxFailures: integer(read, 'ACCOUNT_MAX_FAILURES', 20, 1),
    hashQueueMax: integer(read, 'HASH_QUEUE_MAX', 64, 1),
    passwordResetExpireMinutes: minutes(read, 'PASSWORD_RESET_EXPIRE', 60),
    verificationExpireMinutes: minutes(read, 'VERIFICATION_EXPIRE', 60),
    passwordTimeoutSeconds: seconds(read, 'PASSWORD_TIMEOUT', 10800),
    passwordChangeRevokesTokens: boolean(read, 'PASSWORD_CHANGE_REVOKES_TOKENS', false),
    adminRequireTwoFactor: boolean(read, 'ADMIN_REQUIRE_TWO_FACTOR', false),
    tokenAbilities: tokenAbilities(read('TOKEN_ABILITIES')),
    bodyLimitBytes: integer(read, 'BODY_LIMIT', 1024 * 1024, 1024),
    requestTimeoutSeconds: integer(read, 'REQUEST_TIMEOUT', 30, 1, 3600),
    hashConcurrency: integer(read, 'HASH_CONCURRENCY', 2, 1, 64),
    logLevel: oneOf(
      read,
      'LOG_LEVEL',
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      'info',
    ),
    panelEmailDomains: (read('PANEL_EMAIL_DOMAINS') ?? '')
      .split(',')
      .map((d) => d.trim().toLowerCase())
      .filter(Boolean),
    forwardAuthDomains: forwardAuthDomains(read('FORWARD_AUTH_DOMAINS')),
    sessionDomain: sessionDomain(read('SESSION_DOMAIN'), new URL(appUrl).hostname),
    oidc: oidcConfig(read, appUrl),
    loginProviders: loginProviders(read),
    orgRoles: orgRoles(read('ORG_ROLES')),
    orgInvitationExpireMinutes: minutes(read, 'ORG_INVITATION_EXPIRE', 10080),
    ...operationsConfig(read),
  };
  // The key comes last: when another variable is invalid, the start stops with that one line and no
  // key file (and no "generated a key" warning) is left behind.
  const config: Config = {
    ...settings,
    appKey: appKey(read('APP_KEY'), storagePath, options.storeAppKey !== false),
  };
  return deepFreeze(config);
}
