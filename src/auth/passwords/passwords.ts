import { randomToken } from '../../lib/crypto.ts';
import { Semaphore } from '../../lib/semaphore.ts';
import { NO_PASSWORD } from '../../users/user.ts';
import { hashPool } from './hash-pool.ts';
import { isAsStrong, upgradedParams, withinArgon2Bounds } from './password-strength.ts';

/** A password check's answer: `rehash` is a right password whose stored hash should be replaced now. */
export type PasswordMatch = 'wrong' | 'ok' | 'rehash';

/**
 * Every method takes the password as typed and NFKC-normalises it first (docs/security.md): "é" typed
 * composed or decomposed, a full-width "Ａ" or the "ﬁ" ligature some keyboards and password managers
 * produce must be the same password everywhere, or a user is locked out by a device change.
 */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** False for a wrong password or a malformed hash; never throws for bad input. */
  verify(hash: string, password: string): Promise<boolean>;
  /**
   * verify, telling a login whether to replace the hash while it holds the plaintext: when it is weaker
   * than configured (needsRehash), or was made of the un-normalised password before normalisation.
   */
  check(hash: string, password: string): Promise<PasswordMatch>;
  /** True when the stored hash is weaker than the configured argon2id (password-strength.ts says when). */
  needsRehash(hash: string): boolean;
  /** A new hash of `password` to replace `stored`: argon2id, never less memory or fewer passes than `stored`. */
  rehash(stored: string, password: string): Promise<string>;
  /** Spends the time of one verification against a hash nobody has, so unknown accounts cost the same. */
  burn(password: string): Promise<void>;
  /** How many hashes and checks are waiting for a thread now (gatehouse_password_hash_queue). */
  queued(): number;
  /** True when a new check would be refused (HashQueueFullError): HASH_QUEUE_MAX are waiting. */
  saturated(): boolean;
}

/** Seconds a refused check is told to wait: a full queue of OWASP-cost checks drains in about one. */
export const HASH_QUEUE_RETRY_AFTER_SECONDS = 1;

/**
 * A password check refused because HASH_QUEUE_MAX checks are already waiting for a hashing thread
 * (docs/security.md: 503 with Retry-After). Turned into HTTP in one place, http/plugins/errors.ts.
 */
export class HashQueueFullError extends Error {
  readonly code = 'GH_HASH_QUEUE_FULL';
  readonly retryAfterSeconds = HASH_QUEUE_RETRY_AFTER_SECONDS;
  constructor() {
    super('Too many password checks are waiting');
  }
}

export interface Argon2Params {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/** OWASP Password Storage Cheat Sheet, argon2id option 2: m=19 MiB, t=2, p=1. */
export const OWASP_ARGON2ID: Argon2Params = { memoryCost: 19456, timeCost: 2, parallelism: 1 };

const OWASP_PREFIX = '$argon2id$v=19$m=19456,t=2,p=1$';
/**
 * argon2id (OWASP parameters) of 32 random bytes that were thrown away when it was made: nobody holds
 * its password, and verifying against it costs exactly what verifying a real user's hash costs.
 */
const OWASP_DUMMY_HASH =
  '$argon2id$v=19$m=19456,t=2,p=1$A5B4aYJPnnlgcaEJHjKcag$k2fIASHvbm5HcF9CUgOwG+GTCjsVkOLR+jFbp9O57Ts';

/**
 * argon2id hashing on low-priority threads (never on the event loop, see hash-pool.ts), at most
 * `concurrency` at once: a flood of logins then queues here instead of taking the CPU from token checks.
 * The queue of password CHECKS is bounded by `maxWaiting` (HASH_QUEUE_MAX): past it a check is refused
 * at once, so a flood costs the attacker a quick 503 instead of costing every legitimate login seconds
 * of waiting. New-password hashes (registration, reset, change) are never refused: they are rare,
 * behind the per-IP budget or a session, and refusing one would lose a form the user filled in.
 */
export function createPasswordHasher(
  concurrency: number,
  params: Argon2Params = OWASP_ARGON2ID,
  maxWaiting: number = Number.POSITIVE_INFINITY,
): PasswordHasher {
  const pool = new Semaphore(concurrency);
  const threads = hashPool(concurrency);
  // 2 = Algorithm.Argon2id (a const enum, which isolated modules cannot import).
  const argon2Hash = (password: string, with_: Argon2Params = params) =>
    threads.run({ op: 'argon2.hash', password, options: { algorithm: 2, ...with_ } }) as Promise<string>;
  const prefix = `$argon2id$v=19$m=${params.memoryCost},t=${params.timeCost},p=${params.parallelism}$`;
  // Ready before the first unknown e-mail: made on first use, that request would cost a hash plus a
  // verification and stand out from a wrong password.
  let dummy: Promise<string> | undefined =
    prefix === OWASP_PREFIX ? Promise.resolve(OWASP_DUMMY_HASH) : undefined;

  const saturated = () => pool.pending >= maxWaiting;
  const verifyExactly = async (stored: string, password: string): Promise<boolean> => {
    try {
      if (stored.startsWith('$argon2')) {
        // A hash beyond the bounds would hold a hashing thread for minutes: never computed, a wrong password.
        if (!withinArgon2Bounds(stored)) return false;
        return (await pool.run(() => threads.run({ op: 'argon2.verify', hash: stored, password }))) === true;
      }
      if (/^\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$/.test(stored)) {
        // Laravel writes $2y$; it is the same algorithm as $2b$, which the binding expects.
        const normalised = `$2b$${stored.slice(4)}`;
        return (
          (await pool.run(() => threads.run({ op: 'bcrypt.verify', hash: normalised, password }))) === true
        );
      }
      return false;
    } catch {
      return false;
    }
  };

  const needsRehash = (stored: string) => !isAsStrong(stored, params);
  /**
   * The normalised form first (every hash made since is of that form); the raw form only when it
   * differs, for a hash made before passwords were normalised — which is then replaced (`rehash`).
   */
  const dummyHash = () => {
    dummy ??= pool.run(() => argon2Hash(randomToken()));
    return dummy;
  };
  const check = async (stored: string, password: string): Promise<PasswordMatch> => {
    // Checked and queued in the same tick: no other check can slip in between and exceed the bound.
    if (saturated()) throw new HashQueueFullError();
    const normalised = normalisePassword(password);
    if (stored === NO_PASSWORD) {
      // An account made through a login provider has no password (docs/guides/login-providers.md).
      // It is refused only after a full verification, so its answer takes as long as a wrong password's
      // and does not tell who signs in without one.
      await verifyExactly(await dummyHash(), normalised);
      return 'wrong';
    }
    if (await verifyExactly(stored, normalised)) return needsRehash(stored) ? 'rehash' : 'ok';
    if (normalised !== password && (await verifyExactly(stored, password))) return 'rehash';
    return 'wrong';
  };

  return {
    hash: (password) => pool.run(() => argon2Hash(normalisePassword(password))),
    verify: async (stored, password) => (await check(stored, password)) !== 'wrong',
    check,
    needsRehash,
    rehash: (stored, password) =>
      pool.run(() => argon2Hash(normalisePassword(password), upgradedParams(stored, params))),
    async burn(password) {
      // The same one or two verifications a real account's check costs for this password.
      await check(await dummyHash(), password);
    },
    queued: () => pool.pending,
    saturated,
  };
}

/** NFKC (compatibility composition): the one form of a password that is hashed and checked. */
export function normalisePassword(password: string): string {
  return password.normalize('NFKC');
}
