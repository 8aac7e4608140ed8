import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import {
  type AuthRequest,
  ClientTokenError,
  type Guard,
  type Identity,
  isSessionGuard,
} from '../../auth/guards/guards.ts';
import { can } from '../../auth/tokens/abilities.ts';
import { bearerChallenge, unauthenticatedChallenge } from '../bearer-challenge.ts';
import { AuthenticationError, ForbiddenError, MissingAbilityError } from '../errors.ts';

export interface RequireAuthOptions {
  /** A bearer token must hold this ability (sessions hold every ability). */
  readonly ability?: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The preHandler of every protected route, in every area: admits the first identity any of
     * `guards` (auth/auth.config.ts) finds, else 401 / the guard's login page, or 403 for a session
     * guard's refused user (see SessionGuardConfig.refusedMessage).
     */
    requireAuth(guards: readonly string[], options?: RequireAuthOptions): preHandlerAsyncHookHandler;
  }
  interface FastifyRequest {
    identity: Identity | null;
  }
}

/** The guards' view of a request. A class: its methods are shared, not two closures per request. */
class HttpAuthRequest implements AuthRequest {
  constructor(
    private readonly request: FastifyRequest,
    /** Read the session without restoring a remembered login or touching flash data (BrowserSession.peek). */
    private readonly peek = false,
  ) {}

  header(name: string): string | undefined {
    const value = this.request.headers[name];
    return Array.isArray(value) ? value[0] : value;
  }

  async session(guard: string) {
    if (this.peek) return this.request.sessionOf(guard).peek();
    const session = await this.request.sessionOf(guard).load();
    return { userId: session.userId, user: session.user };
  }
}

/**
 * Authenticates with the first of `names` that recognises the request; null when none does. `peek`:
 * sessions are only read, never restored from remember-me or otherwise written (forward auth).
 */
export async function resolveIdentity(
  request: FastifyRequest,
  names: readonly string[],
  options: { readonly peek?: boolean } = {},
): Promise<Identity | null> {
  const { guards } = request.server.services.auth;
  const adapter = new HttpAuthRequest(request, options.peek);
  for (const name of names) {
    const guard: Guard | undefined = guards.get(name);
    if (!guard) throw new Error(`Unknown guard "${name}"`);
    const identity = await guard.authenticate(adapter);
    if (identity) return identity;
  }
  return null;
}

/** preHandler of guest-only pages (the login forms, registration): a signed-in user goes on to `target`. */
export function redirectIfAuthenticated(guard: string, target: string) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if ((await resolveIdentity(request, [guard])) !== null) return reply.redirect(target);
  };
}

export const authPlugin = fp(
  async (app) => {
    const { auth } = app.services;
    app.decorateRequest('identity', null);
    app.decorate('requireAuth', (names: readonly string[], options: RequireAuthOptions = {}) => {
      for (const name of names) if (!auth.guards.has(name)) throw new Error(`Unknown guard "${name}"`);
      const refusing = names.filter((name) => isSessionGuard(auth.config.guards[name]));
      return async (request: FastifyRequest, _reply: FastifyReply) => {
        const identity = await resolveIdentity(request, names).catch((error: unknown) => {
          if (!(error instanceof ClientTokenError)) throw error;
          // A client's own token: its abilities are checked as any token's, then every route of
          // ours acts for a user, which it has not (docs/guides/oidc-provider.md "Client credentials").
          if (options.ability && !can(error.abilities, options.ability)) {
            throw new MissingAbilityError(bearerChallenge(app.services.config.appName, 'insufficient_scope'));
          }
          throw new ForbiddenError('auth.client_token');
        });
        if (identity === null) {
          await refuseWithdrawnSessions(request, refusing);
          throw new AuthenticationError(names[0]!, unauthenticatedChallenge(request));
        }
        // Session-authenticated requests hold every ability; tokens only what they were issued with.
        const abilities = identity.token?.abilities ?? identity.oauth?.abilities;
        if (options.ability && abilities && !can(abilities, options.ability)) {
          throw new MissingAbilityError(bearerChallenge(app.services.config.appName, 'insufficient_scope'));
        }
        request.identity = identity;
      };
    });
  },
  { name: 'gatehouse-auth' },
);

/**
 * A live session whose user its guard's provider now refuses (panel access withdrawn, account
 * disabled) is told so rather than sent to log in again, where guards ask for it (refusedMessage):
 * the session is ended and the request gets 403. Checked on every request, so losing access takes
 * effect on the very next one.
 */
async function refuseWithdrawnSessions(request: FastifyRequest, guards: readonly string[]): Promise<void> {
  for (const guard of guards) {
    const config = request.server.services.auth.config.guards[guard];
    if (!isSessionGuard(config) || config.refusedMessage === undefined) continue;
    const session = await request.sessionOf(guard).load();
    if (session.userId === null) continue;
    await session.logout();
    throw new ForbiddenError(config.refusedMessage);
  }
}
