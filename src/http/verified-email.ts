import type { FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError } from './errors.ts';
import { expectsJson } from './negotiation.ts';

/**
 * preHandler after requireAuth: routes that need a verified address. Browsers go to the verification
 * notice; JSON clients get 403 with auth.unverified (Laravel's EnsureEmailIsVerified). The account page
 * needs it (docs/guides/account.md), and so does enrolling a second factor (docs/security.md "Second
 * factors need a verified address"): a second factor added before the mailbox was proven may be a
 * stranger's, planted on an address they registered unverified, and would outlive the owner's password
 * reset, which verifies the address.
 */
export async function requireVerifiedEmail(request: FastifyRequest, reply: FastifyReply) {
  const user = request.identity?.user;
  if (user !== undefined && user.emailVerifiedAt !== null) return;
  if (expectsJson(request)) throw new ForbiddenError('auth.unverified');
  return reply.redirect('/email/verify');
}
