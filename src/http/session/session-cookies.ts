import type { FastifyReply } from 'fastify';
import { type AuthConfig, type SessionGuardConfig, sessionGuards } from '../../auth/guards/guards.ts';
import type { CookiesOut } from '../../auth/sessions/browser.ts';
import type { Config } from '../../config.ts';

/**
 * The cookies of one session guard in the browser. All are HttpOnly (but the XSRF mirror), SameSite=Lax
 * and Path=/. Under an https APP_URL they are Secure, and the session and remember-me cookies take the
 * `__Host-` prefix: no Domain, so no subdomain can set or read them.
 *
 * With a `domain` (SESSION_DOMAIN, web guard only: forward auth, docs/integrations/forward-auth.md) the
 * session cookie alone carries `Domain=<domain>`, so the apps on sibling subdomains send it to their
 * proxy; `__Host-` forbids a Domain, so it takes `__Secure-` instead (still refused by browsers unless
 * Secure and set over https). Nothing else is shared: remember-me, XSRF-TOKEN and the intended URL stay
 * host-only (docs/security.md). A remember-me cookie on every sibling would hand a 30-day login to any of
 * them that logs its requests, and a readable XSRF-TOKEN there would hand the CSRF token to their
 * scripts. CSRF stays sound for the shared session: the token is an HMAC of the session id
 * (auth/sessions/csrf.ts), so a sibling that tosses its own cookies cannot forge it, a sibling's Origin
 * is allowed only on POST /login and /logout (http/cross-site.ts), and /api reads the cookie only for
 * SANCTUM_STATEFUL_DOMAINS (auth/guards/sanctum-guard.ts).
 */
export class SessionCookies {
  readonly session: string;
  /** Null for a guard without remember-me (the panel's). */
  readonly remember: string | null;
  readonly xsrf: string | undefined;
  /** Where a login continues (intended-url.ts), signed; never in a session row. */
  readonly intended: string;
  /**
   * With SESSION_DOMAIN: the cookies that an earlier release set on the whole domain. Cleared there
   * whenever a new session id goes out (every login and logout), so siblings stop receiving them.
   */
  readonly #formerlyShared: readonly string[];

  constructor(
    config: SessionGuardConfig,
    private readonly secure: boolean,
    /** REMEMBER_LIFETIME: the remember-me cookie's Max-Age. */
    private readonly rememberMinutes: number,
    /** SESSION_DOMAIN for this guard; null: host-only cookies. */
    private readonly domain: string | null = null,
  ) {
    const shared = secure ? (domain === null ? '__Host-' : '__Secure-') : '';
    const hostOnly = secure ? '__Host-' : '';
    this.session = `${shared}${config.cookie}`;
    this.remember = config.rememberCookie === undefined ? null : `${hostOnly}${config.rememberCookie}`;
    this.xsrf = config.xsrfCookie;
    this.intended = `${hostOnly}${config.cookie}_intended`;
    this.#formerlyShared =
      domain === null
        ? []
        : [
            ...(config.rememberCookie === undefined ? [] : [`${shared}${config.rememberCookie}`]),
            ...(config.xsrfCookie === undefined ? [] : [config.xsrfCookie]),
            `${this.session}_intended`,
          ];
  }

  /** Whether this guard has remember-me at all (the panel's has not, docs/security.md): its login form offers the box. */
  get offersRememberMe(): boolean {
    return this.remember !== null;
  }

  /** `shared`: the session cookie, the only one SESSION_DOMAIN widens. */
  #base(shared = false) {
    return {
      path: '/',
      httpOnly: true,
      sameSite: 'lax' as const,
      secure: this.secure,
      ...(shared && this.domain !== null ? { domain: this.domain } : {}),
    };
  }

  /** Sets the intended-URL cookie, or clears it (null). */
  writeIntended(reply: FastifyReply, value: string | null, maxAgeSeconds: number): void {
    if (value === null) reply.clearCookie(this.intended, this.#base());
    else reply.setCookie(this.intended, value, { ...this.#base(), maxAge: maxAgeSeconds });
  }

  write(reply: FastifyReply, out: CookiesOut): void {
    const base = this.#base();
    if (out.id !== undefined) {
      reply.setCookie(this.session, out.id, this.#base(true));
      for (const name of this.#formerlyShared) reply.clearCookie(name, this.#base(true));
    }
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
