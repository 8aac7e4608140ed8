import type { OperationNode, RootOperationNode } from 'kysely';

/**
 * What a write changed, as far as the auth cache cares: keys naming the cached rows it may have
 * touched. Derived from the statement itself (Kysely's operation tree), so no use case has to remember
 * to announce its writes — a write added tomorrow is covered the day it lands.
 *
 * - `u:<id>` a user row (and, for a delete, the tokens and sessions that went with it by cascade);
 * - `t:<id>` / `tu:<user id>` a token / every token of a user;
 * - `s:<key>` / `su:<user id>` a session / every session of a user;
 * - `u*`, `t*`, `s*` any row of the table: a write whose WHERE names neither key (expiry sweeps, a raw
 *   statement). Coarse, but never wrong: when in doubt, more is dropped.
 *
 * Inserts change nothing cached: absent answers are never kept (store.ts), and a new row has a new key.
 */
export type Invalidation = string;

const TABLES = {
  users: { prefix: 'u', byUser: null },
  personal_access_tokens: { prefix: 't', byUser: 'tu' },
  sessions: { prefix: 's', byUser: 'su' },
} as const;
type Watched = keyof typeof TABLES;

/** The invalidations of one statement; empty for reads, inserts and tables the cache does not hold. */
export function invalidationsOf(node: RootOperationNode): Invalidation[] {
  switch (node.kind) {
    case 'UpdateQueryNode':
      return keysFor(tableOf(node.table), node.where?.where);
    case 'DeleteQueryNode':
      return keysFor(tableOf(node.from.froms[0]), node.where?.where);
    case 'InsertQueryNode': {
      // An upsert may overwrite a cached row: treated like an update of unknown rows.
      const table = tableOf(node.into);
      return table && (node.onConflict?.updates || node.onDuplicateKey) ? [`${TABLES[table].prefix}*`] : [];
    }
    case 'RawNode':
      return rawKeys(node.sqlFragments.join(' '));
    default:
      return [];
  }
}

function tableOf(node: OperationNode | undefined): Watched | null {
  if (node?.kind === 'AliasNode') return tableOf((node as unknown as { node: OperationNode }).node);
  if (node?.kind !== 'TableNode') return null;
  const name = (node as unknown as { table: { identifier: { name: string } } }).table.identifier.name;
  return Object.hasOwn(TABLES, name) ? (name as Watched) : null;
}

function keysFor(table: Watched | null, where: OperationNode | undefined): Invalidation[] {
  if (table === null) return [];
  const { prefix, byUser } = TABLES[table];
  const equal = equalities(where);
  const id = equal.get('id');
  if (id !== undefined) return [`${prefix}:${id}`];
  const userId = equal.get('user_id');
  if (byUser !== null && userId !== undefined) return [`${byUser}:${userId}`];
  return [`${prefix}*`];
}

/** `column = value` terms that every matched row satisfies (the conjuncts of the WHERE). */
function equalities(node: OperationNode | undefined, found = new Map<string, string>()): Map<string, string> {
  if (node === undefined) return found;
  if (node.kind === 'ParensNode') return equalities((node as unknown as { node: OperationNode }).node, found);
  if (node.kind === 'AndNode') {
    const and = node as unknown as { left: OperationNode; right: OperationNode };
    return equalities(and.right, equalities(and.left, found));
  }
  if (node.kind !== 'BinaryOperationNode') return found;
  const { leftOperand, operator, rightOperand } = node as unknown as {
    leftOperand: OperationNode;
    operator: { operator?: string };
    rightOperand: { kind: string; value?: unknown };
  };
  const column = columnName(leftOperand);
  const value = rightOperand.value;
  if (
    column !== null &&
    operator.operator === '=' &&
    rightOperand.kind === 'ValueNode' &&
    (typeof value === 'number' || typeof value === 'string') &&
    !/\s/.test(String(value))
  ) {
    found.set(column, String(value));
  }
  return found;
}

function columnName(node: OperationNode): string | null {
  const column = node.kind === 'ReferenceNode' ? (node as unknown as { column: OperationNode }).column : node;
  if (column.kind !== 'ColumnNode') return null;
  return (column as unknown as { column: { name: string } }).column.name;
}

/** A raw statement that writes to a cached table drops all of that table (nothing in src writes so today). */
function rawKeys(text: string): Invalidation[] {
  if (!/\b(update|delete|insert|replace|truncate|merge)\b/i.test(text)) return [];
  return (Object.keys(TABLES) as Watched[])
    .filter((table) => new RegExp(`\\b${table}\\b`, 'i').test(text))
    .map((table) => `${TABLES[table].prefix}*`);
}

/** One message per statement (or transaction): keys joined by spaces (none contains one). */
export function encode(keys: readonly Invalidation[]): string {
  return [...new Set(keys)].join(' ');
}

export function decode(payload: string): Invalidation[] {
  return payload.split(' ').filter(Boolean);
}
