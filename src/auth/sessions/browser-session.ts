import type { User } from '../../users/user.ts';
import { endSession } from '../login/logout.ts';
import { REMEMBER_SELECTOR, rememberSelector } from '../remember-me/remember-me.ts';
import type { BrowserRequest, BrowserSessionDeps, CookiesOut, GuardCookieFacts } from './browser.ts';
import { SessionId } from './session-id.ts';
import { SessionValues } from './session-values.ts';
import {
  createGuestSession,
  createSession,
  destroySession,
  type Session,
  type SessionData,
  saveSessionData,
} from './sessions.ts';

/**
 * One guard's browser session on one request, as a use case: load, login, logout, values, CSRF token.
 * It reads and writes session rows and answers what the cookies must become (commit); the HTTP layer
 * only reads and writes cookies. Loaded lazily, written back only when something changed. Guests get a
 * cookie id without a row until they submit something to keep (docs/security.md "Guests cost nothing");
 * their CSRF token is an HMAC of that id (session-id.ts), checked without storage.
 */
export class BrowserSession {
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
    private readonly deps: BrowserSessionDeps,
    readonly guard: string,
    private readonly browser: BrowserRequest,
    /** What this guard's cookies allow: remember-me at all (the panel has none), a shared XSRF token. */
    readonly cookies: GuardCookieFacts,
  ) {
    this.#id = new SessionId(deps.appKey, browser.sessionId);
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
  async peek(): Promise<{
    userId: number | null;
    user?: User | null;
    key?: string;
    get?: (name: string) => unknown;
  }> {
    if (this.#loading !== null) {
      const loaded = await this.#loading;
      const key = loaded.key ?? undefined;
      return { userId: loaded.userId, user: loaded.user, key, get: (name) => loaded.get(name) };
    }
    const presented = this.#id.value;
    if (presented === null) return { userId: null };
    const found = await this.deps.validate(this.guard, presented, this.deps.clock.now());
    if (found === null) return { userId: null };
    const { session } = found;
    // `key` and `get` for a session's followers elsewhere (the OpenID Connect provider's session).
    return { userId: session.userId, user: found.user, key: session.key, get: (name) => session.data[name] };
  }

  load(): Promise<this> {
    this.#loading ??= this.#load();
    return this.#loading;
  }

  async #load(): Promise<this> {
    const now = this.deps.clock.now();
    const presented = this.#id.value;
    if (presented !== null) {
      const found = await this.deps.validate(this.guard, presented, now);
      this.#stored = found?.session ?? null;
      this.#user = found?.user;
      if (this.#stored) this.#values.open(this.#stored.data);
      // An id we did not issue and no row holds: never adopted, replaced.
      if (!this.#id.adoptable(this.#stored !== null)) this.#id.renew();
    }
    if (this.userId === null && this.#rememberCookie !== undefined) {
      // The session has ended but the browser was remembered: sign it in again (auth/remember-me.ts).
      const result = await this.deps.rememberMe.restore(this.guard, this.#rememberCookie, {
        ip: this.browser.ip,
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
    return this.cookies.offersRememberMe ? this.browser.rememberCookie : undefined;
  }

  /** The CSRF token of this session; creates the cookie id if the browser has none yet. */
  csrfToken(): string {
    // #stored, when set, was found or created under this id, and both change together.
    return this.#id.csrfToken(this.guard, this.#stored);
  }

  /** Stands for this browser's session in state kept apart from its row (session-id.ts binding). */
  binding(purpose: string): string {
    return this.#id.binding(purpose, this.guard, this.#stored !== null);
  }

  /** Sends the XSRF cookie even for an old id (GET /sanctum/csrf-cookie: an SPA may have lost it). */
  shareCsrfToken(): void {
    this.csrfToken();
    this.#sendXsrfCookie = true;
  }

  csrfMatches(presented: unknown): boolean {
    return this.#id.csrfMatches(this.guard, this.#stored !== null, presented);
  }

  /** csrfMatches at once for an id we issued (or none); an untagged id counts once its row is found. */
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
    const now = this.deps.clock.now();
    const { rememberMe } = this.deps;
    if (this.#rememberCookie !== undefined) {
      await rememberMe.forget(this.#rememberCookie);
      this.#rememberOut = null;
    }
    // A guard without a remember-me cookie (the panel) ignores the box: nothing to issue it into.
    const wanted = remember && this.cookies.offersRememberMe;
    const cookie = wanted ? await rememberMe.issue(this.guard, userId, now, this.#device) : undefined;
    await this.#startAuthenticated(userId, now, cookie);
    if (cookie !== undefined) this.#rememberOut = cookie;
  }

  /**
   * A new login starts clean (docs/security.md): no value of the session before it crosses into the new
   * one but the selector of `rememberCookie` (issued at login, or the one that restored it), by which the
   * account's session list tells which sessions are remembered.
   */
  async #startAuthenticated(userId: number, now: number, rememberCookie?: string): Promise<void> {
    if (this.#stored) await destroySession(this.deps.db, this.#stored.key);
    const selector = rememberSelector(rememberCookie);
    const data: SessionData = selector === null ? {} : { [REMEMBER_SELECTOR]: selector };
    await this.#createWithFreshId(userId, data, now);
    this.#user = undefined;
    this.#values.written(data);
  }

  /** A new row under a fresh id of ours (which no row can already hold); the cookie goes out in commit(). */
  async #createWithFreshId(userId: number | null, data: SessionData, now: number): Promise<void> {
    this.#id.renew();
    this.#stored = await createSession(this.deps.db, this.#newSession(userId, data), now);
  }

  #newSession(userId: number | null, data: SessionData) {
    return { guard: this.guard, plainId: this.#id.value!, userId, data, ...this.#device };
  }

  get #device() {
    return { ip: this.browser.ip, userAgent: this.browser.userAgent };
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
      this.deps.db,
      { guard: this.guard, key: this.key, userId: this.userId, rememberCookie: this.#rememberCookie },
      { ip: this.browser.ip, now: this.deps.clock.now() },
    );
    this.#letGo();
  }

  /** The account was deleted (its rows with it): the browser lets go as at logout, nothing to delete. */
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

  /** Writes what changed; answers what the cookies must become. Once per response (onSend). */
  async commit(): Promise<CookiesOut> {
    const { db } = this.deps;
    const now = this.deps.clock.now();
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
      (this.#id.renewed || this.#sendXsrfCookie) && this.#id.value !== null && this.cookies.sharesCsrfToken;
    const out: CookiesOut = {
      id: this.#id.takeRenewed(),
      xsrf: shareXsrf ? this.csrfToken() : undefined,
      remember: this.#rememberOut,
    };
    this.#sendXsrfCookie = false;
    this.#rememberOut = undefined;
    return out;
  }
}
