import { setTimeout as sleep } from 'node:timers/promises';
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

  /**
   * attempt(), for a limit on FAILURES whose attempts are reserved before the check that decides them
   * (a password: reserve-then-verify, so concurrent guesses cannot overshoot). Each reservation counts
   * until it is settled: a failure keeps it and is recorded (failed), a success gives it back (release)
   * or clears the count. Reservations of checks still running must not refuse a check beside them —
   * eight right passwords at once would otherwise refuse three of themselves (docs/security.md: only
   * rejected credentials count). So a reservation that finds the limit reached is refused only when
   * `max` failures are recorded; reached by checks still running, it waits for them to settle and tries
   * again: their successes free the count, their failures fill it and refuse it then. A guess never
   * reaches the check while `max` reservations are open, so the bound on guesses stays exact. A check
   * that never settles (a process killed mid-hash) is outwaited: after `maxWaitMs` the answer is a refusal.
   */
  async reserve(key: string, limit: Limit, maxWaitMs = RESERVE_WAIT_MS): Promise<Attempt> {
    const deadline = Date.now() + maxWaitMs;
    for (;;) {
      const attempt = await this.attempt(key, limit);
      if (attempt.allowed) return attempt;
      const failed = (await this.store.peek(failedKey(key)))?.count ?? 0;
      if (failed >= limit.max || Date.now() >= deadline) return attempt;
      // Reached by checks still running, not by failures: this try is no attempt yet.
      await this.store.release(key);
      await sleep(RESERVE_POLL_MS);
    }
  }

  /** A reserved check failed: its reservation stays, and the failure is recorded (reserve). */
  async failed(key: string, limit: Limit): Promise<void> {
    await this.store.hit(failedKey(key), limit.windowSeconds * 1000);
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

  async clear(key: string): Promise<void> {
    await Promise.all([this.store.clear(key), this.store.clear(failedKey(key))]);
  }
}

/** How long a reservation waits for the checks running beside it, at most, and how often it looks. */
const RESERVE_WAIT_MS = 10_000;
const RESERVE_POLL_MS = 20;

/** The recorded failures of a limit reserved with reserve(), beside its count of reservations. */
const failedKey = (key: string) => `${key}#failed`;

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
  /**
   * A hit on a window that every hit restarts: it ends `windowMs` after this hit, or later if it
   * already did (never brought forward, so a hit that read an older, shorter window cannot shorten
   * a longer one set beside it). The count runs until a whole window passes without a hit. Atomic
   * like `hit`.
   */
  hitAndRestart(key: string, windowMs: number): Promise<Hit>;
  peek(key: string): Promise<Hit | null>;
  /** Takes back one hit of a live window (never below zero, never extending it). */
  release(key: string): Promise<void>;
  clear(key: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Windows the memory store keeps at most (about 23 MiB of keys like `login:<e-mail>|<IPv6>`). Keys are
 * chosen by whoever sends requests (an address, an e-mail), so without a bound a flood of distinct ones
 * grows the map until the next sweep, or without end within a long window: memory exhaustion.
 * Deployments of more than one instance use Redis (REDIS_URL), which this bound does not concern.
 */
export const MEMORY_STORE_MAX_KEYS = 100_000;

/**
 * When the store is full, the window to drop is chosen among this many of the oldest: an expired one
 * if there is one, else the one with the fewest hits. Not simply the oldest: a flood of new keys (one
 * hit each) would then push out the windows that hold someone back — an account's lockout, whose
 * window every failure restarts, is among the oldest and has the most hits. A bounded look, so a full
 * store costs the same small work per new key however large it is.
 */
const EVICTION_SAMPLE = 32;

/** One process only. Atomic because the event loop runs each call to completion. */
export function memoryRateLimitStore(clock: Clock, maxKeys = MEMORY_STORE_MAX_KEYS): RateLimitStore {
  const windows = new Map<string, { count: number; resetAt: number }>();
  const makeRoom = () => {
    const now = clock.now();
    let victim: string | undefined;
    let fewest = Number.POSITIVE_INFINITY;
    let looked = 0;
    for (const [key, window] of windows) {
      if (window.resetAt <= now) {
        windows.delete(key);
        return;
      }
      if (window.count < fewest) {
        fewest = window.count;
        victim = key;
      }
      if (++looked >= EVICTION_SAMPLE) break;
    }
    if (victim !== undefined) windows.delete(victim);
  };
  const open = (key: string, window: { count: number; resetAt: number }) => {
    if (windows.size >= maxKeys && !windows.has(key)) makeRoom();
    windows.set(key, window);
  };
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
      open(key, window);
      return { count: window.count, resetInMs: window.resetAt - now };
    },
    async hitAndRestart(key, windowMs) {
      const now = clock.now();
      const window = live(key) ?? { count: 0, resetAt: now };
      window.count++;
      window.resetAt = Math.max(window.resetAt, now + windowMs);
      open(key, window);
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
