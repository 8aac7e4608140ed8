import type { Kysely, Transaction } from 'kysely';
import type { AuditContext } from '../audit/audit.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/schema.ts';
import type { Clock } from '../lib/clock.ts';
import type { Mailing } from '../mail/mailing.ts';
import type { ChallengeDeps } from '../two-factor/challenge.ts';
import { createTwoFactorService } from '../two-factor/two-factor.service.ts';
import { twoFactorSealer } from '../two-factor/two-factor.ts';
import type { User } from '../users/user.ts';
import { databaseProviderDriver, type FindUser } from '../users/user-provider.ts';
import {
  type AuthConfig,
  createGuards,
  type GuardDriver,
  type ProviderDriver,
  type UserProvider,
} from './guards/guards.ts';
import { panelAccessCheck } from './guards/panel-access.ts';
import { sanctumGuardDriver } from './guards/sanctum-guard.ts';
import { sessionGuardDriver } from './guards/session-guard.ts';
import { statefulDomains } from './guards/stateful-domains.ts';
import { tokenGuardDriver } from './guards/token-guard.ts';
import { deviceCookies } from './login/device-cookies.ts';
import {
  attemptLogin,
  type LoginChannel,
  type LoginDeps,
  type LoginInput,
  recordLoginSucceeded,
} from './login/login.ts';
import { type LoginMeter, metered } from './login/login-outcome.ts';
import { issueTokenWithPassword, type TokenLoginInput } from './login/token-login.ts';
import {
  checkResetLink,
  type ResetInput,
  requestPasswordReset,
  resetPassword,
} from './password-reset/password-reset.ts';
import type { PasswordHasher } from './passwords/passwords.ts';
import {
  forgetRememberToken,
  issueRememberToken,
  type RememberedDevice,
  restoreRememberedUser,
} from './remember-me/remember-me.ts';
import type { BrowserRequest, BrowserSessionDeps, GuardCookieFacts } from './sessions/browser.ts';
import { BrowserSession } from './sessions/browser-session.ts';
import { pruneExpiredSessions, sessionLifetimes } from './sessions/session-pruning.ts';
import { type FindSessionWithUser, type SessionLifetimes, validateSession } from './sessions/sessions.ts';
import { ACCOUNT_WINDOW_SECONDS, type LoginThrottle } from './throttle/login-throttle.ts';
import type { RateLimiter } from './throttle/rate-limiter.ts';
import {
  type AccessTokenSettings,
  accessTokenSettings,
  type FindTokenByHash,
  type FindTokenWithUser,
  listAccessTokens,
  pruneExpiredTokens,
  type RevokeFilter,
  resolveAccessToken,
  revokeAccessTokens,
} from './tokens/access-tokens.ts';
import {
  checkVerificationLink,
  markEmailVerified,
  type PresentedLink,
  queueVerificationMail,
  resendVerificationMail,
  verificationSettings,
} from './verification/email-verification.ts';

/**
 * The per-request lookups: what every authenticated request reads, each in one query. services.ts
 * hands them in wrapped by the auth cache (auth/cache/); nothing here knows whether they are.
 */
export interface Lookups {
  readonly findTokenWithUser: FindTokenWithUser;
  readonly findSessionWithUser: FindSessionWithUser;
  readonly findUser: FindUser;
}

export interface AuthServiceDeps {
  readonly config: Config;
  readonly authConfig: AuthConfig;
  readonly db: Kysely<Database>;
  readonly clock: Clock;
  readonly hasher: PasswordHasher;
  readonly limiter: RateLimiter;
  readonly mailing: Mailing;
  readonly lookups: Lookups;
  /** An imported token's bare secret, by hash (docs/guides/moving-from-laravel.md): rare, never cached. */
  readonly findTokenByHash: FindTokenByHash;
  /** Drivers for guards and providers the built-in ones do not cover. */
  readonly guardDrivers?: Readonly<Record<string, GuardDriver>>;
  readonly providerDrivers?: Readonly<Record<string, ProviderDriver>>;
  /** Where login attempts and bearer checks are counted (metrics/metrics.ts); nowhere by default. */
  readonly metrics?: {
    readonly enabled: boolean;
    readonly login: LoginMeter;
    readonly tokenAuthentication: (ok: boolean) => void;
  };
}

/**
 * The use cases of signing in, each with its dependencies bound once: the guards and providers of
 * the auth config, logins, API tokens, sessions and remember-me, password reset and e-mail
 * verification. Built by services.ts; the HTTP layer and the CLI only call them.
 */
export function createAuthService(deps: AuthServiceDeps) {
  const { config, db, clock, mailing, lookups } = deps;
  const tokens: AccessTokenSettings = accessTokenSettings(config);
  // One matcher for the three places that must agree on "stateful": the sanctum guard (reads the
  // session cookie), the CSRF plugin (demands the XSRF header) and CORS (grants credentials).
  const stateful = statefulDomains(config.statefulDomains);
  const canAccessPanel = panelAccessCheck(config.panelEmailDomains);
  const meter: LoginMeter = deps.metrics?.login ?? (() => {});
  const tokenDriver = tokenGuardDriver(
    resolveAccessToken.bind(null, {
      db,
      clock,
      findTokenWithUser: lookups.findTokenWithUser,
      findTokenByHash: deps.findTokenByHash,
    }),
    // Not called at all when metrics are off: the bearer check is the hottest path.
    deps.metrics?.enabled ? deps.metrics.tokenAuthentication : undefined,
  );
  const { guards, providers } = createGuards(
    deps.authConfig,
    {
      token: tokenDriver,
      session: sessionGuardDriver,
      sanctum: sanctumGuardDriver({
        statefulDomains: stateful,
        session: sessionGuardDriver,
        token: tokenDriver,
      }),
      ...deps.guardDrivers,
    },
    { database: databaseProviderDriver(lookups.findUser, { canAccessPanel }), ...deps.providerDrivers },
  );
  const lifetimes = sessionLifetimes(deps.authConfig, config.sessionAbsoluteLifetimeMinutes);

  /** The provider behind a guard: whom it lets in, and whose credentials its login accepts. */
  const providerOf = (guard: string): UserProvider => {
    const provider = providers.get(deps.authConfig.guards[guard]?.provider ?? '');
    if (provider === undefined) throw new Error(`No user provider for guard "${guard}"`);
    return provider;
  };
  const lifetimesOf = (guard: string): SessionLifetimes => {
    const found = lifetimes.get(guard);
    if (found === undefined) throw new Error(`"${guard}" is not a session guard`);
    return found;
  };

  const throttle: LoginThrottle = {
    limiter: deps.limiter,
    perClient: { max: config.loginMaxAttempts, windowSeconds: config.loginDecaySeconds },
    perAccount: { max: config.accountMaxFailures, windowSeconds: ACCOUNT_WINDOW_SECONDS },
  };
  const devices = deviceCookies(config.appKey);
  const login: LoginDeps = { db, hasher: deps.hasher, throttle, devices };
  const resets = {
    db,
    hasher: deps.hasher,
    mailing,
    expireMinutes: config.passwordResetExpireMinutes,
    throttle,
  };
  const verification = verificationSettings(config);
  const challenge: ChallengeDeps = {
    db,
    sealer: twoFactorSealer(config.appKey),
    mailing,
    issuer: config.appName,
    limiter: deps.limiter,
    limit: { max: 5, windowSeconds: 60 },
  };
  const browserSessions = {
    db,
    appKey: config.appKey,
    clock,
    validate: (guard: string, plainId: string, now: number) =>
      validateSession(
        { db, findSessionWithUser: lookups.findSessionWithUser },
        guard,
        plainId,
        lifetimesOf(guard),
        now,
      ),
    rememberMe: {
      restore: (guard: string, cookie: string | undefined, audit: AuditContext) =>
        restoreRememberedUser(db, guard, cookie, providerOf(guard), audit),
      issue: (guard: string, userId: number, now: number, device?: RememberedDevice) =>
        issueRememberToken(db, guard, userId, config.rememberLifetimeMinutes, now, device),
      forget: (cookie: string | undefined) => forgetRememberToken(db, cookie),
    },
  } satisfies BrowserSessionDeps;

  return {
    config: deps.authConfig,
    guards,
    providers,
    statefulDomains: stateful,
    canAccessPanel,
    providerOf,
    /** Each session guard's idle and absolute lifetimes. */
    sessionLifetimes: lifetimes,
    lifetimesOf,

    /**
     * A login through `channel` (the guard of the same name: web, admin, api). This and the two other
     * doors below (the challenge, the token login) count each attempt once (`metered`).
     */
    login: async (channel: LoginChannel, input: LoginInput, audit: AuditContext) =>
      metered(meter, channel, await attemptLogin(login, providerOf(channel), channel, input, audit)),

    /** The gatehouse_device cookie (docs/security.md): its new value after `userId` logged in. */
    deviceCookie: (current: string | undefined, userId: number) =>
      devices.issue(current, userId, clock.now()),

    /** The login counts and device cookies the account's own password checks share (docs/security.md). */
    loginThrottle: throttle,
    devices,

    /** Counts a login attempt refused before any check (the per-IP budget, docs/security.md). */
    countRefusedLogin: (guard: string) => meter(guard, 'throttled'),

    /** The audit row of a login completed after its second factor (login.ts). */
    recordLoginSucceeded: (
      channel: LoginChannel,
      userId: number,
      audit: AuditContext,
      details: Record<string, unknown> = {},
    ) => recordLoginSucceeded(db, channel, userId, audit, { ...details, two_factor: true }),

    /** Two-factor authentication (docs/guides/two-factor.md): enrolment, the login challenge, turning it off. */
    twoFactor: createTwoFactorService(challenge, meter),

    tokens: {
      settings: tokens,
      issueWithPassword: async (input: TokenLoginInput, audit: AuditContext) =>
        metered(
          meter,
          'api',
          await issueTokenWithPassword({ ...login, tokens, challenge }, providerOf('api'), input, audit),
        ),
      list: (userId: number) => listAccessTokens(db, tokens, userId),
      revoke: (userId: number, filter: RevokeFilter, audit: AuditContext) =>
        revokeAccessTokens(db, userId, filter, audit),
      prune: (now: number) => pruneExpiredTokens(db, tokens, now),
    },

    sessions: {
      validate: browserSessions.validate,
      /** One guard's browser session on one request: what the browser presented, the guard's cookies. */
      open: (guard: string, browser: BrowserRequest, cookies: GuardCookieFacts) =>
        new BrowserSession(browserSessions, guard, browser, cookies),
      prune: (now: number) => pruneExpiredSessions(db, lifetimes, now),
    },

    rememberMe: browserSessions.rememberMe,

    passwordReset: {
      request: (email: string, locale: string, audit: AuditContext) =>
        requestPasswordReset(resets, email, locale, audit),
      reset: (input: ResetInput, locale: string, audit: AuditContext) =>
        resetPassword(resets, input, locale, audit),
      /** Why a reset link would not work now, or null when it would (read-only: nothing is spent). */
      linkRefusal: async (email: string, token: string, now: number) => {
        const link = await checkResetLink(resets, email, token, now);
        return link.works ? null : link.reason;
      },
    },

    verification: {
      check: (user: Pick<User, 'id' | 'email'>, link: PresentedLink, now: number) =>
        checkVerificationLink(verification, user, link, now),
      markVerified: (userId: number, audit: AuditContext) => markEmailVerified(db, userId, audit),
      resend: (user: User, locale: string, now: number) =>
        resendVerificationMail(db, mailing, verification, user, locale, now),
      /** Queues the mail in the caller's transaction (registration: the mail exists exactly when the account does). */
      queue: (trx: Transaction<Database>, user: User) =>
        queueVerificationMail(trx, mailing, verification, user, clock.now()),
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
