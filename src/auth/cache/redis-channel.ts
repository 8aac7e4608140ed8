import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { type ChannelListener, decodeTables, encodeTables, type InvalidationChannel } from './channel.ts';
import { ownTicks } from './own-ticks.ts';

/**
 * Redis pub/sub, for MySQL/MariaDB (which has no NOTIFY). A message is published after its write has
 * committed — before it, another instance could reload the old row and keep it. Subscribing takes a
 * connection of its own (a subscribed Redis connection can do nothing else).
 *
 * How late a message may be heard is measured, not assumed (own-ticks.ts): Redis runs PUBLISH
 * commands one at a time and delivers each channel's messages in that order, so a tick the subscriber
 * sent itself and hears back proves it has heard every message published before it. For that to
 * bound a revocation, the writing request must not be answered before its message is published:
 * `publish` resolves once Redis has taken it (the write watcher awaits it).
 */
export function redisChannel(
  redis: Redis,
  channel: string,
  store: ChannelListener,
  maxAgeMs: number,
  now: () => number = () => performance.now(),
): InvalidationChannel {
  let subscriber: Redis | null = null;
  let subscribed = false;
  const ticks = ownTicks((payload) => (subscribed ? redis.publish(channel, payload) : null), now);

  const start = () => {
    if (subscriber !== null) return;
    // Resubscribing is done here, on each 'ready', so the store is told exactly when it is back.
    const sub = redis.duplicate({
      lazyConnect: true,
      autoResubscribe: false,
      maxRetriesPerRequest: null,
      // Named, so an operator (or a test) can find the subscriber in CLIENT LIST.
      connectionName: `${channel.replace(/[^\x21-\x7e]/g, '_')}`,
    });
    subscriber = sub;
    sub.on('message', (_channel: string, message: string) => {
      if (!ticks.heard(message)) store.changed(decodeTables(message));
    });
    sub.on('ready', () => {
      sub.subscribe(channel).then(
        () => {
          subscribed = true;
          store.setServing(true);
          ticks.start();
        },
        () => sub.disconnect(true),
      );
    });
    // 'close' comes on every lost connection, before ioredis reconnects by itself.
    sub.on('close', () => {
      subscribed = false;
      ticks.lost();
      store.setServing(false);
    });
    sub.on('error', () => {});
    sub.connect().catch(() => {});
  };

  return {
    start,
    async publish(tables: readonly string[]) {
      const started = now();
      const published = await settledWithin(redis.publish(channel, encodeTables(tables)), maxAgeMs);
      // A publish that failed (or hangs) cannot undo the commit. The answer then waits until every
      // entry another instance read before the commit has aged out (maxAgeMs), so even a lost message
      // never lets a revoked token through after the revoking request was answered.
      if (!published) await sleep(Math.max(0, maxAgeMs - (now() - started)));
    },
    current: ticks.current,
    async close() {
      ticks.stop();
      const sub = subscriber;
      subscriber = null;
      subscribed = false;
      if (sub !== null) await sub.quit().catch(() => sub.disconnect());
    },
  };
}

/** Whether `promise` fulfilled within `ms` (false when it rejected or is still pending). */
function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    promise.then(
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      () => {
        clearTimeout(timer);
        resolve(false);
      },
    );
  });
}
