import fp from 'fastify-plugin';
import { formActionSources } from '../../forward-auth/form-action.ts';

/**
 * The pages' CSP. Forms may post to this site only, and their redirects may lead only here or to a
 * FORWARD_AUTH_DOMAINS host (where a login goes back to the app that sent the user: form-action.ts).
 */
function pageCsp(forwardAuthDomains: readonly string[]): string {
  const formAction = ["'self'", ...formActionSources(forwardAuthDomains)].join(' ');
  return `default-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action ${formAction}`;
}

/**
 * Headers for every response. Pages get a strict CSP (no inline script or style, no framing) and
 * are never cached once they may show a user's data.
 */
export const securityHeadersPlugin = fp(
  async (app) => {
    const { config } = app.services;
    const csp = pageCsp(config.forwardAuthDomains);
    // Under an https APP_URL the browser is told to use nothing else for a year (docs/security.md): a
    // later http:// link or a downgrading network cannot strip TLS off the login form. Not under
    // http, where the header would be ignored anyway (and a test instance must stay reachable).
    const hsts = new URL(config.appUrl).protocol === 'https:';
    // A callback hook, not an async one: it runs on every response, and a promise per response costs.
    app.addHook('onSend', (request, reply, payload, done) => {
      reply.header('x-content-type-options', 'nosniff');
      if (hsts) reply.header('strict-transport-security', 'max-age=31536000');
      if (!reply.hasHeader('referrer-policy')) {
        reply.header('referrer-policy', 'strict-origin-when-cross-origin');
      }
      const type = reply.getHeader('content-type');
      if (typeof type === 'string' && type.startsWith('text/html')) {
        reply.header('content-security-policy', csp);
        reply.header('x-frame-options', 'DENY');
      }
      if (!reply.hasHeader('cache-control') && !request.url.startsWith('/assets/')) {
        reply.header('cache-control', 'no-store');
      }
      done(null, payload);
    });
  },
  { name: 'gatehouse-security-headers' },
);
