/**
 * Recognises a unique-constraint violation in every dialect: better-sqlite3 reports
 * SQLITE_CONSTRAINT_UNIQUE (SQLITE_CONSTRAINT_PRIMARYKEY for a primary key), PostgreSQL SQLSTATE 23505
 * (unique_violation), mysql2 ER_DUP_ENTRY (error 1062, for unique and primary keys alike). Use cases
 * that rely on a unique index for correctness under concurrency ("read, then insert" can race) turn
 * it into a value.
 */
export function isUniqueViolation(error: unknown): boolean {
  if (error === null || typeof error !== 'object' || !('code' in error)) return false;
  const code = (error as { code: unknown }).code;
  return (
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    code === '23505' ||
    code === 'ER_DUP_ENTRY'
  );
}
