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
