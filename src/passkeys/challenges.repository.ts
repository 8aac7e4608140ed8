import type { Db } from '../db/schema.ts';
import type { ChallengePurpose, PasskeyChallengesTable } from './passkeys.table.ts';

/**
 * Stores a new challenge. Expired challenges are deleted on the way (an indexed range delete): the table
 * holds at most the last few minutes of ceremonies, with no job needed to prune it.
 */
export async function insertChallenge(db: Db, row: PasskeyChallengesTable, now: number): Promise<void> {
  await db.deleteFrom('passkey_challenges').where('expires_at', '<=', now).execute();
  await db.insertInto('passkey_challenges').values(row).execute();
}

/**
 * Spends a challenge: one conditional DELETE of the row that matches the hash, the browser session, the
 * purpose (and the user, for a registration) and has not expired. Of any number of concurrent uses of
 * one challenge, on any instance, exactly one deletes the row and gets true.
 */
export async function deleteLiveChallenge(
  db: Db,
  match: {
    challengeHash: string;
    sessionBinding: string;
    purpose: ChallengePurpose;
    userId: number | null;
  },
  now: number,
): Promise<boolean> {
  const result = await db
    .deleteFrom('passkey_challenges')
    .where('challenge_hash', '=', match.challengeHash)
    .where('session_binding', '=', match.sessionBinding)
    .where('purpose', '=', match.purpose)
    .where('user_id', match.userId === null ? 'is' : '=', match.userId)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return result.numDeletedRows === 1n;
}
