import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { OAUTH_ROUTES } from '../../oauth/provider-config.ts';

/** The routes a single-page app calls cross-origin (docs/guides/sessions-and-spas.md). Nothing else gets a CORS grant. */
const SPA_PATHS = new Set(['/sanctum/csrf-cookie', '/login', '/logout', '/register']);
const PREFLIGHT_PATHS = ['/api', '/api/*', ...SPA_PATHS];

const ALLOW_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';
const ALLOW_HEADERS = [
  'Accept',
  'Accept-Language',
  'Authorization',
  'Content-Type',
  'X-CSRF-TOKEN',
  'X-Requested-With',
  'X-XSRF-TOKEN',
].join(', ');
/** Lets the SPA tell a throttled user how long to wait. */
const EXPOSE_HEADERS = 'Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining';
/** Chromium caps preflight caching at two hours anyway. */
const MAX_AGE_SECONDS = '7200';

/**
 * CORS with credentials for the stateful front ends only (SANCTUM_STATEFUL_DOMAINS), on the routes an
 * SPA uses. A listed origin gets its own origin echoed plus Allow-Credentials; any other origin gets
 * no grant at all, so its script can neither read our responses nor send preflighted requests
 * (JSON bodies, X-XSRF-TOKEN, Authorization). `Vary: Origin` keeps caches from mixing the two.
 *
 * The grant is only half of the protection: the session cookie is ignored on /api unless the request
 * is stateful, and stateful state changes need the XSRF header (plugins/csrf.ts).
 */
export const corsPlugin = fp(
  async (app) => {
    const { statefulDomains } = app.services.auth;
    const grantedOrigin = (request: FastifyRequest): string | null => {
      const origin = request.headers.origin;
      // Echo only an origin in the exact form browsers serialise it (scheme://host[:port]).
      if (typeof origin !== 'string' || !statefulDomains.matches(origin)) return null;
      return new URL(origin).origin === origin ? origin : null;
    };

    // A callback hook: it runs on every response, and a promise per response costs.
    app.addHook('onSend', (request, reply, payload, done) => {
      if (isSpaPath(request)) {
        appendVary(reply, 'Origin');
        const origin = grantedOrigin(request);
        if (origin !== null) {
          reply.header('access-control-allow-origin', origin);
          reply.header('access-control-allow-credentials', 'true');
          reply.header('access-control-expose-headers', EXPOSE_HEADERS);
        }
      }
      done(null, payload);
    });

    // Preflights. An unlisted origin gets a bare 204: without Allow-Origin the browser stops there.
    const preflight = async (request: FastifyRequest, reply: FastifyReply) => {
      if (grantedOrigin(request) !== null && request.headers['access-control-request-method']) {
        reply.header('access-control-allow-methods', ALLOW_METHODS);
        reply.header('access-control-allow-headers', ALLOW_HEADERS);
        reply.header('access-control-max-age', MAX_AGE_SECONDS);
      }
      return reply.code(204).send();
    };
    for (const path of PREFLIGHT_PATHS) app.options(path, preflight);
  },
  { name: 'gatehouse-cors' },
);

function isSpaPath(request: FastifyRequest): boolean {
  const raw = request.url;
  const query = raw.indexOf('?');
  let path = query === -1 ? raw : raw.slice(0, query);
  // A percent-encoded path reaches the same handler: then ask for the matched route (an object built
  // on every access, so not for the plain paths every request has).
  if (path.includes('%')) path = request.routeOptions.url ?? path;
  return path === '/api' || path.startsWith('/api/') || SPA_PATHS.has(path);
}

function appendVary(reply: FastifyReply, field: string): void {
  const current = reply.getHeader('vary');
  if (current === undefined) {
    reply.header('vary', field);
    return;
  }
  const values = String(current ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  if (values.includes('*') || values.some((v) => v.toLowerCase() === field.toLowerCase())) return;
  reply.header('vary', [...values, field].join(', '));
}

/**
 * The OpenID provider's endpoints a browser app may call (docs/guides/oidc-provider.md "CORS"). The
 * library answers CORS itself — to any origin on discovery and the JWKS, and on the others to the
 * origins of the calling client's redirect URIs — so its headers are kept only when the origin is
 * one of a registered client's redirect-URI origins and the path is one of these; everywhere else
 * (introspection, device authorization, pages) every CORS header is removed and a preflight is a
 * bare 204, as on our other routes.
 */
const OAUTH_CORS_PATHS = new Set<string>([
  OAUTH_ROUTES.token,
  OAUTH_ROUTES.userinfo,
  OAUTH_ROUTES.jwks,
  OAUTH_ROUTES.revocation,
  '/.well-known/openid-configuration',
  '/.well-known/oauth-authorization-server',
]);

/** The provider middleware (Koa) that applies that rule; `registeredOrigins` reads the clients. */
export function oauthCors(registeredOrigins: () => Promise<ReadonlySet<string>>) {
  return async function cors(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
    const origin = ctx.get('origin');
    await next();
    if (origin === '') return;
    if (OAUTH_CORS_PATHS.has(ctx.path) && (await registeredOrigins()).has(origin)) return;
    for (const name of Object.keys(ctx.response.headers)) {
      if (name.toLowerCase().startsWith('access-control-')) ctx.remove(name);
    }
  };
}
