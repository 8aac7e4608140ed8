import type { HTTPMethods } from 'fastify';
import fp from 'fastify-plugin';
import { MethodNotAllowedError } from '../errors.ts';

/** The methods an `Allow` header can list: every one a Gatehouse route is registered with. */
const ROUTE_METHODS: readonly HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * A method the path has no route for (TRACE, PROPFIND, DELETE /login …) is answered 405 with `Allow`
 * listing the path's methods (docs/security.md), not 404 — and decided in onRequest, before the CSRF
 * check (preValidation) and any guard (preHandler): the answer says only what the route table says,
 * whoever asks, so it reveals nothing a GET would not, and a method that can do nothing never reaches
 * code that reads a session. A path with no route at all stays 404.
 */
export const methodNotAllowedPlugin = fp(
  async (app) => {
    // A callback hook: it runs on every request, and all but unrouted ones leave at once.
    app.addHook('onRequest', (request, _reply, done) => {
      if (!request.is404) {
        done();
        return;
      }
      const path = request.url.split('?', 1)[0] ?? '/';
      const allowed = ROUTE_METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
      // CORS preflights answer OPTIONS on all of /api/* (plugins/cors.ts): a path only they match
      // names no resource, and stays 404.
      const resource = allowed.some((method) => method !== 'OPTIONS');
      done(resource ? new MethodNotAllowedError(allowed) : undefined);
    });
  },
  { name: 'gatehouse-method-not-allowed', dependencies: ['gatehouse-errors'] },
);
