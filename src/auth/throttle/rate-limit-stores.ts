import type { Redis } from 'ioredis';
import { type Clock, MINUTE } from '../../lib/clock.ts';
import { sha256Hex } from '../../lib/crypto.ts';

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

// INCR and the first PEXPIRE in one script: no window can be left without an expiry, and every
// instance sharing this Redis sees the same count at once.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

// DECR only an existing window with hits left: a window that expired meanwhile is not recreated
// (without an expiry it would never end), and no count goes below zero.
const RELEASE_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 0 then redis.call('DECR', KEYS[1]) end
return 0`;

/** Shared by every instance on one Redis. Keys are hashed: e-mail addresses do not sit in Redis. */
export function redisRateLimitStore(redis: Redis, namespace: string): RateLimitStore {
  const keyOf = (key: string) => namespace + sha256Hex(key);
  return {
    async hit(key, windowMs) {
      const [count, ttl] = (await redis.eval(HIT_SCRIPT, 1, keyOf(key), windowMs)) as [number, number];
      return { count, resetInMs: ttl };
    },
    async peek(key) {
      const result = await redis.multi().get(keyOf(key)).pttl(keyOf(key)).exec();
      const count = result?.[0]?.[1] as string | null | undefined;
      const ttl = Number(result?.[1]?.[1] ?? -1);
      return count == null || ttl < 0 ? null : { count: Number(count), resetInMs: ttl };
    },
    async release(key) {
      await redis.eval(RELEASE_SCRIPT, 1, keyOf(key));
    },
    async clear(key) {
      await redis.del(keyOf(key));
    },
    async close() {},
  };
}
