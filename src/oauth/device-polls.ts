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
 * the code up (docs/guides/oidc-provider.md "Device flow"), counted on the shared rate-limit store, so
 * every instance sees the same pace. RFC 8628 §3.5: a poll sooner than `interval` seconds after the
 * previous poll of the code — accepted or refused — is `slow_down`, and the interval grows by 5 s for
 * it and every later poll.
 *
 * The count is atomic, so of 20 polls at once exactly one goes on to the library — which consumes an
 * approved code once and answers it with tokens; the others are told to slow down.
 */
export function devicePolls(stored: Adapter, deps: DevicePollDeps): Adapter {
  const { store } = deps.limiter;
  const intervalMs = (slowed: number) =>
    (DEVICE_POLL_INTERVAL_SECONDS + SLOW_DOWN_STEP_SECONDS * slowed) * 1000;
  async function keepPace(id: string): Promise<void> {
    const key = sha256Hex(id);
    const slowed = (await store.peek(`device-slow:${key}`))?.count ?? 0;
    // Every poll restarts the clock, a refused one too (the RFC's "previous poll"): a device that
    // keeps polling too fast stays refused until it waits a whole interval, instead of being let
    // through whenever a fixed window after its last accepted poll has passed, however fast it
    // polled meanwhile. Only the first poll after a quiet interval finds the window empty (count 1):
    // that is the atomic decision.
    const poll = await store.hitAndRestart(`device-poll:${key}`, intervalMs(slowed));
    if (poll.count === 1) return;
    const slow = await store.hit(`device-slow:${key}`, SLOW_DOWN_MEMORY_SECONDS * 1000);
    // The grown interval runs from this refused poll. The store never brings a window's end forward,
    // so a concurrent poll that read the smaller count cannot shorten it.
    await store.hitAndRestart(`device-poll:${key}`, intervalMs(slow.count));
    throw deps.slowDown();
  }
  return {
    ...stored,
    // Kept a while past its expiry, so that a late poll hears expired_token (the library decides
    // from the code's own `exp`), not invalid_grant for a code it cannot find.
    upsert: (id, payload, expiresIn) =>
      stored.upsert(id, payload, (expiresIn ?? 0) + SLOW_DOWN_MEMORY_SECONDS),
    // Only a code that exists is paced: an unknown one (a guess, a typo) is invalid_grant from the
    // library and leaves no window in the store, so random codes cannot fill it.
    async find(id) {
      const found = await stored.find(id);
      if (found !== undefined && deps.isPoll()) await keepPace(id);
      return found;
    },
  };
}
