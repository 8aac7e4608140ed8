import type { Db } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { User } from '../../users/user.ts';
import type { RememberedDevice, RestoreResult } from '../remember-me/remember-me.ts';
import type { SessionWithUser } from './sessions.ts';

/*
 * The boundary between a browser session's use case (browser-session.ts) and the HTTP layer
 * (http/plugins/session.ts): what the browser presented, what its cookies must become, and what the
 * use case is built with.
 */

/** What the browser's cookies of one session guard must become; undefined leaves a cookie alone. */
export interface CookiesOut {
  /** A new session id. */
  readonly id?: string;
  /** The CSRF token, for the script-readable XSRF cookie (only for guards that have one). */
  readonly xsrf?: string;
  /** A new remember-me cookie, or null to clear it. */
  readonly remember?: string | null;
}

/** What the browser presented of one session guard's cookies, and where it asked from. */
export interface BrowserRequest {
  readonly sessionId: string | undefined;
  /** Undefined for a guard without remember-me, or a browser without the cookie. */
  readonly rememberCookie: string | undefined;
  readonly ip: string;
  readonly userAgent: string | null;
}

/** The guard's cookie facts the lifecycle needs: whether it has a remember-me and an XSRF cookie. */
export interface GuardCookieFacts {
  readonly offersRememberMe: boolean;
  readonly sharesCsrfToken: boolean;
}

/** What a browser session uses, bound once by the auth service (auth.service.ts sessions.open). */
export interface BrowserSessionDeps {
  readonly db: Db;
  readonly appKey: Buffer;
  readonly clock: Clock;
  readonly validate: (guard: string, plainId: string, now: number) => Promise<SessionWithUser | null>;
  readonly rememberMe: {
    restore(guard: string, cookie: string, audit: { ip: string; now: number }): Promise<RestoreResult>;
    issue(guard: string, userId: number, now: number, device: RememberedDevice): Promise<string>;
    forget(cookie: string): Promise<void>;
  };
}

/** What a session says without side effects (forward auth, the OpenID provider's session sync). */
export interface SessionPeek {
  readonly userId: number | null;
  readonly user?: User | null;
  /** The row's key and values, for a session's followers elsewhere (the OpenID provider's session). */
  readonly key?: string;
  readonly get?: (name: string) => unknown;
}
