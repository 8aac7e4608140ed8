import type { FastifyReply, FastifyRequest } from 'fastify';
import { endSession } from '../../auth/login/logout.ts';
import { REMEMBER_SELECTOR, rememberSelector } from '../../auth/remember-me/remember-me.ts';
import { csrfTokenMatches, sessionCsrfToken } from '../../auth/sessions/csrf.ts';
import {
  createGuestSession,
  createSession,
  destroySession,
  type Session,
  type SessionData,
  saveSessionData,
} from '../../auth/sessions/sessions.ts';
import { hmacSha256Hex } from '../../lib/crypto.ts';
import type { Services } from '../../services.ts';
import type { User } from '../../users/user.ts';
import type { SessionCookies } from './session-cookies.ts';
import { SessionId } from './session-id.ts';
import { SessionValues } from './session-values.ts';

/**
 * One guard's session on one request: loaded lazily (at most once), written back only when something
 * changed (onSend). Guests get a cookie id without a database row until they submit something to keep
 * (docs/security.md "Guests cost nothing"), so anonymous page views cost no writes; their CSRF token is an
 * HMAC of that id, checked without storage. Which cookie id the browser may use is decided in
 * session-id.ts; the values and their flash in session-values.ts.
 */
export class HttpSession {
  readonly #id: SessionId;
  #stored: Session | null = null;
  /** The signed-in user as the session's read brought it (undefined: not read with it; ask the provider). */
  #user: User | null | undefined = undefined;
  readonly #values = new SessionValues();
  #sendXsrfCookie = false;
  /** undefined: leave the remember cookie alone; null: clear it; string: set it. */
  #rememberOut: string | null | undefined = undefined;
  #loading: Promise<this> | null = null;

  constructor(
    private readonly request: FastifyRequest,
    private readonly services: Services,
    readonly guard: string,
    readonly cookies: SessionCookies,
  ) {
    this.#id = new SessionId(services.config.appKey, request.cookies[cookies.session]);
  }

  /** This browser's id, a fresh one if it has none we may use. */
  #usableId(): string {
    return this.#id.usable(this.#stored !== null);
  }

  get userId(): number | null {
    return this.#stored?.userId ?? null;
  }

  /** The user row read along with this session (undefined when it was not: after a login, say). */
  get user(): User | null | undefined {
    return this.#user;
  }

  /** The database row's key (sha256 of the cookie), for "end this session" actions. */
  get key(): string | null {
    return this.#stored?.key ?? null;
  }

  /**
   * The user this session is signed in as, read without side effects (no remembered login restored, no
   * flash consumed, no cookie sent), for checks made for another site (forward auth): a proxy does not
   * pass our cookies back to the browser, so a session or remember-me token issued there would be lost.
   */
  async peek(): Promise<{ userId: number | null; user?: User | null }> {
    if (this.#loading !== null) {
      const loaded = await this.#loading;
      return { userId: loaded.userId, user: loaded.user };
    }
    const presented = this.#id.value;
    if (presented === null) return { userId: null };
    const now = this.services.clock.now();
    const found = await this.services.auth.sessions.validate(this.guard, presented, now);
    return found === null ? { userId: null } : { userId: found.session.userId, user: found.user };
  }

  load(): Promise<this> {
    this.#loading ??= this.#load();
    return this.#loading;
  }

  async #load(): Promise<this> {
    const now = this.services.clock.now();
    const presented = this.#id.value;
    if (presented !== null) {
      const found = await this.services.auth.sessions.validate(this.guard, presented, now);
      this.#stored = found?.session ?? null;
      this.#user = found?.user;
      if (this.#stored) this.#values.open(this.#stored.data);
      // An id we did not issue and no row holds: never adopted, replaced.
      if (!this.#id.adoptable(this.#stored !== null)) this.#id.renew();
    }
    if (this.userId === null && this.#rememberCookie !== undefined) {
      // The session has ended but the browser was remembered: sign it in again (auth/remember-me.ts).
      const result = await this.services.auth.rememberMe.restore(this.guard, this.#rememberCookie, {
        ip: this.request.ip,
        now,
      });
      if (result.status === 'ok') {
        await this.#startAuthenticated(result.userId, now, result.cookie);
        this.#rememberOut = result.cookie;
      } else if (result.status === 'refused') {
        this.#rememberOut = null;
      }
    }
    return this;
  }

  /** The selector of this browser's remember-me cookie (the account's session list marks it current). */
  get rememberSelector(): string | null {
    return rememberSelector(this.#rememberCookie);
  }

  /** Whether this browser presented a remember-me cookie (a password change re-issues it, fresh). */
  get remembered(): boolean {
    return this.#rememberCookie !== undefined;
  }

  get #rememberCookie(): string | undefined {
    return this.cookies.remember === null ? undefined : this.request.cookies[this.cookies.remember];
  }

  /** The CSRF token of this session; creates the cookie id if the browser has none yet. */
  csrfToken(): string {
    const plainId = this.#usableId();
    // #stored, when set, was found or created under this id, and both change together.
    return sessionCsrfToken(this.services.config.appKey, this.guard, plainId, this.#stored);
  }

  /**
   * Stands for this browser's session in state kept apart from its row (passkey challenges): an HMAC of
   * the cookie id, naming the browser without storing the cookie; creates the id if there is none. The
   * id changes at login (fixation), and with it the binding: what was bound before is unreachable after.
   */
  binding(purpose: string): string {
    const plainId = this.#usableId();
    return hmacSha256Hex(this.services.config.appKey, `${purpose}:${this.guard}:${plainId}`);
  }

  /** Sends the XSRF cookie even for an old id (GET /sanctum/csrf-cookie: an SPA may have lost it). */
  shareCsrfToken(): void {
    this.csrfToken();
    this.#sendXsrfCookie = true;
  }

  csrfMatches(presented: unknown): boolean {
    return (
      this.#id.adoptable(this.#stored !== null) &&
      csrfTokenMatches(this.services.config.appKey, this.guard, this.#id.value!, presented)
    );
  }

  /**
   * csrfMatches, answered at once for an id we issued (or none); an untagged id counts only once its
   * row is found, so that case loads the session first.
   */
  checkCsrf(presented: unknown): boolean | Promise<boolean> {
    if (this.#needsRow) return this.load().then(() => this.csrfMatches(presented));
    return this.csrfMatches(presented);
  }

  /** Loads the session only if the presented id needs its row to count (an untagged, older id). */
  async settleId(): Promise<void> {
    if (this.#needsRow) await this.load();
  }

  get #needsRow(): boolean {
    return this.#id.value !== null && !this.#id.issued && this.#loading === null;
  }

  get(key: string): unknown {
    return this.#values.get(key);
  }

  put(key: string, value: unknown): void {
    this.#values.put(key, value);
  }

  pull(key: string): unknown {
    return this.#values.pull(key);
  }

  /** Shown on the next request only (status messages after a redirect). */
  flash(key: string, value: unknown): void {
    this.#values.flash(key, value);
  }

  flashed(key: string): unknown {
    return this.#values.flashed(key);
  }

  /**
   * Logs `userId` in under a new id, the old row destroyed (fixation: an id known before login is
   * worthless after it), optionally with a remember-me cookie.
   */
  async login(userId: number, remember: boolean): Promise<void> {
    await this.load();
    const now = this.services.clock.now();
    const { rememberMe } = this.services.auth;
    if (this.#rememberCookie !== undefined) {
      await rememberMe.forget(this.#rememberCookie);
      this.#rememberOut = null;
    }
    const device = { ip: this.request.ip, userAgent: this.request.headers['user-agent'] ?? null };
    // A guard without a remember-me cookie (the panel) ignores the box: nothing to issue it into.
    const wanted = remember && this.cookies.offersRememberMe;
    const cookie = wanted ? await rememberMe.issue(this.guard, userId, now, device) : undefined;
    await this.#startAuthenticated(userId, now, cookie);
    if (cookie !== undefined) this.#rememberOut = cookie;
  }

  /**
   * A new login starts clean (docs/security.md): no password confirmation, pending two-factor login or
   * other value of the session before it crosses into the new one. It keeps only the selector of
   * `rememberCookie` (issued at login, or the one that restored it): the account's session list tells
   * by it which sessions are remembered and which remembered browsers have no live session.
   */
  async #startAuthenticated(userId: number, now: number, rememberCookie?: string): Promise<void> {
    if (this.#stored) await destroySession(this.services.database.db, this.#stored.key);
    const selector = rememberSelector(rememberCookie);
    const data: SessionData = selector === null ? {} : { [REMEMBER_SELECTOR]: selector };
    await this.#createWithFreshId(userId, data, now);
    this.#user = undefined;
    this.#values.written(data);
  }

  /** A new row under a fresh id of ours (which no row can already hold); the cookie goes out in commit(). */
  async #createWithFreshId(userId: number | null, data: SessionData, now: number): Promise<void> {
    this.#id.renew();
    this.#stored = await createSession(this.services.database.db, this.#newSession(userId, data), now);
  }

  #newSession(userId: number | null, data: SessionData) {
    return {
      guard: this.guard,
      plainId: this.#id.value!,
      userId,
      data,
      ip: this.request.ip,
      userAgent: this.request.headers['user-agent'] ?? null,
    };
  }

  /** A login owing its second factor starts clean too: a signed-in user is signed out (a user switch). */
  async startOver(): Promise<void> {
    await this.load();
    if (this.userId !== null) await this.logout();
    else this.#values.reset();
  }

  /** Destroys the session server-side (the old cookie stops working) and forgets the remember token. */
  async logout(): Promise<void> {
    await this.load();
    await endSession(
      this.services.database.db,
      { guard: this.guard, key: this.key, userId: this.userId, rememberCookie: this.#rememberCookie },
      { ip: this.request.ip, now: this.services.clock.now() },
    );
    this.#letGo();
  }

  /**
   * The account behind this session was deleted, and its session and remember-me rows with it (in the
   * deletion's transaction): the browser lets go as at logout — a fresh guest id, the remember-me
   * cookie cleared — with nothing left to delete and no logout to record for a user who is gone.
   */
  async forget(): Promise<void> {
    await this.load();
    this.#letGo();
  }

  #letGo(): void {
    this.#rememberOut = null;
    this.#stored = null;
    this.#user = undefined;
    this.#values.clear();
    this.#id.renew();
  }

  /** Whether commit() has anything to write or send (most page views have not). */
  get pending(): boolean {
    return this.#values.dirty || this.#id.renewed || this.#sendXsrfCookie || this.#rememberOut !== undefined;
  }

  /** Writes changes and cookies; runs once per request in onSend. */
  async commit(reply: FastifyReply): Promise<void> {
    const { db } = this.services.database;
    const now = this.services.clock.now();
    const values = this.#values;
    if (values.dirty) {
      if (this.#stored) {
        await saveSessionData(db, this.#stored.key, values.data, now);
      } else if (!values.empty) {
        if (this.#id.value !== null && this.#id.issued) {
          this.#stored = await createGuestSession(db, this.#newSession(null, values.data), now);
        }
        // No id of ours yet, or ours is taken (see createGuestSession): a fresh id cannot be.
        if (this.#stored === null) await this.#createWithFreshId(null, values.data, now);
      }
      values.written();
    }
    const shareXsrf =
      (this.#id.renewed || this.#sendXsrfCookie) && this.#id.value !== null && this.cookies.xsrf;
    const xsrf = shareXsrf ? this.csrfToken() : undefined;
    this.cookies.write(reply, { id: this.#id.takeRenewed(), xsrf, remember: this.#rememberOut });
    this.#sendXsrfCookie = false;
    this.#rememberOut = undefined;
  }
}
