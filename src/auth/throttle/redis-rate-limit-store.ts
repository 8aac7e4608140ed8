import type { Redis } from 'ioredis';
import { sha256Hex } from '../../lib/crypto.ts';
import type { RateLimitStore } from './rate-limiter.ts';

// INCR and the first PEXPIRE in one script: no window can be left without an expiry, and every
// instance sharing this Redis sees the same count at once.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

// INCR and the push of the expiry in one script: the window ends ARGV[1] ms after this hit, unless it
// already ends later (a key without an expiry has PTTL -1 and gets one).
const HIT_AND_RESTART_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
local window = tonumber(ARGV[1])
if ttl < window then redis.call('PEXPIRE', KEYS[1], window); ttl = window end
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
    async hitAndRestart(key, windowMs) {
      const [count, ttl] = (await redis.eval(HIT_AND_RESTART_SCRIPT, 1, keyOf(key), windowMs)) as [
        number,
        number,
      ];
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
