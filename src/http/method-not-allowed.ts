import type { FastifyInstance, FastifyRequest, HTTPMethods } from 'fastify';
import { MethodNotAllowedError } from './errors.ts';

/** The methods an `Allow` header can list: every one a Gatehouse route is registered with. */
const ROUTE_METHODS: readonly HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * A method the path has no route for (TRACE, PROPFIND, DELETE /login …) is answered 405 with `Allow`
 * listing the path's methods (docs/security.md), not 404. Asked by the not-found handler, which is what
 * Fastify runs for a method it has no route for: no route's CSRF check or guard runs before it, so the
 * answer says only what the route table says, whoever asks — it reveals nothing a GET would not, and a
 * method that can do nothing never reaches code that reads a session. A path with no route stays 404.
 */
export function methodNotAllowed(
  app: FastifyInstance,
  request: FastifyRequest,
): MethodNotAllowedError | null {
  const path = request.url.split('?', 1)[0] ?? '/';
  const allowed = ROUTE_METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
  // CORS preflights answer OPTIONS on all of /api/* (plugins/cors.ts): a path only they match names
  // no resource, and stays 404.
  const resource = allowed.some((method) => method !== 'OPTIONS');
  return resource ? new MethodNotAllowedError(allowed) : null;
}
