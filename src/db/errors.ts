/**
 * Recognises a unique-constraint violation in either dialect: better-sqlite3 reports
 * SQLITE_CONSTRAINT_UNIQUE, PostgreSQL SQLSTATE 23505 (unique_violation). Use cases that rely on a
 * unique index for correctness under concurrency ("read, then insert" can race) turn it into a value.
 */
export function isUniqueViolation(error: unknown): boolean {
  if (error === null || typeof error !== 'object' || !('code' in error)) return false;
  const code = (error as { code: unknown }).code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505';
}
