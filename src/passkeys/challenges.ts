import type { Db } from '../db/schema.ts';
import { MINUTE } from '../lib/clock.ts';
import { randomToken, sha256Hex } from '../lib/crypto.ts';
import { deleteLiveChallenge, insertChallenge } from './challenges.repository.ts';
import type { ChallengePurpose } from './passkeys.table.ts';

/** How long a ceremony may take (docs/guides/passkeys.md); also the `timeout` the browser is given. */
export const CHALLENGE_TTL_MS = 5 * MINUTE;

/** Whose challenge it is: one browser session and, for a registration, the signed-in user. */
export interface ChallengeOwner {
  /** From the browser's session cookie (BrowserSession.binding): another browser cannot spend it. */
  readonly sessionBinding: string;
  readonly purpose: ChallengePurpose;
  readonly userId: number | null;
}

/**
 * A fresh challenge (256 bits from the CSPRNG, base64url as WebAuthn's JSON carries it), stored as its
 * SHA-256 for `owner` until CHALLENGE_TTL_MS from now.
 */
export async function issueChallenge(db: Db, owner: ChallengeOwner, now: number): Promise<string> {
  const challenge = randomToken(32);
  await insertChallenge(
    db,
    {
      challenge_hash: sha256Hex(challenge),
      session_binding: owner.sessionBinding,
      purpose: owner.purpose,
      user_id: owner.userId,
      expires_at: now + CHALLENGE_TTL_MS,
    },
    now,
  );
  return challenge;
}

/**
 * Spends the challenge a response claims to answer, before anything else about the response is
 * believed: a replayed response, one made for another browser or user, or one older than five minutes
 * finds no row. Spent whatever happens next, so one challenge gets one try.
 */
export function spendChallenge(
  db: Db,
  challenge: string,
  owner: ChallengeOwner,
  now: number,
): Promise<boolean> {
  return deleteLiveChallenge(db, { challengeHash: sha256Hex(challenge), ...owner }, now);
}
