import type { FastifyRequest, preValidationHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { AuthService } from '../../auth/auth.service.ts';
import { guardOwningPath, isSanctumGuard, isSessionGuard } from '../../auth/guards/guards.ts';
import { crossSiteChecker } from '../cross-site.ts';
import { CsrfError } from '../errors.ts';
import { hooksOf } from '../route-hooks.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * CSRF check for every state-changing browser request: the form's hidden `_token`, or the
 * X-CSRF-TOKEN / X-XSRF-TOKEN header, must match the session of the guard that owns the path
 * (auth/auth.config.ts: `pathPrefix`).
 *
 * A path a sanctum guard owns (/api/*): a request from a stateful front end (SANCTUM_STATEFUL_DOMAINS,
 * the same test the guard uses before it reads the session cookie) is checked against that guard's
 * session, whatever else it carries — like Sanctum, which runs VerifyCsrfToken for every frontend
 * request. Any other API request is exempt: the guard never reads its cookies, and a bearer token is
 * no ambient credential.
 *
 * Every request the token is asked of must also not come from another site (cross-site.ts): a
 * foreign Origin or `Sec-Fetch-Site: cross-site` is 419 even with a valid token (docs/security.md).
 */
export const csrfPlugin = fp(
  async (app) => {
    const { auth } = app.services;
    const crossSite = crossSiteChecker(app.services);
    // Attached to the routes that take a state-changing method only: a GET never runs it.
    const check: preValidationHookHandler = (request, _reply, done) => {
      if (SAFE_METHODS.has(request.method)) {
        done();
        return;
      }
      const guard = csrfGuard(request, auth);
      if (guard === null) {
        done();
        return;
      }
      if (crossSite(request)) {
        done(new CsrfError());
        return;
      }
      const body = request.body as Record<string, unknown> | undefined;
      const presented =
        (body && typeof body === 'object' ? body['_token'] : undefined) ??
        request.headers['x-csrf-token'] ??
        request.headers['x-xsrf-token'];
      const matches = request.sessionOf(guard).checkCsrf(presented);
      if (typeof matches === 'boolean') {
        done(matches ? undefined : new CsrfError());
        return;
      }
      matches.then((ok) => done(ok ? undefined : new CsrfError()), done);
    };
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      if (methods.every((method) => SAFE_METHODS.has(method))) return;
      route.preValidation = [...hooksOf(route.preValidation), check];
    });
  },
  { name: 'gatehouse-csrf', dependencies: ['gatehouse-session'] },
);

/** The session guard whose token a request must carry; null when it needs none. */
function csrfGuard(request: FastifyRequest, auth: AuthService): string | null {
  // The matched route, not the raw URL: a percent-encoded path reaches the same handler.
  const owner = guardOwningPath(auth.config, request.routeOptions.url ?? request.url);
  const config = owner === null ? undefined : auth.config.guards[owner];
  if (isSanctumGuard(config)) {
    const { origin, referer } = request.headers;
    return auth.statefulDomains.fromFrontend(origin, referer) ? config.session : null;
  }
  return isSessionGuard(config) ? owner : null;
}
