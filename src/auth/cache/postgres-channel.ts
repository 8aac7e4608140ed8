import { CompiledQuery, type DatabaseConnection } from 'kysely';
import pg from 'pg';
import { type ChannelListener, decodeTables, encodeTables, type InvalidationChannel } from './channel.ts';

/** NOTIFY/LISTEN channels are per database, so two deployments on one server never hear each other. */
const CHANNEL = 'gatehouse_auth_cache';

/**
 * PostgreSQL's LISTEN/NOTIFY. The NOTIFY is sent on the writing connection, inside the writing
 * transaction: the server delivers it when the transaction commits and never when it rolls back, so a
 * listener never drops an entry too early (and reloads the old row) nor misses a commit. The listener
 * is one dedicated connection (outside the pool: a pooled client would be handed to queries).
 */
export function postgresChannel(url: string, store: ChannelListener): InvalidationChannel {
  let client: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;
  let delay = 100;

  const lose = (lost: pg.Client) => {
    if (client !== lost) return;
    client = null;
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
    const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000, keepAlive: true });
    client = next;
    next.on('notification', (message) => store.changed(decodeTables(message.payload ?? '')));
    next.on('error', () => lose(next));
    next.on('end', () => lose(next));
    try {
      await next.connect();
      await next.query(`listen ${CHANNEL}`);
      if (client !== next) return;
      delay = 100;
      store.setServing(true);
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
    async close() {
      closed = true;
      if (retry !== null) clearTimeout(retry);
      const current = client;
      client = null;
      await current?.end().catch(() => {});
    },
  };
}
