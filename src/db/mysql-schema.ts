import {
  type AlterTableNode,
  type ColumnDefinitionNode,
  type CreateTableNode,
  DataTypeNode,
  ForeignKeyConstraintNode,
  type Kysely,
  type KyselyPlugin,
  MysqlAdapter,
  OperationNodeTransformer,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  sql,
  type UnknownRow,
} from 'kysely';

/**
 * The migrations are written once for every dialect. On MySQL/MariaDB they are translated while
 * they run, here, so that a migration written later by someone who never thought of MySQL still
 * gives the same behaviour there:
 *
 * - Every table is InnoDB (row locks, foreign keys, transactions) in utf8mb4 with a *binary, no-pad*
 *   collation: strings compare byte for byte, as in SQLite and PostgreSQL. MySQL's usual
 *   case-insensitive collations would make `Ada@x` equal `ada@x` — and `é` equal `e`, and `"ci "`
 *   equal `"ci"` (PAD SPACE) — in unique indexes and lookups. E-mail uniqueness is case-insensitive
 *   on every dialect the same way: addresses are lower-cased before they are stored.
 * - `text` becomes `mediumtext`: MySQL's TEXT holds 65,535 *bytes*, less than a 65,535-character
 *   post in 4-byte characters; PostgreSQL's and SQLite's text have no such limit.
 * - A REFERENCES written on a column becomes a table constraint: MySQL 8 parses the column form and
 *   silently ignores it (no key, no cascade).
 */
export async function forMigrations<DB>(db: Kysely<DB>): Promise<Kysely<DB>> {
  if (!(db.getExecutor().adapter instanceof MysqlAdapter)) return db;
  return db.withPlugin(new MysqlSchemaPlugin(await binaryCollation(db)));
}

/** MariaDB (10.2+) calls it utf8mb4_nopad_bin, MySQL (8.0.17+) utf8mb4_0900_bin. */
async function binaryCollation<DB>(db: Kysely<DB>): Promise<string> {
  const { rows } = await sql<{ name: string }>`
    select collation_name as name from information_schema.collations
    where collation_name in ('utf8mb4_nopad_bin', 'utf8mb4_0900_bin')`.execute(db);
  const name = rows[0]?.name;
  if (name === undefined) {
    throw new Error(
      'The MySQL server has no binary no-pad utf8mb4 collation: MySQL 8.0.17+ or MariaDB 10.6+ needed',
    );
  }
  return name;
}

export class MysqlSchemaPlugin implements KyselyPlugin {
  readonly #translate: MysqlSchemaTranslation;

  constructor(collation: string) {
    this.#translate = new MysqlSchemaTranslation(collation);
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.#translate.transformNode(args.node, args.queryId);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

class MysqlSchemaTranslation extends OperationNodeTransformer {
  readonly #tableOptions;

  constructor(collation: string) {
    super();
    this.#tableOptions = sql`engine = InnoDB default character set = utf8mb4 collate = ${sql.raw(collation)}`;
  }

  protected override transformCreateTable(node: CreateTableNode): CreateTableNode {
    const created = super.transformCreateTable(node);
    const table = created.table.table.identifier.name;
    const foreignKeys = created.columns.flatMap((column) =>
      column.references === undefined
        ? []
        : [
            Object.freeze({
              ...ForeignKeyConstraintNode.create(
                [column.column],
                column.references.table,
                column.references.columns,
                `${table}_${column.column.column.name}_foreign`,
              ),
              references: column.references,
            }),
          ],
    );
    return Object.freeze({
      ...created,
      columns: created.columns.map(({ references: _, ...column }) => Object.freeze(column)),
      constraints: [...(created.constraints ?? []), ...foreignKeys],
      endModifiers: [...(created.endModifiers ?? []), this.#tableOptions.toOperationNode()],
    });
  }

  protected override transformAlterTable(node: AlterTableNode): AlterTableNode {
    const altered = super.transformAlterTable(node);
    for (const change of altered.columnAlterations ?? []) {
      if (change.kind === 'AddColumnNode' && change.column.references !== undefined) {
        // ALTER TABLE … ADD COLUMN … REFERENCES is ignored by MySQL 8 just like CREATE TABLE's.
        throw new Error(
          `Migration adds ${change.column.column.column.name} with an inline REFERENCES, which MySQL ignores: ` +
            'add the column, then the key with addForeignKeyConstraint',
        );
      }
    }
    return altered;
  }

  protected override transformColumnDefinition(node: ColumnDefinitionNode): ColumnDefinitionNode {
    const column = super.transformColumnDefinition(node);
    if (DataTypeNode.is(column.dataType) && column.dataType.dataType === 'text') {
      return Object.freeze({ ...column, dataType: sql.raw('mediumtext').toOperationNode() });
    }
    return column;
  }
}
