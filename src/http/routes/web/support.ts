import type { FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError } from '../../errors.ts';
import { expectsJson } from '../../negotiation.ts';
import { resolveIdentity } from '../../plugins/auth.ts';
import type { Account } from '../../views/layout.ts';

/**
 * The signed-in web account for the page header (null for a guest). Guarded pages already know the
 * identity; public pages ask the web guard, which may restore a session from a remember-me cookie.
 */
export async function currentAccount(request: FastifyRequest): Promise<Account | null> {
  const identity =
    request.identity?.guard === 'web' ? request.identity : await resolveIdentity(request, ['web']);
  if (identity === null) return null;
  return { name: identity.user.name, csrfToken: request.sessionOf('web').csrfToken() };
}

/**
 * preHandler after requireAuth(['web']): pages that need a verified address. Browsers go to the
 * verification notice; JSON clients get 403 with auth.unverified (Laravel's EnsureEmailIsVerified).
 */
export async function requireVerifiedEmail(request: FastifyRequest, reply: FastifyReply) {
  const user = request.identity?.user;
  if (user !== undefined && user.emailVerifiedAt !== null) return;
  if (expectsJson(request)) throw new ForbiddenError('auth.unverified');
  return reply.redirect('/email/verify');
}
