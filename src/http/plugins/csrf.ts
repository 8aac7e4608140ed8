import fp from 'fastify-plugin';
import { CsrfError } from '../errors.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * CSRF check for every state-changing browser request: the form's hidden `_token`, or the
 * X-CSRF-TOKEN / X-XSRF-TOKEN header, must match the session of the guard that owns the path.
 * /api/* is exempt here: bearer requests carry no ambient credentials, and stateful SPA requests
 * are checked where they are recognised.
 */
export const csrfPlugin = fp(
  async (app) => {
    app.addHook('preValidation', async (request) => {
      if (SAFE_METHODS.has(request.method) || request.url.startsWith('/api/')) return;
      const guard = request.url === '/admin' || request.url.startsWith('/admin/') ? 'admin' : 'web';
      const body = request.body as Record<string, unknown> | undefined;
      const presented =
        (body && typeof body === 'object' ? body['_token'] : undefined) ??
        request.headers['x-csrf-token'] ??
        request.headers['x-xsrf-token'];
      if (!request.sessionOf(guard).csrfMatches(presented)) throw new CsrfError();
    });
  },
  { name: 'gatehouse-csrf', dependencies: ['gatehouse-session'] },
);
