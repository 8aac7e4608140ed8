import type { FastifyRequest } from 'fastify';

/**
 * Laravel's expectsJson(): API paths always answer JSON; elsewhere an `Accept` naming JSON, or an
 * XMLHttpRequest, gets JSON instead of pages and redirects.
 */
export function expectsJson(request: FastifyRequest): boolean {
  if (request.url.startsWith('/api/') || request.url === '/api') return true;
  const accept = request.headers.accept;
  if (typeof accept === 'string' && /[/+]json\b/i.test(accept)) return true;
  return request.headers['x-requested-with'] === 'XMLHttpRequest';
}

export function isJsonContentType(request: FastifyRequest): boolean {
  const type = request.headers['content-type'];
  return typeof type === 'string' && /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i.test(type);
}

/**
 * Whether a request is a page visit (a browser navigating), not a script: it names HTML in Accept and
 * is not an XMLHttpRequest. A fetch() sends `*\/*` and is answered 401, which a script can handle.
 */
export function acceptsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  if (typeof accept !== 'string' || !/\b(text\/html|application\/xhtml\+xml)\b/i.test(accept)) return false;
  return request.headers['x-requested-with'] !== 'XMLHttpRequest';
}
