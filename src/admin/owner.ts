import { firstSubjectOf } from '../audit/audit.repository.ts';
import type { Db } from '../db/schema.ts';

/**
 * The owner of a Gatehouse installation (docs/security.md): the first admin `make:admin` created — the
 * subject of the earliest `admin.created` audit row. Audit rows are never deleted, and the panel
 * refuses to delete the owner, so the answer cannot drift. This is the one place that decides; a
 * stored owner flag would replace this function only.
 */
export function ownerId(db: Db): Promise<number | null> {
  return firstSubjectOf(db, 'admin.created');
}
