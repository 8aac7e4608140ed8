import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { StatefulDomains } from '../../auth/stateful-domains.ts';
import { CsrfError } from '../errors.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * CSRF check for every state-changing browser request: the form's hidden `_token`, or the
 * X-CSRF-TOKEN / X-XSRF-TOKEN header, must match the session of the guard that owns the path.
 *
 * /api/*: a request from a stateful front end (SANCTUM_STATEFUL_DOMAINS, the same test the `sanctum`
 * guard uses before it reads the session cookie) is checked against the web session, whatever else
 * it carries — like Sanctum, which runs VerifyCsrfToken for every frontend request. Any other API
 * request is exempt: the guard never reads its cookies, and a bearer token is no ambient credential.
 */
export const csrfPlugin = fp<{ statefulDomains: StatefulDomains; apiSessionGuard?: string }>(
  async (app, options) => {
    const apiSessionGuard = options.apiSessionGuard ?? 'web';
    // A callback hook: it runs on every request, and most (GET) leave at once without a promise.
    app.addHook('preValidation', (request, _reply, done) => {
      if (SAFE_METHODS.has(request.method)) {
        done();
        return;
      }
      const guard = guardFor(request, options.statefulDomains, apiSessionGuard);
      if (guard === null) {
        done();
        return;
      }
      const body = request.body as Record<string, unknown> | undefined;
      const presented =
        (body && typeof body === 'object' ? body['_token'] : undefined) ??
        request.headers['x-csrf-token'] ??
        request.headers['x-xsrf-token'];
      done(request.sessionOf(guard).csrfMatches(presented) ? undefined : new CsrfError());
    });
  },
  { name: 'gatehouse-csrf', dependencies: ['gatehouse-session'] },
);

/** The session guard whose token a request must carry; null when it needs none. */
function guardFor(request: FastifyRequest, domains: StatefulDomains, apiSessionGuard: string): string | null {
  // The matched route, not the raw URL: a percent-encoded path reaches the same handler.
  const path = request.routeOptions.url ?? request.url;
  if (path === '/api' || path.startsWith('/api/')) {
    const { origin, referer } = request.headers;
    return domains.fromFrontend(origin, referer) ? apiSessionGuard : null;
  }
  return path === '/admin' || path.startsWith('/admin/') ? 'admin' : 'web';
}
