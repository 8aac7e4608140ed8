import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import Fastify, {
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyReply,
  LogController,
} from 'fastify';
import { clientErrorHandler } from './http/client-errors.ts';
import { loggerOptions } from './http/logging.ts';
import { authPlugin } from './http/plugins/auth.ts';
import { authBudgetPlugin } from './http/plugins/auth-budget.ts';
import { corsPlugin } from './http/plugins/cors.ts';
import { csrfPlugin } from './http/plugins/csrf.ts';
import { errorsPlugin } from './http/plugins/errors.ts';
import { i18nPlugin } from './http/plugins/i18n.ts';
import { jsonBodyPlugin } from './http/plugins/json-body.ts';
import { metricsPlugin } from './http/plugins/metrics.ts';
import { requestLogPlugin } from './http/plugins/request-log.ts';
import { securityHeadersPlugin } from './http/plugins/security-headers.ts';
import { sessionPlugin } from './http/plugins/session.ts';
import { viewContextPlugin } from './http/plugins/view-context.ts';
import { requestDeadlines } from './http/request-deadlines.ts';
import { routes } from './http/routes/index.ts';
import { fastifyTrustProxy } from './http/trust-proxy.ts';
import type { Services } from './services.ts';

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}

export interface BuildOptions {
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
    trustProxy: fastifyTrustProxy(config.trustProxy),
    bodyLimit: config.bodyLimitBytes,
    ...requestDeadlines(config.requestTimeoutSeconds),
    clientErrorHandler,
    // Keys like __proto__ or constructor.prototype in a JSON body are refused (400), not merged.
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    return503OnClosing: true,
    routerOptions: { maxParamLength: 200 },
    // Router errors (malformed percent-encoding, an over-long path parameter) never reach the error
    // handler, and Fastify's own answer echoes the path (which may hold a reset token). Answer them in
    // docs/reference/errors.md's shape instead: a parameter that long cannot name anything that exists.
    frameworkErrors: (error, _request, reply) => {
      const t = services.i18n.translator(services.i18n.defaultLocale);
      const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
      const body = { message: t(tooLong ? 'http.not_found' : 'http.bad_request') };
      return (reply as FastifyReply).code(tooLong ? 404 : 400).send(body);
    },
  });

  app.decorate('services', services);
  await app.register(cookie);
  await app.register(formbody, { bodyLimit: config.bodyLimitBytes });
  await app.register(jsonBodyPlugin);
  await app.register(i18nPlugin);
  await app.register(errorsPlugin);
  await app.register(securityHeadersPlugin);
  await app.register(authPlugin);
  await app.register(authBudgetPlugin);
  await app.register(sessionPlugin);
  await app.register(viewContextPlugin);
  await app.register(csrfPlugin);
  await app.register(corsPlugin);
  await app.register(requestLogPlugin);
  await app.register(metricsPlugin);
  await app.register(routes);
  for (const plugin of options.plugins ?? []) await app.register(plugin);

  app.addHook('onClose', async () => services.close());
  await app.ready();
  return app;
}
