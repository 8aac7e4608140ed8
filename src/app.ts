import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import Fastify, {
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyReply,
  LogController,
} from 'fastify';
import fp from 'fastify-plugin';
import { authConfig } from './auth/auth.config.ts';
import { type AuthConfig, createGuards, type GuardDriver, type ProviderDriver } from './auth/guards.ts';
import { panelAccessCheck } from './auth/panel-access.ts';
import { sanctumGuardDriver } from './auth/sanctum-guard.ts';
import { sessionGuardDriver } from './auth/session-guard.ts';
import { statefulDomains } from './auth/stateful-domains.ts';
import { tokenGuardDriver } from './auth/token-guard.ts';
import { lazyChildLoggerFactory, loggerOptions } from './http/logging.ts';
import { authPlugin } from './http/plugins/auth.ts';
import { corsPlugin } from './http/plugins/cors.ts';
import { csrfPlugin } from './http/plugins/csrf.ts';
import { errorsPlugin } from './http/plugins/errors.ts';
import { i18nPlugin } from './http/plugins/i18n.ts';
import { securityHeadersPlugin } from './http/plugins/security-headers.ts';
import { sessionPlugin } from './http/plugins/session.ts';
import { adminRoutes } from './http/routes/admin/index.ts';
import { postRoutes } from './http/routes/api/posts.ts';
import { tokenRoutes } from './http/routes/api/tokens.ts';
import { userRoutes } from './http/routes/api/user.ts';
import { assetRoutes } from './http/routes/assets.ts';
import { opsRoutes } from './http/routes/ops.ts';
import { csrfCookieRoutes } from './http/routes/web/csrf-cookie.ts';
import { dashboardRoutes } from './http/routes/web/dashboard.ts';
import {
  emailVerificationRoutes,
  verificationMailOnRegistration,
} from './http/routes/web/email-verification.ts';
import { homeRoutes } from './http/routes/web/home.ts';
import { loginRoutes } from './http/routes/web/login.ts';
import { passwordResetRoutes } from './http/routes/web/password-reset.ts';
import { profileRoutes } from './http/routes/web/profile.ts';
import { registerRoutes } from './http/routes/web/register.ts';
import { fastifyTrustProxy } from './http/trust-proxy.ts';
import type { Services } from './services.ts';
import { databaseProviderDriver } from './users/user-provider.ts';

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}

export interface BuildOptions {
  /** Replaces the guard/provider configuration (see auth/auth.config.ts). */
  authConfig?: AuthConfig;
  /** Extra guard and provider drivers, for guards the built-in drivers do not cover. */
  guardDrivers?: Record<string, GuardDriver>;
  providerDrivers?: Record<string, ProviderDriver>;
  /** A stream for JSON log lines (tests capture them); defaults to stdout. */
  logStream?: NodeJS.WritableStream;
  /** Extra plugins or routes (e.g. ones protected by an added guard), registered last, before ready. */
  plugins?: readonly FastifyPluginAsync[];
}

/** Builds the whole HTTP application over ready services. Never listens: server.ts and tests decide. */
export async function buildApp(services: Services, options: BuildOptions = {}): Promise<FastifyInstance> {
  const { config } = services;
  const app = Fastify({
    logger: {
      ...loggerOptions(config.logLevel),
      ...(options.logStream ? { stream: options.logStream } : {}),
    },
    // Fastify's two lines per request are replaced by one (requestLogPlugin) with a redacted URL.
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: lazyChildLoggerFactory,
    trustProxy: fastifyTrustProxy(config.trustProxy),
    bodyLimit: config.bodyLimitBytes,
    // Keys like __proto__ or constructor.prototype in a JSON body are refused (400), not merged.
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    return503OnClosing: true,
    routerOptions: { maxParamLength: 200 },
    // Router errors (malformed percent-encoding, an over-long path parameter) never reach the error
    // handler, and Fastify's own answer echoes the path (which may hold a reset token). Answer them in
    // CONTRACT §2's shape instead: a parameter that long cannot name anything that exists.
    frameworkErrors: (error, _request, reply) => {
      const t = services.i18n.translator(services.i18n.defaultLocale);
      const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
      const body = { message: t(tooLong ? 'http.not_found' : 'http.bad_request') };
      return (reply as FastifyReply).code(tooLong ? 404 : 400).send(body);
    },
  });

  app.decorate('services', services);
  // Token, user and session rows are kept between requests while the database reports no change.
  // Each request first notes that it began, so its first kept lookup checks for commits made
  // elsewhere: it never sees older data than what was committed before it arrived (db/fast-path/changes.ts).
  const { changes } = services.database;
  app.addHook('onRequest', (_request, _reply, done) => {
    changes.observe();
    done();
  });
  const auth = options.authConfig ?? authConfig(config);
  // One matcher for the three places that must agree on "stateful": the sanctum guard (reads the
  // session cookie), the CSRF plugin (demands the XSRF header) and CORS (grants credentials).
  const stateful = statefulDomains(config.statefulDomains);
  const tokenDriver = tokenGuardDriver(services.database, services.tokens, services.clock);
  const { guards, providers } = createGuards(
    auth,
    {
      token: tokenDriver,
      session: sessionGuardDriver,
      sanctum: sanctumGuardDriver({
        statefulDomains: stateful,
        session: sessionGuardDriver,
        token: tokenDriver,
      }),
      ...options.guardDrivers,
    },
    {
      database: databaseProviderDriver(services.database, {
        canAccessPanel: panelAccessCheck(config.panelEmailDomains),
      }),
      ...options.providerDrivers,
    },
  );

  await app.register(cookie);
  await app.register(formbody, { bodyLimit: config.bodyLimitBytes });
  await app.register(i18nPlugin);
  await app.register(errorsPlugin);
  await app.register(securityHeadersPlugin);
  await app.register(authPlugin, { guards, providers });
  await app.register(sessionPlugin, { auth, providers });
  await app.register(csrfPlugin, { statefulDomains: stateful });
  await app.register(corsPlugin, { statefulDomains: stateful });
  await app.register(requestLogPlugin);

  await app.register(opsRoutes);
  await app.register(assetRoutes);
  await app.register(tokenRoutes);
  await app.register(userRoutes);
  await app.register(postRoutes);
  await app.register(loginRoutes);
  await app.register(csrfCookieRoutes);
  await app.register(dashboardRoutes);
  await app.register(homeRoutes);
  await app.register(registerRoutes, { afterCreate: verificationMailOnRegistration(services) });
  await app.register(passwordResetRoutes);
  await app.register(emailVerificationRoutes);
  await app.register(profileRoutes);
  await app.register(adminRoutes);

  for (const plugin of options.plugins ?? []) await app.register(plugin);

  app.addHook('onClose', async () => services.close());
  await app.ready();
  return app;
}

/** One log line per request (method, redacted URL, status, time); never headers or bodies. */
const requestLogPlugin = fp(
  async (app) => {
    // Below info the line would never be written: then no per-request hook at all (LOG_LEVEL is fixed
    // at start).
    if (!['trace', 'debug', 'info'].includes(app.log.level)) return;
    app.addHook('onResponse', async (request, reply) => {
      request.log.info({ req: request, res: reply, ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request');
    });
  },
  { name: 'gatehouse-request-log' },
);
