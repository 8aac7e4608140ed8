import { sql } from 'kysely';
import type { Dialect } from '../../db/connection.ts';
import type { Db } from '../../db/schema.ts';

/** The source's highest ids Gatehouse could keep, whether or not those rows were imported. */
export interface HighestIds {
  readonly users: number;
  readonly personal_access_tokens: number;
}

/**
 * After an import, Gatehouse numbers new users and tokens past the Laravel database's highest ids, not
 * only past the rows it imported (docs/guides/moving-from-laravel.md). A row skipped today (one of two
 * addresses that differ only in case, a token of a user left out) keeps its number free: once the source
 * is fixed, a later run imports it under its own id, and no Gatehouse account ever answers to an id that
 * meant someone else in the Laravel app (its logs, its other tables). Inside the import's transaction,
 * and only ever forward.
 */
export async function numberPast(db: Db, dialect: Dialect, highest: HighestIds): Promise<void> {
  for (const table of ['users', 'personal_access_tokens'] as const) {
    const past = highest[table];
    if (dialect === 'postgres') await postgres(db, table, past);
    else if (dialect === 'sqlite') await sqlite(db, table, past);
    else await mysql(db, table, past);
  }
}

type Table = keyof HighestIds;

/** Rows inserted with explicit ids do not move a `serial` column's sequence at all. */
async function postgres(db: Db, table: Table, past: number): Promise<void> {
  await sql`
    select setval(pg_get_serial_sequence(${table}, 'id'), m)
    from (select greatest(max(id), ${past}) as m from ${sql.table(table)}) as x
    where m >= coalesce(
      (select last_value + 1 from pg_sequences
       where (quote_ident(schemaname) || '.' || quote_ident(sequencename))::regclass
         = pg_get_serial_sequence(${table}, 'id')::regclass),
      1)`.execute(db);
}

/** AUTOINCREMENT keeps the highest id ever used in sqlite_sequence (a row appears with the first insert). */
async function sqlite(db: Db, table: Table, past: number): Promise<void> {
  if (past < 1) return;
  await sql`update sqlite_sequence set seq = ${past} where name = ${table} and seq < ${past}`.execute(db);
  await sql`
    insert into sqlite_sequence (name, seq)
    select ${table}, ${past} where not exists (select 1 from sqlite_sequence where name = ${table})`.execute(
    db,
  );
}

/**
 * InnoDB's AUTO_INCREMENT follows explicit ids by itself, but only those inserted. ALTER TABLE …
 * AUTO_INCREMENT would commit the import half-way (MySQL commits before any ALTER) and can move the
 * counter back below ids used by rows deleted since. Instead a placeholder row with the id is inserted
 * and rolled back to a savepoint: InnoDB never takes back a counter it raised, even when the insert is
 * rolled back, so the counter moves forward only, and the import stays one transaction. The token's
 * user need not exist for that instant (foreign_key_checks is the session's, restored at once).
 */
async function mysql(db: Db, table: Table, past: number): Promise<void> {
  const { rows } = await sql<{ m: number | null }>`select max(id) as m from ${sql.table(table)}`.execute(db);
  if (past <= Number(rows[0]?.m ?? 0)) return;
  await sql`savepoint gatehouse_ids`.execute(db);
  try {
    if (table === 'users') {
      await db
        .insertInto('users')
        .values({
          id: past,
          name: '',
          email: '',
          password: '',
          locale: 'en',
          can_access_panel: 0,
          created_at: 0,
          updated_at: 0,
        })
        .execute();
    } else {
      await sql`set session foreign_key_checks = 0`.execute(db);
      try {
        await db
          .insertInto('personal_access_tokens')
          .values({
            id: past,
            user_id: 0,
            name: '',
            token: '',
            abilities: '[]',
            created_at: 0,
            updated_at: 0,
          })
          .execute();
      } finally {
        await sql`set session foreign_key_checks = 1`.execute(db);
      }
    }
  } finally {
    await sql`rollback to savepoint gatehouse_ids`.execute(db);
  }
}
