import { type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely, PostgresAdapter } from 'kysely';

/** The one dialect difference our schema has: how an auto-incrementing integer key is declared. */
export function withId<T extends string>(db: Kysely<unknown>, table: CreateTableBuilder<T, never>) {
  return db.getExecutor().adapter instanceof PostgresAdapter
    ? table.addColumn('id', 'serial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

/** Epoch milliseconds; bigint because they exceed 32 bits. */
export const timestamp = 'bigint' as const;

export const cascade = (c: ColumnDefinitionBuilder) => c.notNull().references('users.id').onDelete('cascade');

/**
 * A data migration's walk over a table: pages of `read(afterId)` (rows with id > afterId, in id
 * order, at most a page), each row given to `visit`, so memory stays flat whatever the table's size.
 */
export async function forEachRow<R extends { id: number }>(
  read: (afterId: number) => Promise<R[]>,
  visit: (row: R) => Promise<void>,
): Promise<void> {
  let after = 0;
  for (;;) {
    const rows = await read(after);
    if (rows.length === 0) return;
    for (const row of rows) await visit(row);
    after = rows[rows.length - 1]!.id;
  }
}
