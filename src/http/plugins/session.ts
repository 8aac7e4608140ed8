import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { sessionGuards } from '../../auth/guards/guards.ts';
import type { BrowserSession } from '../../auth/sessions/browser-session.ts';
import { IntendedUrl } from '../session/intended-url.ts';
import { guardCookies, type SessionCookies } from '../session/session-cookies.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** This request's session for a session guard (created on first use; call `load()` before reading it). */
    sessionOf(guard: string): BrowserSession;
    /** Remembers the intended URL (GET only) and redirects to the guard's login page. */
    redirectToLogin(reply: FastifyReply, guard: string): Promise<FastifyReply>;
    /** Where a login of this session guard continues (a signed cookie, never a session row). */
    intendedUrl(guard: string): IntendedUrl;
  }
}

const kSessions = Symbol('gatehouse.sessions');
const kIntended = Symbol('gatehouse.intended');
type WithSessions = FastifyRequest & {
  [kSessions]?: Map<string, OpenSession>;
  [kIntended]?: Map<string, IntendedUrl>;
};

/** A guard's session on this request, and the cookies its answer is written into. */
interface OpenSession {
  readonly session: BrowserSession;
  readonly cookies: SessionCookies;
}

async function commitAll(sessions: Iterable<OpenSession>, reply: FastifyReply): Promise<void> {
  for (const { session, cookies } of sessions) {
    if (session.pending) cookies.write(reply, await session.commit());
  }
}

function anyPending(sessions: Map<string, OpenSession>): boolean {
  for (const { session } of sessions.values()) if (session.pending) return true;
  return false;
}

/** Browser sessions of every `session` guard of the auth config: loaded on demand, written in onSend. */
export const sessionPlugin = fp(
  async (app) => {
    const { services } = app;
    const { config } = services;
    const guards = sessionGuards(services.auth.config);
    const cookies = guardCookies(config, services.auth.config);

    app.decorateRequest('sessionOf', function (this: WithSessions, guard: string) {
      let sessions = this[kSessions];
      if (sessions === undefined) {
        sessions = new Map();
        this[kSessions] = sessions;
      }
      let open = sessions.get(guard);
      if (open === undefined) {
        const guardCookies = cookies.get(guard);
        if (!guardCookies) throw new Error(`"${guard}" is not a session guard`);
        // The use case gets what the browser presented; what it answers is written in onSend.
        const session = services.auth.sessions.open(
          guard,
          {
            sessionId: this.cookies[guardCookies.session],
            rememberCookie: guardCookies.remember === null ? undefined : this.cookies[guardCookies.remember],
            ip: this.ip,
            userAgent: this.headers['user-agent'] ?? null,
          },
          {
            offersRememberMe: guardCookies.offersRememberMe,
            sharesCsrfToken: guardCookies.xsrf !== undefined,
          },
        );
        open = { session, cookies: guardCookies };
        sessions.set(guard, open);
      }
      return open.session;
    });

    app.decorateRequest('intendedUrl', function (this: WithSessions, guard: string) {
      let kept = this[kIntended];
      if (kept === undefined) {
        kept = new Map();
        this[kIntended] = kept;
      }
      let intended = kept.get(guard);
      if (intended === undefined) {
        const guardCookies = cookies.get(guard);
        if (!guardCookies) throw new Error(`"${guard}" is not a session guard`);
        const seconds = services.auth.lifetimesOf(guard).idleMinutes * 60;
        intended = new IntendedUrl(this, config.appKey, guard, guardCookies, seconds);
        kept.set(guard, intended);
      }
      return intended;
    });

    // A request method (shared on the prototype), not a closure made in a hook: a request that never
    // needs it pays nothing.
    app.decorateRequest(
      'redirectToLogin',
      async function (this: FastifyRequest, reply: FastifyReply, guard: string) {
        const target = guards.get(guard)?.loginPath ?? '/login';
        // Only our own GET URLs are remembered, so the post-login redirect can never leave the site;
        // in a cookie, so a guest bounced here costs no session row (docs/security.md).
        if (this.method === 'GET')
          this.intendedUrl(guards.has(guard) ? guard : 'web').remember(reply, this.url);
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
  { name: 'gatehouse-session', dependencies: ['@fastify/cookie'] },
);
