import type { Adapter } from 'oidc-provider';
import type { RateLimiter } from '../auth/throttle/rate-limiter.ts';
import { sha256Hex } from '../lib/crypto.ts';

/** RFC 8628 §3.2 `interval`: how long a device waits between polls; each slow_down adds 5 s (§3.5). */
export const DEVICE_POLL_INTERVAL_SECONDS = 5;
const SLOW_DOWN_STEP_SECONDS = 5;
/** Long enough to outlive any device code (DEVICE_CODE_TTL_SECONDS), and how long one is kept after. */
const SLOW_DOWN_MEMORY_SECONDS = 600;

export interface DevicePollDeps {
  readonly limiter: RateLimiter;
  /** True while the token endpoint handles a device_code grant (a poll), not the /device pages. */
  readonly isPoll: () => boolean;
  /** The library's slow_down error (library.ts). */
  readonly slowDown: () => Error;
}

/**
 * The `DeviceCode` model's storage with the pace of polling enforced where the token endpoint looks
 * the code up (docs/guides/oidc-provider.md "Device flow"): one poll per interval of a code, counted
 * on the shared rate-limit store, so every instance sees the same pace. A poll sooner than the
 * interval after the previous accepted one is `slow_down`, and the code's interval grows by 5 s.
 *
 * The count is atomic, so of 20 polls at once exactly one goes on to the library — which consumes an
 * approved code once and answers it with tokens; the others are told to slow down.
 */
export function devicePolls(stored: Adapter, deps: DevicePollDeps): Adapter {
  const { limiter } = deps;
  async function keepPace(id: string): Promise<void> {
    const key = sha256Hex(id);
    const slowed = (await limiter.store.peek(`device-slow:${key}`))?.count ?? 0;
    const interval = DEVICE_POLL_INTERVAL_SECONDS + SLOW_DOWN_STEP_SECONDS * slowed;
    const poll = await limiter.attempt(`device-poll:${key}`, { max: 1, windowSeconds: interval });
    if (poll.allowed) return;
    await limiter.store.hit(`device-slow:${key}`, SLOW_DOWN_MEMORY_SECONDS * 1000);
    throw deps.slowDown();
  }
  return {
    ...stored,
    // Kept a while past its expiry, so that a late poll hears expired_token (the library decides
    // from the code's own `exp`), not invalid_grant for a code it cannot find.
    upsert: (id, payload, expiresIn) =>
      stored.upsert(id, payload, (expiresIn ?? 0) + SLOW_DOWN_MEMORY_SECONDS),
    async find(id) {
      if (deps.isPoll()) await keepPace(id);
      return stored.find(id);
    },
  };
}
