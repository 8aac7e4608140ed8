import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { AuthConfig, UserProvider } from '../../auth/guards.ts';
import { keptSessions } from '../../auth/sessions.ts';
import { HttpSession, type SessionGuardSettings } from '../session/http-session.ts';

declare module 'fastify' {
  interface FastifyInstance {
    sessionGuards: ReadonlyMap<string, SessionGuardSettings>;
  }
  interface FastifyRequest {
    /** This request's session for a session guard (created on first use; call `load()` before reading it). */
    sessionOf(guard: string): HttpSession;
  }
}

const kSessions = Symbol('gatehouse.sessions');
type WithSessions = FastifyRequest & { [kSessions]?: Map<string, HttpSession> };

/** Every `session`-driver guard of the auth config, with its cookie names and lifetimes. */
export function sessionGuardSettings(auth: AuthConfig, absoluteMinutes: number, rememberMinutes: number) {
  const settings = new Map<string, SessionGuardSettings>();
  for (const [guard, config] of Object.entries(auth.guards)) {
    if (config.driver !== 'session') continue;
    settings.set(guard, {
      guard,
      cookie: String(config['cookie']),
      rememberCookie: String(config['rememberCookie']),
      loginPath: String(config['loginPath']),
      lifetimes: { idleMinutes: Number(config['idleMinutes']), absoluteMinutes },
      rememberMinutes,
      ...(config['xsrfCookie'] ? { xsrfCookie: String(config['xsrfCookie']) } : {}),
    });
  }
  return settings;
}

async function commitAll(sessions: Iterable<HttpSession>, reply: FastifyReply): Promise<void> {
  for (const session of sessions) if (session.pending) await session.commit(reply);
}

function anyPending(sessions: Map<string, HttpSession>): boolean {
  for (const session of sessions.values()) if (session.pending) return true;
  return false;
}

export const sessionPlugin = fp<{ auth: AuthConfig; providers: ReadonlyMap<string, UserProvider> }>(
  async (app, options) => {
    const { config } = app.services;
    const settings = sessionGuardSettings(
      options.auth,
      config.sessionAbsoluteLifetimeMinutes,
      config.rememberLifetimeMinutes,
    );
    app.decorate('sessionGuards', settings);
    const readSession = keptSessions(app.services.database);

    app.decorateRequest('sessionOf', function (this: WithSessions, guard: string) {
      let sessions = this[kSessions];
      if (sessions === undefined) {
        sessions = new Map();
        this[kSessions] = sessions;
      }
      let session = sessions.get(guard);
      if (session === undefined) {
        const guardSettings = settings.get(guard);
        if (!guardSettings) throw new Error(`"${guard}" is not a session guard`);
        const provider = options.providers.get(String(options.auth.guards[guard]?.provider));
        if (!provider) throw new Error(`No provider for session guard "${guard}"`);
        session = new HttpSession(this, app.services, provider, guardSettings, readSession);
        sessions.set(guard, session);
      }
      return session;
    });

    // Request methods (shared on the prototype), not closures made in a hook: an API request that never
    // touches a session pays nothing for them.
    app.decorateRequest('loadSession', async function (this: FastifyRequest, guard: string) {
      const session = await this.sessionOf(guard).load();
      return { userId: session.userId };
    });
    app.decorateRequest(
      'redirectToLogin',
      async function (this: FastifyRequest, reply: FastifyReply, guard: string) {
        const target = settings.get(guard)?.loginPath ?? '/login';
        const session = await this.sessionOf(settings.has(guard) ? guard : 'web').load();
        // Only our own GET URLs are remembered, so the post-login redirect can never leave the site.
        if (this.method === 'GET') session.put('intended', this.url);
        return reply.redirect(target);
      },
    );

    // A callback hook: most API responses touch no session and must not pay for a promise.
    app.addHook('onSend', (request, reply, payload, done) => {
      const sessions = (request as WithSessions)[kSessions];
      // Most responses touch no session, or read one without changing it: nothing to wait for.
      if (sessions === undefined || !anyPending(sessions)) {
        done(null, payload);
        return;
      }
      commitAll(sessions.values(), reply).then(
        () => done(null, payload),
        (error: Error) => done(error),
      );
    });
  },
  { name: 'gatehouse-session', dependencies: ['@fastify/cookie', 'gatehouse-auth'] },
);
