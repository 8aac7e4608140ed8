import type { Redis } from 'ioredis';
import { type ChannelListener, decodeTables, encodeTables, type InvalidationChannel } from './channel.ts';

/**
 * Redis pub/sub, for MySQL/MariaDB (which has no NOTIFY). A message is published after its write has
 * committed — before it, another instance could reload the old row and keep it. Subscribing takes a
 * connection of its own (a subscribed Redis connection can do nothing else).
 */
export function redisChannel(redis: Redis, channel: string, store: ChannelListener): InvalidationChannel {
  let subscriber: Redis | null = null;

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
    sub.on('message', (_channel: string, message: string) => store.changed(decodeTables(message)));
    sub.on('ready', () => {
      sub.subscribe(channel).then(
        () => store.setServing(true),
        () => sub.disconnect(true),
      );
    });
    // 'close' comes on every lost connection, before ioredis reconnects by itself.
    sub.on('close', () => store.setServing(false));
    sub.on('error', () => {});
    sub.connect().catch(() => {});
  };

  return {
    start,
    publish(tables: readonly string[]) {
      // A failed publish cannot undo the commit: the other instances hold the old row until its TTL
      // (store.ts), which is the bound the README states for this case.
      redis.publish(channel, encodeTables(tables)).catch(() => {});
    },
    async close() {
      const sub = subscriber;
      subscriber = null;
      if (sub !== null) await sub.quit().catch(() => sub.disconnect());
    },
  };
}
