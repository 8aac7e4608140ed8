import type { FastifyReply } from 'fastify';
import { type AuthConfig, type SessionGuardConfig, sessionGuards } from '../../auth/guards/guards.ts';
import type { Config } from '../../config.ts';

/** What one response sends of a session guard's cookies; undefined leaves a cookie alone. */
export interface CookiesOut {
  /** A new session id. */
  readonly id?: string;
  /** The CSRF token, for the script-readable XSRF cookie (only for guards that have one). */
  readonly xsrf?: string;
  /** A new remember-me cookie, or null to clear it. */
  readonly remember?: string | null;
}

/**
 * The cookies of one session guard in the browser. All are HttpOnly (but the XSRF mirror), SameSite=Lax
 * and Path=/. Under an https APP_URL they are Secure, and the session and remember-me cookies take the
 * `__Host-` prefix: no Domain, so no subdomain can set or read them.
 *
 * With a `domain` (SESSION_DOMAIN, web guard only: forward auth, docs/integrations/forward-auth.md) the cookies carry
 * `Domain=<domain>` so the apps on sibling subdomains send them to their proxy. `__Host-` forbids a
 * Domain, so they take `__Secure-` instead: still refused by browsers unless Secure and set over
 * https. CSRF stays sound: the token is an HMAC of the session id (auth/csrf.ts), so a sibling that
 * tosses its own cookies cannot forge it, and /api still reads the cookie only for requests from
 * SANCTUM_STATEFUL_DOMAINS (auth/sanctum-guard.ts), not from every sibling.
 */
export class SessionCookies {
  readonly session: string;
  /** Null for a guard without remember-me (the panel's). */
  readonly remember: string | null;
  readonly xsrf: string | undefined;
  /** Where a login continues (intended-url.ts), signed; never in a session row. */
  readonly intended: string;

  constructor(
    config: SessionGuardConfig,
    private readonly secure: boolean,
    /** REMEMBER_LIFETIME: the remember-me cookie's Max-Age. */
    private readonly rememberMinutes: number,
    /** SESSION_DOMAIN for this guard; null: host-only cookies. */
    private readonly domain: string | null = null,
  ) {
    const prefix = secure ? (domain === null ? '__Host-' : '__Secure-') : '';
    this.session = `${prefix}${config.cookie}`;
    this.remember = config.rememberCookie === undefined ? null : `${prefix}${config.rememberCookie}`;
    this.xsrf = config.xsrfCookie;
    this.intended = `${this.session}_intended`;
  }

  /** Whether this guard has remember-me at all (the panel's has not, docs/security.md): its login form offers the box. */
  get offersRememberMe(): boolean {
    return this.remember !== null;
  }

  #base() {
    return {
      path: '/',
      httpOnly: true,
      sameSite: 'lax' as const,
      secure: this.secure,
      ...(this.domain === null ? {} : { domain: this.domain }),
    };
  }

  /** Sets the intended-URL cookie, or clears it (null). */
  writeIntended(reply: FastifyReply, value: string | null, maxAgeSeconds: number): void {
    if (value === null) reply.clearCookie(this.intended, this.#base());
    else reply.setCookie(this.intended, value, { ...this.#base(), maxAge: maxAgeSeconds });
  }

  write(reply: FastifyReply, out: CookiesOut): void {
    const base = this.#base();
    if (out.id !== undefined) reply.setCookie(this.session, out.id, base);
    // A new id means a new CSRF token: SPAs read it from this cookie (it is not a secret from
    // same-origin script, only from other sites, which cannot read our cookies).
    if (out.xsrf !== undefined && this.xsrf !== undefined) {
      reply.setCookie(this.xsrf, out.xsrf, { ...base, httpOnly: false });
    }
    if (this.remember === null) return;
    if (out.remember === null) reply.clearCookie(this.remember, base);
    else if (out.remember !== undefined) {
      reply.setCookie(this.remember, out.remember, { ...base, maxAge: this.rememberMinutes * 60 });
    }
  }
}

/** The cookies of every session guard, as configured. */
export function guardCookies(config: Config, auth: AuthConfig): ReadonlyMap<string, SessionCookies> {
  return new Map(
    [...sessionGuards(auth)].map(([name, guard]) => [
      name,
      // SESSION_DOMAIN widens only the web guard's cookies (forward auth); the panel's stay host-only.
      new SessionCookies(
        guard,
        config.secureCookies,
        config.rememberLifetimeMinutes,
        name === 'web' ? config.sessionDomain : null,
      ),
    ]),
  );
}
