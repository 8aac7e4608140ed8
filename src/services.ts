import { createAccountService } from './account/account.service.ts';
import type { AccountDeletionDeps } from './account/account-deletion.ts';
import { signInMethods } from './account/sign-in-methods.ts';
import { createAdminService } from './admin/admin.service.ts';
import type { AuditContext } from './audit/audit.ts';
import { authConfig } from './auth/auth.config.ts';
import { createAuthService } from './auth/auth.service.ts';
import { createAuthCache } from './auth/cache/auth-cache.ts';
import type { CachedLookupOptions } from './auth/cache/cache-store.ts';
import type { AuthConfig, GuardDriver, ProviderDriver } from './auth/guards/guards.ts';
import { statefulDomains } from './auth/guards/stateful-domains.ts';
import { createPasswordHasher, type PasswordHasher } from './auth/passwords/passwords.ts';
import { sessionWithUserFinder } from './auth/sessions/sessions.ts';
import { memoryRateLimitStore, RateLimiter } from './auth/throttle/rate-limiter.ts';
import { redisRateLimitStore } from './auth/throttle/redis-rate-limit-store.ts';
import { accessTokenSettings, tokenByHashFinder, tokenWithUserFinder } from './auth/tokens/access-tokens.ts';
import type { Config } from './config.ts';
import { type DatabaseHandle, openDatabase } from './db/connection.ts';
import { redirectTarget } from './forward-auth/redirect-target.ts';
import { createI18n } from './i18n/i18n.ts';
import { createIdentityService } from './identities/identities.service.ts';
import { type Clock, systemClock } from './lib/clock.ts';
import { loadIoredis } from './lib/packages-on-demand.ts';
import type { MailTerminal } from './mail/log-transport.ts';
import { createMailer } from './mail/mailer.ts';
import { createMailing } from './mail/mailing.ts';
import { OutboxWorker } from './mail/outbox-worker.ts';
import { createPayloadCipher } from './mail/payload-cipher.ts';
import type { Transport } from './mail/transport.ts';
import { createMetrics } from './metrics/metrics.ts';
import { redirectOriginsFinder } from './oauth/client-records.ts';
import { clientFinder } from './oauth/clients.ts';
import { grantFinder } from './oauth/grants.ts';
import { createOauth } from './oauth/oauth.service.ts';
import { oauthTokenGuardDriver } from './oauth/token-guard.ts';
import { leaveAllOrganizations } from './orgs/account-deleted.ts';
import { membershipFinder } from './orgs/memberships.ts';
import { createOrgService } from './orgs/orgs.service.ts';
import { orgRoleCatalogue } from './orgs/roles.ts';
import { countPending } from './outbox/leased-rows.ts';
import type { OutboxSettings } from './outbox/retry.ts';
import { createPasskeyService } from './passkeys/passkeys.service.ts';
import { createPost, listPosts } from './posts/posts.service.ts';
import { type RegistrationInput, registerUser } from './users/registration.ts';
import { userFinder } from './users/user-provider.ts';
import { createWebhooks } from './webhooks/webhooks.service.ts';

export interface ServiceOverrides {
  clock?: Clock;
  hasher?: PasswordHasher;
  database?: DatabaseHandle;
  mailer?: Transport;
  /** Where the log mailer shows each mail's link: a developer's terminal (server.ts), never a log. */
  mailTerminal?: MailTerminal;
  outbox?: Partial<OutboxSettings>;
  /** The webhook worker's schedule (tests shorten the retries). */
  webhooks?: Partial<OutboxSettings>;
  /** Replaces the guard/provider configuration (auth/auth.config.ts). */
  authConfig?: AuthConfig;
  /** Extra guard and provider drivers, for guards the built-in drivers do not cover. */
  guardDrivers?: Record<string, GuardDriver>;
  providerDrivers?: Record<string, ProviderDriver>;
}

/**
 * The composition root: everything the HTTP layer and the CLI use, built once from the config. Use
 * cases get their dependencies here, and only here; the per-request lookups are wrapped here, once,
 * by the auth cache (auth/cache/).
 */
export function createServices(config: Config, overrides: ServiceOverrides = {}) {
  const clock = overrides.clock ?? systemClock;
  // Connected on first use: a CLI command that never touches Redis never opens a connection.
  const redis = config.redisUrl
    ? new (loadIoredis().Redis)(config.redisUrl, {
        lazyConnect: true,
        maxRetriesPerRequest: 2,
        enableOfflineQueue: true,
      })
    : null;
  // Without a listener ioredis would crash the process on a connection error; /ready reports it instead.
  redis?.on('error', () => {});
  // The cache must see every write, so it watches the database createServices opens itself; a handle
  // opened by the caller (tests, a CLI command) is used uncached.
  const authCache = overrides.database ? null : createAuthCache(config, redis);
  if (overrides.database && config.authCache === 'notify')
    throw new Error('AUTH_CACHE=notify needs the database createServices opens');
  const database = overrides.database ?? openDatabase(config.database, authCache?.watch ?? undefined);
  const { db } = database;
  const store = redis ? redisRateLimitStore(redis, `${config.redisPrefix}rl:`) : memoryRateLimitStore(clock);
  const limiter = new RateLimiter(store);
  const hasher =
    overrides.hasher ?? createPasswordHasher(config.hashConcurrency, undefined, config.hashQueueMax);
  const i18n = createI18n(config.locale, config.fallbackLocale);
  const mailer = overrides.mailer ?? createMailer(config, () => outbox.log, overrides.mailTerminal);
  // Durable mail queue: use cases enqueue in their transaction; server.ts starts the worker.
  const outbox: OutboxWorker = new OutboxWorker({
    db,
    dialect: database.dialect,
    transport: mailer,
    cipher: createPayloadCipher(config.appKey),
    clock,
    settings: overrides.outbox,
  });
  const mailing = createMailing(config, i18n, outbox);
  // Events are written by recordAudit in each change's transaction (AuditContext.webhooks, set at the
  // edge); server.ts starts the worker.
  const webhooks = createWebhooks({
    config: config.webhooks,
    db,
    dialect: database.dialect,
    clock,
    settings: overrides.webhooks,
  });

  // METRICS_TOKEN: counters the HTTP layer and the auth use cases feed, gauges read at scrape time.
  const metrics = createMetrics(config.metricsToken !== null, {
    mailOutboxPending: () => countPending(db, 'mail_outbox'),
    // Events not yet handed to the endpoints are waiting too.
    webhookOutboxPending: async () =>
      (await countPending(db, 'webhook_outbox')) + (await countPending(db, 'webhook_events')),
    passwordHashQueue: () => hasher.queued(),
  });

  // Every authenticated request reads its token or session, with its user, in one query; the auth
  // cache answers repeated reads from memory while the database reports no change (auth/cache/).
  const plainLookups = {
    findTokenWithUser: tokenWithUserFinder(db, accessTokenSettings(config)),
    findSessionWithUser: sessionWithUserFinder(db),
    findUser: userFinder(db),
  };
  const lookups = authCache ? authCache.wrap(plainLookups) : plainLookups;
  /** Another per-request lookup, behind the same cache: `tables` are what its answers are read from. */
  const cached = <K, V>(load: (key: K) => Promise<V>, options: CachedLookupOptions) =>
    authCache ? authCache.cached(load, options) : load;

  // A user's organizations (orgs/memberships.ts), read by GET /api/user, every forward-auth check and
  // the OIDC `orgs` claim: cached like the lookups above, so those requests pay no query for them while
  // nothing changed. A new membership changes a list that was there before: inserts count.
  const orgRoles = orgRoleCatalogue(config.orgRoles);
  const findMemberships = cached(membershipFinder(db, orgRoles), {
    tables: ['organization_memberships', 'organizations'],
    insertsInto: ['organization_memberships'],
  });
  // The OpenID Connect provider (oauth/). Its per-request lookups — a JWT access token's grant (the
  // revocation check: a revoked grant is a row deleted) and the client a token or code names.
  const oauth = createOauth({
    config,
    db,
    dialect: database.dialect,
    clock,
    findUser: lookups.findUser,
    findMemberships,
    findGrant: cached(grantFinder(db, clock), { tables: ['oauth_models'] }),
    findClient: cached(clientFinder(db), { tables: ['oauth_clients'] }),
    limiter,
    findRedirectOrigins: cached(redirectOriginsFinder(db), {
      tables: ['oauth_clients'],
      insertsInto: ['oauth_clients'],
    }),
  });

  const auth = createAuthService({
    config,
    authConfig: overrides.authConfig ?? authConfig(config),
    db,
    clock,
    hasher,
    limiter,
    mailing,
    lookups,
    findTokenByHash: tokenByHashFinder(db, accessTokenSettings(config)),
    guardDrivers: { oauth_token: oauthTokenGuardDriver(oauth.verifyAccessToken), ...overrides.guardDrivers },
    providerDrivers: overrides.providerDrivers,
    metrics,
  });

  // One account deletion behind both doors (DELETE /user and the panel); its user.deleted webhook is
  // written by its audit (account/account-deletion.ts).
  const deletion: AccountDeletionDeps = {
    db,
    mailing,
    canAccessPanel: auth.canAccessPanel,
    // docs/guides/organizations.md: no organization is left without an owner.
    beforeDelete: leaveAllOrganizations,
  };
  const account = createAccountService({
    config,
    db,
    clock,
    hasher,
    loginThrottle: auth.loginThrottle,
    devices: auth.devices,
    mailing,
    webLifetimes: auth.lifetimesOf('web'),
    deletion,
    twoFactorState: auth.twoFactor.state,
    // The dashboard's security card, on the page every session lands on: cached like the lookups above.
    signInMethods: cached((userId: number) => signInMethods(db, userId), {
      tables: ['two_factor_credentials', 'passkeys'],
      insertsInto: ['two_factor_credentials', 'passkeys'],
    }),
  });

  // LOGIN_PROVIDERS (docs/guides/login-providers.md): discovery starts with the HTTP app (http/identities/).
  const identities = createIdentityService({
    config,
    db,
    hasher,
    mailing,
    users: auth.providerOf('web'),
    queueVerification: auth.verification.queue,
    meter: metrics.login,
  });

  // FORWARD_AUTH_DOMAINS, matched like SANCTUM_STATEFUL_DOMAINS (one host-pattern matcher).
  const forwardAuthHosts = statefulDomains(config.forwardAuthDomains);
  const appOrigin = new URL(config.appUrl).origin;

  return {
    config,
    database,
    redis,
    /** The auth cache (null when off); exposed for /ready-style checks and tests. */
    authCache,
    clock,
    hasher,
    limiter,
    i18n,
    /** The configured mailer (MAIL_MAILER); only the outbox worker and `mail:test` send through it. */
    mailer,
    outbox,
    mailing,
    /** Prometheus metrics (docs/guides/metrics.md); a no-op without METRICS_TOKEN. */
    metrics,
    /** Webhooks (docs/guides/webhooks.md): the event sink for audit contexts, the worker, the panel's deliveries. */
    webhooks,
    auth,
    /** Account self-service (docs/guides/account.md). */
    account,
    /** The OpenID Connect provider (docs/guides/oidc-provider.md): clients, keys, the token check. */
    oauth,
    /** Organizations (docs/guides/organizations.md): teams, roles, invitations, and who belongs where. */
    orgs: createOrgService({ config, db, mailing, roles: orgRoles, findMemberships }),
    /** Passkeys (docs/guides/passkeys.md): registration, sign-in, rename, delete. */
    passkeys: createPasskeyService(config, db, mailing, metrics.login),
    /** Sign-in with other providers and the account's linked identities (docs/guides/login-providers.md). */
    identities,
    /** The example resource of the API (GET/POST /api/posts). */
    posts: {
      list: (userId: number) => listPosts(db, userId),
      create: (userId: number, input: { title: string; body: string }) =>
        createPost(db, userId, input, clock.now()),
    },
    users: {
      /** Registration; the verification mail is queued in its transaction. */
      register: (input: RegistrationInput, audit: AuditContext) =>
        registerUser(db, hasher, input, audit, { afterCreate: auth.verification.queue }),
    },
    forwardAuth: {
      /** The absolute URL a web login may end on (`/login?redirect=`, docs/integrations/forward-auth.md), else null. */
      redirectTarget: (raw: unknown) => redirectTarget(raw, forwardAuthHosts, appOrigin),
      /** Whether an Origin (or any http(s) URL) names a FORWARD_AUTH_DOMAINS host. */
      listsOrigin: (origin: string) => forwardAuthHosts.matches(origin),
    },
    admin: createAdminService({ db, hasher, mailing, config, auth, deletion }),
    async close() {
      identities.close();
      // First: the workers may be writing a delivery result, which needs the database.
      await Promise.all([outbox.stop(), oauth.logouts.stop()]);
      await webhooks.close();
      mailer.close();
      await store.close();
      await authCache?.close();
      if (redis?.status === 'wait') redis.disconnect();
      else if (redis) await redis.quit().catch(() => redis.disconnect());
      if (!overrides.database) await database.close();
    },
  };
}

export type Services = ReturnType<typeof createServices>;
