import { createHmac } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { safeEqual } from '../../lib/crypto.ts';
import type { SessionCookies } from './session-cookies.ts';

/** A longer URL is not remembered (a login then goes to the fallback page). */
export const INTENDED_MAX = 2048;

/**
 * Where a login (or a password confirmation) continues: the page a guest was bounced from, or an
 * allowed `/login?redirect=` target. Kept in the browser, in a cookie signed with APP_KEY, not in a
 * session row (docs/security.md "Guests cost nothing"): before this, every cookie-less GET of a protected
 * page stored a guest session holding the URL. Bounded to INTENDED_MAX characters, so the cookie stays
 * under the browsers' 4 KB. The signature (over the guard and the URL) means only URLs this server
 * chose to remember come back; each use still checks them (login-completion.ts: local paths, or
 * FORWARD_AUTH_DOMAINS as configured now), so a replayed cookie can lead nowhere new.
 *
 * A URL remembered while a user was signed in (the password confirmation's way back) names that user,
 * under the signature, and only that user's login continues there: a new login never inherits the
 * intended URL of another user (docs/security.md "A new login starts clean"). A guest's URL names
 * nobody and belongs to whoever signs in next.
 */
export class IntendedUrl {
  /** What this request set or cleared (later reads on the same request see it); undefined: the cookie. */
  #changed: string | null | undefined = undefined;

  constructor(
    private readonly request: FastifyRequest,
    private readonly appKey: Buffer,
    private readonly guard: string,
    private readonly cookies: SessionCookies,
    /** Kept as long as the guard's idle session lifetime. */
    private readonly maxAgeSeconds: number,
  ) {}

  /** The remembered URL for `userId` (null: a guest's), or null (none, another user's, or not signed by us). */
  get(userId: number | null = null): string | null {
    if (this.#changed !== undefined) return this.#changed;
    const raw = this.request.cookies[this.cookies.intended];
    if (typeof raw !== 'string' || raw.length > 4096) return null;
    const [encoded, owner, signature, ...rest] = raw.split('.');
    if (signature === undefined || rest.length > 0) return null;
    const url = Buffer.from(encoded!, 'base64url').toString('utf8');
    if (!safeEqual(signature, this.#signature(url, owner!))) return null;
    return owner === '' || owner === String(userId) ? url : null;
  }

  /**
   * Remembers `url` when it is short enough (a longer one replaces nothing and is not kept), for the
   * signed-in user `owner`, or for whoever logs in next (null).
   */
  remember(reply: FastifyReply, url: string, owner: number | null = null): void {
    if (url.length > INTENDED_MAX) return;
    this.#changed = url;
    const named = owner === null ? '' : String(owner);
    const value = `${Buffer.from(url, 'utf8').toString('base64url')}.${named}.${this.#signature(url, named)}`;
    this.cookies.writeIntended(reply, value, this.maxAgeSeconds);
  }

  /** The remembered URL for `userId`, forgotten as it is read (a login uses it once). */
  take(reply: FastifyReply, userId: number): string | null {
    const url = this.get(userId);
    if (url !== null || this.request.cookies[this.cookies.intended] !== undefined) {
      this.cookies.writeIntended(reply, null, 0);
    }
    this.#changed = null;
    return url;
  }

  #signature(url: string, owner: string): string {
    return createHmac('sha256', this.appKey)
      .update(`intended:${this.guard}:${owner}:${url}`)
      .digest('base64url');
  }
}
