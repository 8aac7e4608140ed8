import { hmacSha256Hex } from '../../lib/crypto.ts';
import { csrfTokenMatches, sessionCsrfToken } from './csrf.ts';
import { isIssuedSessionId, isSessionId, issueSessionId, type Session } from './sessions.ts';

/**
 * This browser's session cookie id on one request, and whether a new one goes out with the response.
 *
 * A presented id is used only if the server issued it (its APP_KEY tag, auth/sessions.ts) or a live
 * row of the guard holds it (sessions from before ids were tagged). Any other — made up by a client,
 * planted by an attacker — is never adopted: the browser gets a fresh id instead. The tag proves that
 * we issued an id, not to which browser: someone able to set this browser's cookies (a sibling
 * subdomain under SESSION_DOMAIN, plain http) can plant an id they got from us. What that id may come
 * to hold before a login is a guest's data and a pending two-factor login, which still needs the code
 * (5 tries a minute, 5 minutes); every completed login moves the browser to a fresh id.
 */
export class SessionId {
  #value: string | null = null;
  /**
   * #value carries our tag (issued by this server), so it may be used before any row exists. Worked
   * out on first need (an HMAC): a signed-in page finds its row and never asks.
   */
  #issuedTag: boolean | undefined = undefined;
  #renewed = false;

  constructor(
    private readonly appKey: Buffer,
    presented: string | undefined,
  ) {
    if (isSessionId(presented)) this.#value = presented;
  }

  /** The id in use: the presented one until renew(); null when the browser sent none. */
  get value(): string | null {
    return this.#value;
  }

  get issued(): boolean {
    if (this.#value === null) return false;
    this.#issuedTag ??= isIssuedSessionId(this.appKey, this.#value);
    return this.#issuedTag;
  }

  /** Whether the id may be this browser's: issued by us, or `stored` (a live row holds it). */
  adoptable(stored: boolean): boolean {
    return this.#value !== null && (stored || this.issued);
  }

  /** A new id of our own, sent with this response (no row yet: the session writes one if it must). */
  renew(): string {
    const id = issueSessionId(this.appKey);
    this.#value = id;
    this.#issuedTag = true;
    this.#renewed = true;
    return id;
  }

  /** This browser's id, a fresh one if it has none we may use. */
  usable(stored: boolean): string {
    return this.adoptable(stored) ? this.#value! : this.renew();
  }

  /** The new id this response must set, if any; asked once per response (commit). */
  takeRenewed(): string | undefined {
    const id = this.#renewed ? this.#value! : undefined;
    this.#renewed = false;
    return id;
  }

  get renewed(): boolean {
    return this.#renewed;
  }

  /** The CSRF token of the session under this id (`stored`: its row); a fresh id if it has none we may use. */
  csrfToken(guard: string, stored: Session | null): string {
    return sessionCsrfToken(this.appKey, guard, this.usable(stored !== null), stored);
  }

  csrfMatches(guard: string, stored: boolean, presented: unknown): boolean {
    return this.adoptable(stored) && csrfTokenMatches(this.appKey, guard, this.#value!, presented);
  }

  /**
   * Stands for this browser's session in state kept apart from its row (passkey challenges): an HMAC of
   * the cookie id, naming the browser without storing the cookie; creates the id if there is none. The
   * id changes at login (fixation), and with it the binding: what was bound before is unreachable after.
   */
  binding(purpose: string, guard: string, stored: boolean): string {
    return hmacSha256Hex(this.appKey, `${purpose}:${guard}:${this.usable(stored)}`);
  }
}
