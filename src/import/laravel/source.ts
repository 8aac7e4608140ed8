import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect, type Transaction } from 'kysely';
import type { DatabaseConfig } from '../../config.ts';
import { openSqliteKeptStatements } from '../../db/sqlite-handles.ts';
import { loadMysql2, loadPg } from '../../lib/packages-on-demand.ts';

/**
 * A Laravel application's database, opened only to be read. Laravel's own migrations made these
 * tables (users; personal_access_tokens from Sanctum); ids are bigint, timestamps are `timestamp`
 * columns (MySQL/PostgreSQL) or 'Y-m-d H:i:s' text (SQLite). Values are read as they are stored —
 * timestamps as their text — and turned into Gatehouse's values in rows.ts.
 */
export interface LaravelUserRow {
  id: number | string;
  name: string | null;
  email: string | null;
  password: string | null;
  email_verified_at?: unknown;
  created_at?: unknown;
  updated_at?: unknown;
}

export interface LaravelTokenRow {
  id: number | string;
  tokenable_type: string;
  tokenable_id: number | string;
  name: string | null;
  token: string | null;
  abilities: string | null;
  last_used_at?: unknown;
  /** Added by Sanctum 3; older tables have no such column. */
  expires_at?: unknown;
  created_at?: unknown;
  updated_at?: unknown;
}

interface LaravelDatabase {
  users: LaravelUserRow;
  personal_access_tokens: LaravelTokenRow;
}

const USER_COLUMNS = ['id', 'name', 'email', 'password'] as const;
const USER_OPTIONAL = ['email_verified_at', 'created_at', 'updated_at'] as const;
const TOKEN_COLUMNS = ['id', 'tokenable_type', 'tokenable_id', 'name', 'token', 'abilities'] as const;
const TOKEN_OPTIONAL = ['last_used_at', 'expires_at', 'created_at', 'updated_at'] as const;

/** The source cannot be read as a Laravel database: one line for the operator. */
export class SourceError extends Error {}

export interface SourceReader {
  /** Every user's id and e-mail, to find addresses that differ only in case before importing any. */
  userEmails(): Promise<{ id: number | string; email: string | null }[]>;
  countUsers(): Promise<number>;
  /** Keyset pages: `afterId` is the last id of the page before, as the driver gave it (0 to start). */
  users(afterId: number | string, limit: number): Promise<LaravelUserRow[]>;
  /** Token rows per tokenable_type (null when the table does not exist: an app without Sanctum). */
  tokenTypes(): Promise<{ type: string; count: number }[] | null>;
  tokens(tokenableType: string, afterId: number | string, limit: number): Promise<LaravelTokenRow[]>;
  /** The highest token id Gatehouse could keep (at most `maxId`), of any tokenable_type; null when none. */
  highestTokenId(maxId: number): Promise<number | string | null>;
}

export interface LaravelSource {
  /** Runs `read` in ONE read-only snapshot: rows written meanwhile by a running app are not half-seen. */
  snapshot<T>(read: (reader: SourceReader) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export async function openLaravelSource(config: DatabaseConfig): Promise<LaravelSource> {
  const db = new Kysely<LaravelDatabase>({ dialect: readOnlyDialect(config) });
  try {
    const tables = await db.introspection.getTables();
    const find = (name: string) =>
      tables.find((t) => t.name === name && (t.schema === undefined || t.schema === 'public')) ??
      tables.find((t) => t.name === name);
    const users = find('users');
    if (users === undefined) throw new SourceError('it has no users table');
    const userColumns = present(users.columns, USER_COLUMNS, USER_OPTIONAL, 'users');
    integerKey(users.columns, 'users');
    const tokens = find('personal_access_tokens');
    const tokenColumns =
      tokens && present(tokens.columns, TOKEN_COLUMNS, TOKEN_OPTIONAL, 'personal_access_tokens');
    if (tokens) integerKey(tokens.columns, 'personal_access_tokens');
    return {
      async snapshot(read) {
        let transaction = db.transaction();
        // SQLite reads one snapshot inside any transaction; the others are told to keep one.
        if (config.dialect !== 'sqlite') {
          transaction = transaction.setIsolationLevel('repeatable read').setAccessMode('read only');
        }
        return transaction.execute((trx) => read(reader(trx, userColumns, tokenColumns)));
      },
      close: () => db.destroy(),
    };
  } catch (error) {
    await db.destroy().catch(() => {});
    throw error instanceof SourceError ? error : new SourceError(messageOf(error));
  }
}

function reader(
  trx: Transaction<LaravelDatabase>,
  userColumns: readonly string[],
  tokenColumns: readonly string[] | undefined,
): SourceReader {
  return {
    userEmails: () => trx.selectFrom('users').select(['id', 'email']).orderBy('id').execute(),
    async countUsers() {
      const row = await trx
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    users: (afterId, limit) =>
      trx
        .selectFrom('users')
        .select(userColumns as (keyof LaravelUserRow)[])
        .where('id', '>', afterId)
        .orderBy('id')
        .limit(limit)
        .execute() as Promise<LaravelUserRow[]>,
    async tokenTypes() {
      if (tokenColumns === undefined) return null;
      const rows = await trx
        .selectFrom('personal_access_tokens')
        .select((eb) => ['tokenable_type', eb.fn.countAll<number | string>().as('n')])
        .groupBy('tokenable_type')
        .orderBy('tokenable_type')
        .execute();
      return rows.map((r) => ({ type: r.tokenable_type, count: Number(r.n) }));
    },
    tokens: (tokenableType, afterId, limit) =>
      trx
        .selectFrom('personal_access_tokens')
        .select((tokenColumns ?? []) as (keyof LaravelTokenRow)[])
        .where('tokenable_type', '=', tokenableType)
        .where('id', '>', afterId)
        .orderBy('id')
        .limit(limit)
        .execute() as Promise<LaravelTokenRow[]>,
    async highestTokenId(maxId) {
      if (tokenColumns === undefined) return null;
      const row = await trx
        .selectFrom('personal_access_tokens')
        .select((eb) => eb.fn.max<number | string | null>('id').as('id'))
        .where('id', '<=', maxId)
        .executeTakeFirst();
      return row?.id ?? null;
    },
  };
}

function present(
  columns: readonly { name: string }[],
  required: readonly string[],
  optional: readonly string[],
  table: string,
): string[] {
  const names = new Set(columns.map((c) => c.name));
  const missing = required.filter((c) => !names.has(c));
  if (missing.length > 0) throw new SourceError(`its ${table} table has no ${missing.join(', ')} column`);
  return [...required, ...optional.filter((c) => names.has(c))];
}

/**
 * Gatehouse keeps Laravel's ids (a client's token is "<id>|<secret>"), and its keys are integers: a
 * table keyed by UUIDs (HasUuids, uuidMorphs) cannot be imported, and is refused before anything is read.
 */
function integerKey(columns: readonly { name: string; dataType: string }[], table: string): void {
  const id = columns.find((c) => c.name === 'id');
  if (id !== undefined && !/int/i.test(id.dataType)) {
    throw new SourceError(`its ${table}.id is ${id.dataType}, not an integer (UUID keys cannot be imported)`);
  }
}

/**
 * Each driver opened so that nothing can be written through it, and so that timestamps arrive as the
 * text the database holds (drivers would otherwise turn them into Dates in this machine's time zone).
 */
function readOnlyDialect(config: DatabaseConfig) {
  switch (config.dialect) {
    case 'sqlite':
      // fileMustExist: a mistyped path must not leave an empty database behind.
      return new SqliteDialect({
        database: () => {
          try {
            return Promise.resolve(
              openSqliteKeptStatements(config.filename, { readonly: true, fileMustExist: true }),
            );
          } catch (error) {
            return Promise.reject(new SourceError(messageOf(error)));
          }
        },
      });
    case 'postgres': {
      const textTimestamps = new Set([1082, 1114, 1184]); // date, timestamp, timestamptz
      const pg = loadPg();
      const pool = new pg.Pool({
        connectionString: config.url,
        max: 1,
        connectionTimeoutMillis: 10_000,
        options: '-c default_transaction_read_only=on',
        types: {
          getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
            textTimestamps.has(oid)
              ? (value: string) => value
              : pg.types.getTypeParser(oid, format)) as never,
        },
      });
      pool.on('error', () => {});
      return new PostgresDialect({ pool });
    }
    case 'mysql': {
      const pool = loadMysql2().createPool({
        uri: config.url,
        connectionLimit: 1,
        connectTimeout: 10_000,
        dateStrings: true,
        supportBigNumbers: true,
        bigNumberStrings: false,
      });
      pool.on('connection', (connection) => {
        connection.query('set session transaction read only', (error) => {
          if (error) connection.destroy();
        });
      });
      return new MysqlDialect({ pool });
    }
  }
}

function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] || String((error as { code?: unknown })?.code ?? 'unknown error');
}
