import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { can } from '../../auth/abilities.ts';
import type { AuthRequest, Guard, Identity, UserProvider } from '../../auth/guards.ts';
import { AuthenticationError, MissingAbilityError } from '../errors.ts';

declare module 'fastify' {
  interface FastifyInstance {
    guards: ReadonlyMap<string, Guard>;
    userProviders: ReadonlyMap<string, UserProvider>;
    /** preHandler that admits the first identity any of `guards` finds, else 401 / login redirect. */
    requireAuth(guards: readonly string[], options?: { ability?: string }): preHandlerAsyncHookHandler;
  }
  interface FastifyRequest {
    identity: Identity | null;
    /** Filled by the session plugin: the session a session guard owns on this request. */
    loadSession?: (guard: string) => Promise<{ readonly userId: number | null } | null>;
  }
}

export function authRequest(request: FastifyRequest): AuthRequest {
  return new HttpAuthRequest(request);
}

/** The guards' view of a request. A class: its methods are shared, not two closures per request. */
class HttpAuthRequest implements AuthRequest {
  constructor(private readonly request: FastifyRequest) {}

  header(name: string): string | undefined {
    const value = this.request.headers[name];
    return Array.isArray(value) ? value[0] : value;
  }

  session(guard: string): Promise<{ readonly userId: number | null } | null> {
    return this.request.loadSession ? this.request.loadSession(guard) : Promise.resolve(null);
  }
}

/** Authenticates with the first guard that recognises the request; null when none does. */
export async function resolveIdentity(
  guards: ReadonlyMap<string, Guard>,
  names: readonly string[],
  request: FastifyRequest,
): Promise<Identity | null> {
  const adapter = authRequest(request);
  for (const name of names) {
    const guard = guards.get(name);
    if (!guard) throw new Error(`Unknown guard "${name}"`);
    const identity = await guard.authenticate(adapter);
    if (identity) return identity;
  }
  return null;
}

export const authPlugin = fp<{
  guards: ReadonlyMap<string, Guard>;
  providers: ReadonlyMap<string, UserProvider>;
}>(
  async (app, options) => {
    app.decorate('guards', options.guards);
    app.decorate('userProviders', options.providers);
    app.decorateRequest('identity', null);
    app.decorate('requireAuth', (names: readonly string[], opts: { ability?: string } = {}) => {
      return async (request: FastifyRequest, _reply: FastifyReply) => {
        const identity = await resolveIdentity(options.guards, names, request);
        if (identity === null) {
          // RFC 6750 §3.1: error="invalid_token" only when a Bearer credential was presented; other
          // schemes (Basic, …) are "no authentication information" and get the bare challenge.
          const bearerSent = /^\s*bearer\b/i.test(request.headers.authorization ?? '');
          throw new AuthenticationError(names[0]!, bearerSent);
        }
        // Session-authenticated requests hold every ability; tokens only what they were issued with.
        if (opts.ability && identity.token && !can(identity.token.abilities, opts.ability)) {
          throw new MissingAbilityError();
        }
        request.identity = identity;
      };
    });
  },
  { name: 'gatehouse-auth' },
);
