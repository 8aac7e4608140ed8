import { type Clock, MINUTE } from '../../lib/clock.ts';

export interface Limit {
  /** Attempts allowed per window. */
  readonly max: number;
  readonly windowSeconds: number;
}

export type Attempt =
  | { allowed: true; remaining: number }
  /** `firstRefusal` is true exactly once per window: the moment a lockout starts. */
  | { allowed: false; retryAfterSeconds: number; firstRefusal: boolean };

/**
 * Consumes one attempt before the guarded work runs (reserve-then-act), so N concurrent requests
 * can never all slip under the limit the way a check-then-increment would let them.
 */
export class RateLimiter {
  constructor(readonly store: RateLimitStore) {}

  async attempt(key: string, limit: Limit): Promise<Attempt> {
    const hit = await this.store.hit(key, limit.windowSeconds * 1000);
    if (hit.count > limit.max) {
      return {
        allowed: false,
        retryAfterSeconds: seconds(hit.resetInMs),
        firstRefusal: hit.count === limit.max + 1,
      };
    }
    return { allowed: true, remaining: limit.max - hit.count };
  }

  /** Refused already? Does not consume an attempt. */
  async blocked(key: string, limit: Limit): Promise<number | null> {
    const hit = await this.store.peek(key);
    return hit !== null && hit.count >= limit.max ? seconds(hit.resetInMs) : null;
  }

  /**
   * Gives back an attempt that `attempt` reserved, once the guarded work shows it should not count
   * (a right password against a limit on failures).
   */
  release(key: string): Promise<void> {
    return this.store.release(key);
  }

  clear(key: string): Promise<void> {
    return this.store.clear(key);
  }
}

function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

export interface Hit {
  /** Hits in the current window, this one included. */
  count: number;
  /** Milliseconds until the window (started by its first hit) ends. */
  resetInMs: number;
}

/**
 * Counter store for fixed windows that start at the first hit (Laravel's RateLimiter semantics).
 * `hit` must be atomic: concurrent attempts each see a distinct count, so no more than the limit pass.
 */
export interface RateLimitStore {
  hit(key: string, windowMs: number): Promise<Hit>;
  peek(key: string): Promise<Hit | null>;
  /** Takes back one hit of a live window (never below zero, never extending it). */
  release(key: string): Promise<void>;
  clear(key: string): Promise<void>;
  close(): Promise<void>;
}

/** One process only. Atomic because the event loop runs each call to completion. */
export function memoryRateLimitStore(clock: Clock): RateLimitStore {
  const windows = new Map<string, { count: number; resetAt: number }>();
  const sweep = setInterval(() => {
    const now = clock.now();
    for (const [key, window] of windows) if (window.resetAt <= now) windows.delete(key);
  }, MINUTE);
  sweep.unref();
  const live = (key: string) => {
    const window = windows.get(key);
    if (window && window.resetAt > clock.now()) return window;
    windows.delete(key);
    return undefined;
  };
  return {
    async hit(key, windowMs) {
      const now = clock.now();
      const window = live(key) ?? { count: 0, resetAt: now + windowMs };
      window.count++;
      windows.set(key, window);
      return { count: window.count, resetInMs: window.resetAt - now };
    },
    async peek(key) {
      const window = live(key);
      return window ? { count: window.count, resetInMs: window.resetAt - clock.now() } : null;
    },
    async release(key) {
      const window = live(key);
      if (window && window.count > 0) window.count--;
    },
    async clear(key) {
      windows.delete(key);
    },
    async close() {
      clearInterval(sweep);
    },
  };
}
