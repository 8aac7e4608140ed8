import type { ExecuteValues, Pool as MysqlPool } from 'mysql2';
import type pg from 'pg';
import type { ChangeTracker } from './changes.ts';
import type { ServerReads } from './prepared.ts';
import { Primer } from './primer.ts';

/**
 * The strict path of PostgreSQL and MySQL/MariaDB (see README.md here): nothing is kept between
 * requests, because other instances write without telling us and asking costs a round trip. What a
 * request does cost is made as small as the database allows:
 * - the per-request lookups are prepared statements, sent straight to the pool (prepared.ts);
 * - the token or session read brings its user along (a join), primed for the user lookup that
 *   follows in the same turn (primer.ts): one round trip per check instead of two.
 */
export class ServerChangeTracker implements ChangeTracker {
  readonly #primers: Primer<unknown, unknown>[] = [];

  version(): null {
    return null;
  }

  lastVersion(): null {
    return null;
  }

  /** A request began: answers primed for requests before it may not serve it (primer.ts). */
  observe(): void {
    for (const primer of this.#primers) primer.drop();
  }

  wrote(): void {}

  /** A primer that every request's start empties. */
  primer<K, V>(): Primer<K, V> {
    const primer = new Primer<K, V>();
    this.#primers.push(primer as Primer<unknown, unknown>);
    return primer;
  }
}

/** Named statements: each connection parses and plans a lookup once, then only binds and runs it. */
export function postgresReads(pool: pg.Pool): ServerReads {
  return {
    async rows(name, text, values) {
      return (await pool.query({ name, text, values: values as unknown[] })).rows;
    },
    async pairs(name, text, values) {
      const result = await pool.query({ name, text, values: values as unknown[], rowMode: 'array' });
      const fields = result.fields;
      // `a.*, b.*`: b's columns begin where the source table changes.
      let split = 1;
      while (split < fields.length && fields[split]!.tableID === fields[0]!.tableID) split++;
      return (result.rows as unknown as unknown[][]).map((values) => {
        const first: Record<string, unknown> = {};
        for (let i = 0; i < split; i++) first[fields[i]!.name] = values[i];
        if (values[split] === null) return [first, undefined];
        const second: Record<string, unknown> = {};
        for (let i = split; i < fields.length; i++) second[fields[i]!.name] = values[i];
        return [first, second];
      });
    },
  };
}

/**
 * Server-side prepared statements (mysql2 keeps them per connection) in the binary protocol.
 * Integer parameters go as BIGINT: as a DOUBLE (mysql2's default for numbers) a key comparison
 * would be a conversion on the column's side.
 */
export function mysqlReads(pool: MysqlPool): ServerReads {
  const bind = (values: readonly unknown[]) =>
    values.map((value) =>
      typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : value,
    ) as ExecuteValues[];
  const execute = <R>(options: { sql: string; nestTables?: true }, values: readonly unknown[]) =>
    new Promise<R>((resolve, reject) => {
      pool.execute(options, bind(values), (error, rows) => (error ? reject(error) : resolve(rows as R)));
    });
  return {
    rows: (_name, sql, values) => execute<unknown[]>({ sql }, values),
    async pairs(_name, sql, values) {
      const rows = await execute<Record<string, Record<string, unknown>>[]>(
        { sql, nestTables: true },
        values,
      );
      return rows.map((row) => {
        const [first, second] = Object.values(row);
        // The outer join's key column (b's first) is null when there is no such row.
        const found = second !== undefined && Object.values(second)[0] !== null;
        return [first, found ? second : undefined];
      });
    },
  };
}
