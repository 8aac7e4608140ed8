import { type Kysely, MysqlAdapter } from 'kysely';

/** oauth_models' lookup columns that most rows leave empty (see 2026_12_01_000101_create_oauth_tables). */
const SPARSE_COLUMNS = ['grant_hash', 'uid_hash', 'user_code_hash', 'session_binding'] as const;

/**
 * Indexes only the rows that have a value, on SQLite and PostgreSQL: a refresh token, the row every
 * refresh writes, has no uid, user code or session binding, and a grant or session no grant id, yet each
 * of those NULLs was an index entry to write and later delete. Partial indexes took an insert of a
 * refresh token from 94 to 68 µs on SQLite (docs/contributing/benchmarks.md "oauth_models"); every
 * query searching these columns compares them with a value, which implies NOT NULL, so the planners
 * still use them. MySQL and MariaDB have no partial indexes: theirs stay as they are.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof MysqlAdapter) return;
  for (const column of SPARSE_COLUMNS) {
    await db.schema.dropIndex(`oauth_models_${column}_index`).execute();
    await db.schema
      .createIndex(`oauth_models_${column}_index`)
      .on('oauth_models')
      .column(column)
      .where(column, 'is not', null)
      .execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof MysqlAdapter) return;
  for (const column of SPARSE_COLUMNS) {
    await db.schema.dropIndex(`oauth_models_${column}_index`).execute();
    await db.schema.createIndex(`oauth_models_${column}_index`).on('oauth_models').column(column).execute();
  }
}
