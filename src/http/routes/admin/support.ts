import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AuthenticationError, ForbiddenError, NotFoundError } from '../../errors.ts';
import { expectsJson } from '../../negotiation.ts';
import { type Flash, isFlash } from '../../views/admin/components.ts';

/** The provider behind the admin guard (auth.config.ts): it applies canAccessPanel on every request. */
export const ADMIN_PROVIDER = 'admins';

/**
 * preHandler of every panel page and action. It tells two cases apart that the admin guard alone
 * would merge:
 * - no admin session (never logged in, logged out, expired) → AuthenticationError → 302 /admin/login,
 *   remembering the page for after login;
 * - a live admin session whose user the admins provider now refuses (flag withdrawn, account
 *   disabled, domain no longer allowed) → that session is ended and the request gets 403.
 * Access is thus re-checked on every request: losing it takes effect on the very next one.
 */
export function requireAdmin(app: FastifyInstance) {
  const provider = app.userProviders.get(ADMIN_PROVIDER);
  if (!provider) throw new Error(`Auth provider "${ADMIN_PROVIDER}" is not configured`);
  return async (request: FastifyRequest) => {
    const session = await request.sessionOf('admin').load();
    if (session.userId === null) throw new AuthenticationError('admin', false);
    const user = await provider.retrieveById(session.userId);
    if (user === null) {
      await session.logout();
      throw new ForbiddenError('admin.access_withdrawn');
    }
    request.identity = { guard: 'admin', user };
  };
}

export function takeFlash(request: FastifyRequest): Flash | null {
  const flash = request.sessionOf('admin').flashed('admin');
  return isFlash(flash) ? flash : null;
}

/**
 * Ends a panel action (POST → redirect → GET): browsers go back to `location` with a status message;
 * JSON clients get 200 {"message"} on success, or `errorStatus` with the message when refused.
 */
export function finishAction(
  request: FastifyRequest,
  reply: FastifyReply,
  location: string,
  flash: Flash,
  errorStatus = 403,
): FastifyReply {
  if (expectsJson(request)) {
    return reply.code(flash.kind === 'ok' ? 200 : errorStatus).send({ message: flash.text });
  }
  request.sessionOf('admin').flash('admin', flash);
  return reply.redirect(location);
}

/** A numeric id from the path; anything else is a 404 (never a 500 or a query with NaN). */
export function idParam(value: unknown): number {
  if (typeof value !== 'string' || !/^[1-9]\d{0,9}$/.test(value)) throw new NotFoundError();
  const id = Number(value);
  if (id > 2_147_483_647) throw new NotFoundError();
  return id;
}

export function queryString(request: FastifyRequest, name: string): string {
  const value = (request.query as Record<string, unknown> | undefined)?.[name];
  // Control characters cannot be in any stored name or address (validation refuses them), and a NUL
  // would make PostgreSQL reject the whole query (a 500): they are dropped from search input.
  if (typeof value !== 'string') return '';
  const printable = value.replace(/\p{Cc}/gu, '');
  return printable.trim().slice(0, 255);
}
