import type { FastifyReply, FastifyRequest } from 'fastify';

/** More than any authorization or logout request needs (the library's own body limit is 56 KiB). */
const BODY_LIMIT = 56 * 1024;

/**
 * POST /oauth/authorize and POST /oauth/logout (OpenID Connect Core §3.1.2.1, RP-Initiated Logout §2:
 * both methods MUST work) answered with a 303 to the same request as a GET. The library serves POST
 * only if its session cookie is SameSite=None, which would send that cookie with every cross-site
 * request and is refused by browsers on plain http; the GET that follows is a top-level navigation,
 * which carries our SameSite=Lax cookies, so the request is handled exactly as if it had been a GET.
 * Runs in onRequest like the provider's own routes: the body is read here (no CSRF token is expected
 * — a relying party posts these from its own pages), and nothing else is done with it.
 */
export async function postAsGet(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const form = isForm(request.headers['content-type']) ? await readBody(request) : '';
  reply.hijack();
  const path = request.url.split('?', 1)[0]!;
  const query = form === null ? null : new URLSearchParams(form).toString();
  const res = reply.raw;
  if (query === null) {
    res.writeHead(413, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
    res.end('Request body too large.');
    return;
  }
  res.writeHead(303, { location: query === '' ? path : `${path}?${query}`, 'cache-control': 'no-store' });
  res.end();
}

function isForm(type: string | undefined): boolean {
  return (
    typeof type === 'string' &&
    type.split(';', 1)[0]!.trim().toLowerCase() === 'application/x-www-form-urlencoded'
  );
}

/** The body as text, or null when it is larger than BODY_LIMIT. */
async function readBody(request: FastifyRequest): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request.raw) {
    size += (chunk as Buffer).length;
    if (size > BODY_LIMIT) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
