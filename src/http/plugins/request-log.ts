import fp from 'fastify-plugin';

/**
 * One log line per request (method, redacted URL, status, time); never headers or bodies. Hooks that
 * observe every finished request (metrics) belong beside it.
 */
export const requestLogPlugin = fp(
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
