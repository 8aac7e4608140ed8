import fp from 'fastify-plugin';

/**
 * Headers for every response. Pages get a strict CSP (no inline script or style, no framing) and
 * are never cached once they may show a user's data.
 */
export const securityHeadersPlugin = fp(
  async (app) => {
    app.addHook('onSend', async (request, reply, payload) => {
      reply.header('x-content-type-options', 'nosniff');
      if (!reply.hasHeader('referrer-policy'))
        reply.header('referrer-policy', 'strict-origin-when-cross-origin');
      const type = String(reply.getHeader('content-type') ?? '');
      if (type.startsWith('text/html')) {
        reply.header(
          'content-security-policy',
          "default-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
        );
        reply.header('x-frame-options', 'DENY');
      }
      if (!reply.hasHeader('cache-control') && !request.url.startsWith('/assets/')) {
        reply.header('cache-control', 'no-store');
      }
      return payload;
    });
  },
  { name: 'gatehouse-security-headers' },
);
