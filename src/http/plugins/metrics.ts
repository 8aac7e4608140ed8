import fp from 'fastify-plugin';

/** The `route` label of requests no route matched (404s): a fixed value, never the URL asked for. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Counts every answered request (gatehouse_http_requests_total and the duration histogram) under its
 * route's pattern — `/api/tokens/:id`, never `/api/tokens/42` — so the series stay few and carry no
 * ids, e-mails or tokens. Without METRICS_TOKEN no hook is installed at all. Per request this is one
 * counter and one histogram update (the bearer benchmark's cost, README "Metrics").
 */
export const metricsPlugin = fp(
  async (app) => {
    const { metrics } = app.services;
    if (!metrics.enabled) return;
    app.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
      metrics.request(route, request.method, reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
  },
  { name: 'gatehouse-metrics' },
);
