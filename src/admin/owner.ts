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

/**
 * Whether an admin (`actorId`) may not turn off `userId`'s two-factor or remove their passkeys in the
 * panel: the owner's second factors are the owner's alone (docs/security.md "The owner"). A rogue or compromised admin account would otherwise
 * strip the owner's second factor — and, with ADMIN_REQUIRE_TWO_FACTOR, lock the owner out of the panel
 * until they enrol again. The command line (two-factor:disable) is not held back, as with every owner rule.
 */
export async function protectsOwnersSecondFactors(db: Db, userId: number, actorId: number): Promise<boolean> {
  return userId !== actorId && (await ownerId(db)) === userId;
}
