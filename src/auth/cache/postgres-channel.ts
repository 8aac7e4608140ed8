import { CompiledQuery, type DatabaseConnection } from 'kysely';
import type pg from 'pg';
import { loadPg } from '../../lib/packages-on-demand.ts';
import { type ChannelListener, decodeTables, encodeTables, type InvalidationChannel } from './channel.ts';
import { ownTicks } from './own-ticks.ts';

/** NOTIFY/LISTEN channels are per database, so two deployments on one server never hear each other. */
const CHANNEL = 'gatehouse_auth_cache';

/** The listener's application_name, so an operator (or a test) can find it in pg_stat_activity. */
export const LISTENER_NAME = 'gatehouse auth-cache listener';

/**
 * PostgreSQL's LISTEN/NOTIFY. The NOTIFY is sent on the writing connection, inside the writing
 * transaction: the server delivers it when the transaction commits and never when it rolls back, so a
 * listener never drops an entry too early (and reloads the old row) nor misses a commit. The listener
 * is one dedicated connection (outside the pool: a pooled client would be handed to queries).
 *
 * How late a message may be heard is measured, not assumed (own-ticks.ts): PostgreSQL delivers
 * notifications in the order their transactions committed, so a tick the listener sent itself and
 * hears back proves it has heard every change committed before it.
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
  // One tick query at a time on the listener: pg queues a second one but warns that it will stop.
  let sending = false;
  const ticks = ownTicks((payload) => {
    const listener = client;
    if (listener === null || sending) return null;
    sending = true;
    return listener
      .query('select pg_notify($1, $2)', [CHANNEL, payload])
      .catch((error: unknown) => {
        lose(listener);
        throw error;
      })
      .finally(() => {
        sending = false;
      });
  }, now);

  const hear = (payload: string) => {
    if (!ticks.heard(payload)) store.changed(decodeTables(payload));
  };

  const lose = (lost: pg.Client) => {
    if (client !== lost) return;
    client = null;
    ticks.lost();
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
    const next = new (loadPg().Client)({
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
      if (!closed) ticks.start();
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
    current: ticks.current,
    async close() {
      closed = true;
      if (retry !== null) clearTimeout(retry);
      ticks.stop();
      const current = client;
      client = null;
      await current?.end().catch(() => {});
    },
  };
}
