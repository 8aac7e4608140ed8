import type { FastifyReply, FastifyRequest } from 'fastify';
import type { User } from '../users/user.ts';
import { expectsJson } from './negotiation.ts';
import { safeLocalPath } from './request-context.ts';

export interface CompletedLogin {
  /** The session guard the user signs into. */
  readonly guard: 'web' | 'admin';
  readonly user: User;
  /** The remember-me box as ticked on the login form (ignored by the admin guard). */
  readonly remember: boolean;
  /** Where the browser goes when no intended URL was remembered. */
  readonly fallback: string;
  /**
   * What proved the user. A passkey is possession of a device-bound key plus (usually) the device's
   * own user verification, so it already satisfies two-factor (CONTRACT §12): a two-factor challenge
   * applies to `password` logins only, never to `passkey` ones.
   */
  readonly proof: 'password' | 'passkey';
}

/**
 * The one place a browser login ends, whatever proved the user (password form, and later a
 * two-factor challenge or a passkey): a fresh session id (fixation), then the intended URL or the
 * fallback. Every later step of a login (two-factor, device cookie, forward-auth redirect target)
 * hooks in here, so no door can skip it.
 */
export async function completeLogin(
  request: FastifyRequest,
  reply: FastifyReply,
  login: CompletedLogin,
): Promise<FastifyReply> {
  const session = await request.sessionOf(login.guard).load();
  const intended = session.pull('intended');
  await session.login(login.user.id, login.remember);
  if (expectsJson(request)) return reply.code(204).send();
  return reply.redirect(safeLocalPath(intended, login.fallback));
}
