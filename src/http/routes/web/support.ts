import type { FastifyRequest } from 'fastify';
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
