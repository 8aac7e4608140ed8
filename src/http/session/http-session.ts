import type { FastifyReply, FastifyRequest } from 'fastify';
import { csrfTokenFor, csrfTokenMatches } from '../../auth/csrf.ts';
import { endSession } from '../../auth/logout.ts';
import { REMEMBER_SELECTOR, rememberSelector } from '../../auth/remember-me.ts';
import {
  createGuestSession,
  createSession,
  destroySession,
  isIssuedSessionId,
  isSessionId,
  issueSessionId,
  type Session,
  type SessionData,
  saveSessionData,
} from '../../auth/sessions.ts';
import { hmacSha256Hex } from '../../lib/crypto.ts';
import type { Services } from '../../services.ts';
import type { SessionCookies } from './session-cookies.ts';

const FLASH = '_flash';

/**
 * CSRF tokens of kept sessions (services.ts keeps one frozen Session per key between requests): the
 * HMAC is computed once per session, not once per page. Sound because a stored session's key is always
 * the hash of this request's cookie id (see csrfToken()).
 */
const csrfTokens = new WeakMap<Session, string>();

/**
 * One guard's session on one request: loaded lazily (at most once), written back only when something
 * changed (onSend). Guests get a cookie id without a database row until they submit something to keep
 * (CONTRACT §16 "Guests cost nothing"), so anonymous page views cost no writes; their CSRF token is an
 * HMAC of that id, checked without storage.
 *
 * A presented id is used only if the server issued it (its APP_KEY tag, auth/sessions.ts) or a live
 * row of this guard holds it (sessions from before ids were tagged). Any other — made up by a client,
 * planted by an attacker — is never adopted: the browser gets a fresh id instead, so nobody can know a
 * guest's id (and CSRF token, and the pending login it may come to hold) before the browser does.
 */
export class HttpSession {
  #plainId: string | null = null;
  /**
   * #plainId carries our tag (issued by this server), so it may be used before any row exists. Worked
   * out on first need (an HMAC): a signed-in page finds its row and never asks.
   */
  #issuedTag: boolean | undefined = undefined;
  #stored: Session | null = null;
  #data: SessionData = {};
  #oldFlash: Record<string, unknown> = {};
  #dirty = false;
  #sendIdCookie = false;
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
    const presented = request.cookies[cookies.session];
    if (isSessionId(presented)) {
      this.#plainId = presented;
    }
  }

  /** Whether #plainId may be used as this browser's id: issued by us, or found stored. */
  get #adoptable(): boolean {
    return this.#plainId !== null && (this.#stored !== null || this.#issued);
  }

  get #issued(): boolean {
    if (this.#plainId === null) return false;
    this.#issuedTag ??= isIssuedSessionId(this.services.config.appKey, this.#plainId);
    return this.#issuedTag;
  }

  /** A new id of our own, sent with this response (no row: commit() writes one if there is data). */
  #freshId(): string {
    const id = issueSessionId(this.services.config.appKey);
    this.#plainId = id;
    this.#issuedTag = true;
    this.#sendIdCookie = true;
    return id;
  }

  /** This browser's id, a fresh one if it has none we may use. */
  #usableId(): string {
    return this.#adoptable ? this.#plainId! : this.#freshId();
  }

  get userId(): number | null {
    return this.#stored?.userId ?? null;
  }

  /** The database row's key (sha256 of the cookie), for "end this session" actions. */
  get key(): string | null {
    return this.#stored?.key ?? null;
  }

  /**
   * The user this session is signed in as, read without side effects: no remembered login is restored,
   * no flash data consumed, no cookie sent. For checks made on behalf of another site (forward auth):
   * a proxy does not pass our answer's cookies back to the browser, so a new session or a rotated
   * remember-me token issued there would be lost. It reads through the same kept lookup as load().
   */
  async peekUserId(): Promise<number | null> {
    if (this.#loading !== null) return (await this.#loading).userId;
    if (this.#plainId === null) return null;
    const now = this.services.clock.now();
    return (await this.services.auth.sessions.validate(this.guard, this.#plainId, now))?.userId ?? null;
  }

  load(): Promise<this> {
    this.#loading ??= this.#load();
    return this.#loading;
  }

  async #load(): Promise<this> {
    const now = this.services.clock.now();
    if (this.#plainId !== null) {
      this.#stored = await this.services.auth.sessions.validate(this.guard, this.#plainId, now);
      if (this.#stored) {
        this.#data = { ...this.#stored.data };
        const flash = this.#data[FLASH];
        if (flash && typeof flash === 'object') {
          // Flash data lives for exactly one following request.
          this.#oldFlash = flash as Record<string, unknown>;
          delete this.#data[FLASH];
          this.#dirty = true;
        }
      }
      // An id we did not issue and no row holds: never adopted, replaced.
      if (!this.#adoptable) this.#freshId();
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

  /** Whether this guard has remember-me at all (the panel's has not, CONTRACT §16): its login form offers the box. */
  get offersRememberMe(): boolean {
    return this.cookies.remember !== null;
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
    // #stored, when set, was found or created under #plainId (load, #createWithFreshId, commit), and
    // both change together (logout clears it): a token kept for it belongs to this cookie id.
    const stored = this.#stored;
    let token = stored === null ? undefined : csrfTokens.get(stored);
    if (token === undefined) {
      token = csrfTokenFor(this.services.config.appKey, this.guard, plainId);
      if (stored !== null) csrfTokens.set(stored, token);
    }
    return token;
  }

  /**
   * A value that stands for this browser's session in server-side state kept apart from the session
   * row (passkey challenges, CONTRACT §12): an HMAC of the cookie id under APP_KEY, so a row holding it
   * names this browser without revealing or storing the cookie. Creates the cookie id when the browser
   * has none yet. The id changes at login (fixation defence), and with it the binding: what was bound
   * before a login is not reachable after it.
   */
  binding(purpose: string): string {
    const plainId = this.#usableId();
    return hmacSha256Hex(this.services.config.appKey, `${purpose}:${this.guard}:${plainId}`);
  }

  /**
   * Sends the readable XSRF cookie on this response even when the session id is not new
   * (GET /sanctum/csrf-cookie: an SPA may have lost it, or start on a browser that has a session).
   */
  shareCsrfToken(): void {
    this.csrfToken();
    this.#sendXsrfCookie = true;
  }

  csrfMatches(presented: unknown): boolean {
    return (
      this.#adoptable && csrfTokenMatches(this.services.config.appKey, this.guard, this.#plainId!, presented)
    );
  }

  /**
   * csrfMatches, answered at once for an id we issued (or none); an untagged id counts only once its
   * row is found, so that case loads the session first.
   */
  checkCsrf(presented: unknown): boolean | Promise<boolean> {
    if (this.#plainId === null || this.#issued) return this.csrfMatches(presented);
    return this.load().then(() => this.csrfMatches(presented));
  }

  get(key: string): unknown {
    return this.#data[key];
  }

  put(key: string, value: unknown): void {
    this.#data[key] = value;
    this.#dirty = true;
  }

  pull(key: string): unknown {
    const value = this.#data[key];
    if (value !== undefined) {
      delete this.#data[key];
      this.#dirty = true;
    }
    return value;
  }

  /** Shown on the next request only (status messages after a redirect). */
  flash(key: string, value: unknown): void {
    const flash = (this.#data[FLASH] as Record<string, unknown> | undefined) ?? {};
    this.#data[FLASH] = { ...flash, [key]: value };
    this.#dirty = true;
  }

  flashed(key: string): unknown {
    return this.#oldFlash[key];
  }

  /**
   * Logs `userId` in: the old session row is destroyed and a new id issued (session fixation defence:
   * an id known before login is worthless after it), optionally with a remember-me cookie.
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
    const wanted = remember && this.offersRememberMe;
    const cookie = wanted ? await rememberMe.issue(this.guard, userId, now, device) : undefined;
    await this.#startAuthenticated(userId, now, cookie);
    if (cookie !== undefined) this.#rememberOut = cookie;
  }

  /**
   * `rememberCookie`: the remember-me cookie this session was opened with (issued at login, or the
   * one that restored it). Its selector is kept in the session, so the account's session list can
   * tell which sessions are remembered and which remembered browsers have no live session.
   */
  async #startAuthenticated(userId: number, now: number, rememberCookie?: string): Promise<void> {
    if (this.#stored) await destroySession(this.services.database.db, this.#stored.key);
    const data = { ...this.#data };
    const selector = rememberSelector(rememberCookie);
    if (selector === null) delete data[REMEMBER_SELECTOR];
    else data[REMEMBER_SELECTOR] = selector;
    await this.#createWithFreshId(userId, data, now);
    this.#data = data;
    this.#dirty = false;
  }

  /** A new row under a fresh id of ours (which no row can already hold); the cookie goes out in commit(). */
  async #createWithFreshId(userId: number | null, data: SessionData, now: number): Promise<void> {
    this.#freshId();
    this.#stored = await createSession(this.services.database.db, this.#newSession(userId, data), now);
  }

  #newSession(userId: number | null, data: SessionData) {
    return {
      guard: this.guard,
      plainId: this.#plainId!,
      userId,
      data,
      ip: this.request.ip,
      userAgent: this.request.headers['user-agent'] ?? null,
    };
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
    this.#data = {};
    this.#oldFlash = {};
    this.#freshId();
    this.#dirty = false;
  }

  /** Whether commit() has anything to write or send (most page views have not). */
  get pending(): boolean {
    return this.#dirty || this.#sendIdCookie || this.#sendXsrfCookie || this.#rememberOut !== undefined;
  }

  /** Writes changes and cookies; runs once per request in onSend. */
  async commit(reply: FastifyReply): Promise<void> {
    const { db } = this.services.database;
    const now = this.services.clock.now();
    if (this.#dirty) {
      if (this.#stored) {
        await saveSessionData(db, this.#stored.key, this.#data, now);
      } else if (Object.keys(this.#data).length > 0) {
        if (this.#plainId !== null && this.#issued) {
          this.#stored = await createGuestSession(db, this.#newSession(null, this.#data), now);
        }
        // No id of ours yet, or ours is taken (see createGuestSession): a fresh id cannot be.
        if (this.#stored === null) await this.#createWithFreshId(null, this.#data, now);
      }
      this.#dirty = false;
    }
    const id = this.#sendIdCookie && this.#plainId ? this.#plainId : undefined;
    const shareXsrf = (this.#sendIdCookie || this.#sendXsrfCookie) && this.#plainId && this.cookies.xsrf;
    this.cookies.write(reply, {
      id,
      xsrf: shareXsrf ? this.csrfToken() : undefined,
      remember: this.#rememberOut,
    });
    this.#sendIdCookie = false;
    this.#sendXsrfCookie = false;
    this.#rememberOut = undefined;
  }
}
