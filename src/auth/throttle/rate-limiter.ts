import type { RateLimitStore } from './rate-limit-stores.ts';

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
