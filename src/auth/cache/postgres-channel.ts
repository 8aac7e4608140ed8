import { CompiledQuery, type DatabaseConnection } from 'kysely';
import pg from 'pg';
import { type ChannelListener, decodeTables, encodeTables, type InvalidationChannel } from './channel.ts';

/** NOTIFY/LISTEN channels are per database, so two deployments on one server never hear each other. */
const CHANNEL = 'gatehouse_auth_cache';

/** The listener's application_name, so an operator (or a test) can find it in pg_stat_activity. */
export const LISTENER_NAME = 'gatehouse auth-cache listener';

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
/** A tick's payload: never a table name (those have no colon). */
const TICK = 'tick:';

/**
 * PostgreSQL's LISTEN/NOTIFY. The NOTIFY is sent on the writing connection, inside the writing
 * transaction: the server delivers it when the transaction commits and never when it rolls back, so a
 * listener never drops an entry too early (and reloads the old row) nor misses a commit. The listener
 * is one dedicated connection (outside the pool: a pooled client would be handed to queries).
 *
 * How late a message may be heard is measured, not assumed. PostgreSQL delivers notifications in
 * the order their transactions committed, so when the listener hears a tick it sent itself at time
 * T, it has heard every change committed before T. While the cache is read, a tick goes every
 * TICK_MS; the cache serves from memory only while the newest tick heard was sent at most
 * HEARD_WITHIN_MS ago (`current`). A revocation answered by another instance at time t is therefore
 * never served here after t + HEARD_WITHIN_MS, however slow the messages, and entries can live as
 * long as nothing changes (the age bound is left for writes made past the service).
 */
export function postgresChannel(
  url: string,
  store: ChannelListener,
  now: () => number = () => performance.now(),
): InvalidationChannel {
  let client: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;
  let delay = 100;
  // Ticks: the instance's own (a random id), when each was sent, and the newest heard.
  const self = `${TICK}${Math.random().toString(36).slice(2)}:`;
  const sent = new Map<number, number>();
  let nextTick = 0;
  let heardSentAt = Number.NEGATIVE_INFINITY;
  let lastRead = Number.NEGATIVE_INFINITY;
  let ticker: NodeJS.Timeout | null = null;

  const hear = (payload: string) => {
    if (!payload.startsWith(TICK)) {
      store.changed(decodeTables(payload));
      return;
    }
    if (!payload.startsWith(self)) return;
    const number = Number(payload.slice(self.length));
    const at = sent.get(number);
    if (at === undefined) return;
    for (const key of sent.keys()) if (key <= number) sent.delete(key);
    heardSentAt = Math.max(heardSentAt, at);
  };

  const tick = () => {
    const listener = client;
    if (listener === null || now() - lastRead > IDLE_MS || sent.size >= TICKS_IN_FLIGHT) return;
    const number = nextTick++;
    sent.set(number, now());
    listener.query('select pg_notify($1, $2)', [CHANNEL, `${self}${number}`]).catch(() => lose(listener));
  };

  const lose = (lost: pg.Client) => {
    if (client !== lost) return;
    client = null;
    sent.clear();
    heardSentAt = Number.NEGATIVE_INFINITY;
    store.setServing(false);
    lost.end().catch(() => {});
    if (!closed && retry === null) {
      retry = setTimeout(() => {
        retry = null;
        void connect();
      }, delay);
      retry.unref();
      delay = Math.min(delay * 2, 5_000);
    }
  };

  const connect = async () => {
    if (closed || client !== null) return;
    const next = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: 5_000,
      keepAlive: true,
      application_name: LISTENER_NAME,
    });
    client = next;
    next.on('notification', (message) => hear(message.payload ?? ''));
    next.on('error', () => lose(next));
    next.on('end', () => lose(next));
    try {
      await next.connect();
      await next.query(`listen ${CHANNEL}`);
      if (client !== next) return;
      delay = 100;
      store.setServing(true);
      if (ticker === null && !closed) {
        ticker = setInterval(tick, TICK_MS);
        ticker.unref();
      }
    } catch {
      lose(next);
    }
  };

  return {
    start: () => void connect(),
    async inConnection(connection: DatabaseConnection, tables: readonly string[]) {
      await connection.executeQuery(
        CompiledQuery.raw('select pg_notify($1, $2)', [CHANNEL, encodeTables(tables)]),
      );
    },
    publish() {},
    current() {
      const at = now();
      lastRead = at;
      if (at - heardSentAt <= HEARD_WITHIN_MS) return true;
      // Not current (idle until now, or messages are late): a tick at once, so a read soon after is.
      tick();
      return false;
    },
    async close() {
      closed = true;
      if (retry !== null) clearTimeout(retry);
      if (ticker !== null) clearInterval(ticker);
      const current = client;
      client = null;
      await current?.end().catch(() => {});
    },
  };
}
