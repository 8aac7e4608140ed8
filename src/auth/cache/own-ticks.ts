import { randomUUID } from 'node:crypto';

/** How often a listening instance sends itself a tick while its cache is read. */
export const TICK_MS = 10;
/**
 * An instance serves from memory only while it has heard its own tick sent at most this long ago:
 * within the 50 ms of docs/guides/several-instances.md, with 5 ms to spare.
 */
export const HEARD_WITHIN_MS = 45;
/** Ticks stop this long after the last read: an idle instance sends nothing. */
const IDLE_MS = 1_000;
/** Ticks sent and not yet heard, at most: a slow server is not buried in more. */
const TICKS_IN_FLIGHT = 4;
/** A tick not heard this long after it was sent is taken as lost (a message dropped on a reconnect). */
const LOST_AFTER_MS = 1_000;
/** A tick's payload: never a change's (table names, and `<table>:insert`, never start with '#'). */
const TICK = '#tick:';

export interface OwnTicks {
  /** Whether `payload` is a tick (this instance's or another's): then it names no table. */
  heard(payload: string): boolean;
  /** Whether every change sent before a tick heard at most HEARD_WITHIN_MS ago has been heard. */
  current(): boolean;
  /** Ticks every TICK_MS from now on, while the cache is read. */
  start(): void;
  /** The subscription was lost: nothing heard so far counts. */
  lost(): void;
  stop(): void;
}

/**
 * How late an instance hears its channel, measured rather than assumed. A channel that delivers
 * messages in the order they were sent (PostgreSQL NOTIFY: commit order; Redis PUBLISH: the order the
 * server ran them) lets an instance that hears a tick it sent itself at time T know it has heard every
 * message sent before T. While the cache is read, a tick goes every TICK_MS; the cache serves from
 * memory only while the newest tick heard was sent at most HEARD_WITHIN_MS ago. A change whose message
 * was sent before the writing request was answered, at time t, is therefore never served from memory
 * after t + HEARD_WITHIN_MS, however slow the messages, and entries can live as long as nothing changes.
 *
 * `send` returns null when there is no connection to send on.
 */
export function ownTicks(
  send: (payload: string) => Promise<unknown> | null,
  now: () => number = () => performance.now(),
): OwnTicks {
  // The instance's own id, when each tick was sent, and when the newest one heard was sent.
  const self = `${TICK}${randomUUID()}:`;
  const sent = new Map<number, number>();
  let nextTick = 0;
  let heardSentAt = Number.NEGATIVE_INFINITY;
  let lastRead = Number.NEGATIVE_INFINITY;
  let ticker: NodeJS.Timeout | null = null;

  const tick = () => {
    const at = now();
    if (at - lastRead > IDLE_MS) return;
    for (const [number, sentAt] of sent) if (at - sentAt > LOST_AFTER_MS) sent.delete(number);
    if (sent.size >= TICKS_IN_FLIGHT) return;
    const number = nextTick++;
    sent.set(number, at);
    const sending = send(`${self}${number}`);
    if (sending === null) sent.delete(number);
    else sending.catch(() => sent.delete(number));
  };

  return {
    heard(payload) {
      if (!payload.startsWith(TICK)) return false;
      if (!payload.startsWith(self)) return true;
      const number = Number(payload.slice(self.length));
      const at = sent.get(number);
      if (at === undefined) return true;
      for (const key of sent.keys()) if (key <= number) sent.delete(key);
      heardSentAt = Math.max(heardSentAt, at);
      return true;
    },
    current() {
      const at = now();
      lastRead = at;
      if (at - heardSentAt <= HEARD_WITHIN_MS) return true;
      // Not current (idle until now, or messages are late): a tick at once, so a read soon after is.
      tick();
      return false;
    },
    start() {
      if (ticker !== null) return;
      ticker = setInterval(tick, TICK_MS);
      ticker.unref();
    },
    lost() {
      sent.clear();
      heardSentAt = Number.NEGATIVE_INFINITY;
    },
    stop() {
      if (ticker !== null) clearInterval(ticker);
      ticker = null;
    },
  };
}
