import type { FastifyReply } from 'fastify';
import type { SessionGuardConfig } from '../../auth/guards.ts';

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
 */
export class SessionCookies {
  readonly session: string;
  readonly remember: string;
  readonly xsrf: string | undefined;

  constructor(
    config: SessionGuardConfig,
    private readonly secure: boolean,
    /** REMEMBER_LIFETIME: the remember-me cookie's Max-Age. */
    private readonly rememberMinutes: number,
  ) {
    this.session = secure ? `__Host-${config.cookie}` : config.cookie;
    this.remember = secure ? `__Host-${config.rememberCookie}` : config.rememberCookie;
    this.xsrf = config.xsrfCookie;
  }

  write(reply: FastifyReply, out: CookiesOut): void {
    const base = { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: this.secure };
    if (out.id !== undefined) reply.setCookie(this.session, out.id, base);
    // A new id means a new CSRF token: SPAs read it from this cookie (it is not a secret from
    // same-origin script, only from other sites, which cannot read our cookies).
    if (out.xsrf !== undefined && this.xsrf !== undefined) {
      reply.setCookie(this.xsrf, out.xsrf, { ...base, httpOnly: false });
    }
    if (out.remember === null) reply.clearCookie(this.remember, base);
    else if (out.remember !== undefined) {
      reply.setCookie(this.remember, out.remember, { ...base, maxAge: this.rememberMinutes * 60 });
    }
  }
}
