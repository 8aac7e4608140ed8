import type { Argon2Params } from './passwords.ts';

/**
 * When is a stored password hash "weaker than the configured argon2id", so that the next successful
 * login replaces it? Imported Laravel hashes come in four forms — bcrypt `$2y$`, PHP's argon2i and
 * argon2id (Laravel's defaults: m=65536 KiB, t=4, p=1) — and an upgrade must never make one weaker.
 *
 * A stored hash is AS STRONG as the configuration, and kept, exactly when it is
 *   argon2id, version 1.3 (v=19), with memory ≥ the configured memory and passes ≥ the configured passes.
 * Everything else is weaker and is replaced:
 *   - bcrypt of any cost: not memory-hard, so GPUs try it far faster than argon2id at any setting;
 *   - argon2i: weaker by type (time-memory trade-off attacks cut its cost; argon2id resists them);
 *   - argon2d: weaker by type (its memory access depends on the password: a side channel);
 *   - argon2 version 1.0 (v=16): the older, weaker compression;
 *   - argon2id with less memory or fewer passes than configured.
 * Parallelism (p) is not compared: lanes split the same memory, so it changes the defender's speed,
 * not an attacker's cost per guess.
 *
 * The replacement never has less memory or fewer passes than the hash it replaces: its parameters are
 * the larger of the configured and the old ones, component by component. So a Laravel argon2i hash
 * at m=65536,t=4 becomes argon2id at m=65536,t=4, not the configured m=19456,t=2; an argon2id hash
 * at m=65536,t=1 becomes m=65536,t=2.
 */
export function isAsStrong(stored: string, target: Argon2Params): boolean {
  const found = parseArgon2(stored);
  return (
    found !== null &&
    found.type === 'argon2id' &&
    found.version === 19 &&
    found.memoryCost >= target.memoryCost &&
    found.timeCost >= target.timeCost
  );
}

/** The parameters a weaker hash is replaced with (see above). */
export function upgradedParams(stored: string, target: Argon2Params): Argon2Params {
  const found = parseArgon2(stored);
  if (found === null) return target;
  return {
    memoryCost: Math.max(target.memoryCost, found.memoryCost),
    timeCost: Math.max(target.timeCost, found.timeCost),
    parallelism: target.parallelism,
  };
}

export interface Argon2Settings extends Argon2Params {
  readonly type: 'argon2i' | 'argon2d' | 'argon2id';
  readonly version: number;
}

/**
 * The settings of a PHC-format argon2 string (`$argon2id$v=19$m=65536,t=4,p=1$salt$hash`, as PHP,
 * libargon2 and @node-rs/argon2 write it); a missing `v=` means version 1.0 (16). Null for anything else.
 */
export function parseArgon2(stored: string): Argon2Settings | null {
  const match =
    /^\$(argon2id|argon2i|argon2d)\$(?:v=(\d{1,3})\$)?m=(\d{1,10}),t=(\d{1,10}),p=(\d{1,3})\$/.exec(stored);
  if (match === null) return null;
  return {
    type: match[1] as Argon2Settings['type'],
    version: match[2] === undefined ? 16 : Number(match[2]),
    memoryCost: Number(match[3]),
    timeCost: Number(match[4]),
    parallelism: Number(match[5]),
  };
}

/**
 * The most a stored argon2 hash may ask of one password check (docs/guides/moving-from-laravel.md). Every
 * check holds one of the HASH_CONCURRENCY hashing threads, and that much memory, for its whole cost: a hash
 * made with absurd parameters — imported from a Laravel database, or written to ours by hand — would hold
 * a thread for minutes (4 GiB × 100 passes) at every login attempt for that address, and a few such
 * addresses would stall every login queued behind them. The bounds leave room for every setting PHP and
 * Laravel users choose in practice:
 *   - memory ≤ 262,144 KiB (256 MiB), four times Laravel's default of 64 MiB: held per thread while it works;
 *   - passes ≤ 16, four times Laravel's default of 4;
 *   - memory × passes ≤ 1,048,576 KiB·passes, four times the work of Laravel's default (64 MiB × 4, about
 *     half a second on one core): no check costs more than about two seconds;
 *   - lanes (p) ≤ 16: PHP's default is 1; lanes beyond the cores only slow the check down.
 * The configured parameters are always within them (OWASP's m=19 MiB, t=2, p=1).
 */
export const ARGON2_BOUNDS = { memoryCost: 262_144, timeCost: 16, work: 1_048_576, parallelism: 16 } as const;

/** The bounds as the import reports them. */
export const ARGON2_BOUNDS_TEXT = `memory ≤ ${ARGON2_BOUNDS.memoryCost} KiB, passes ≤ ${ARGON2_BOUNDS.timeCost}, memory × passes ≤ ${ARGON2_BOUNDS.work}, lanes ≤ ${ARGON2_BOUNDS.parallelism}`;

/** False for an argon2 hash beyond ARGON2_BOUNDS; true for anything else (other forms are judged elsewhere). */
export function withinArgon2Bounds(stored: string): boolean {
  const found = parseArgon2(stored);
  return (
    found === null ||
    (found.memoryCost <= ARGON2_BOUNDS.memoryCost &&
      found.timeCost <= ARGON2_BOUNDS.timeCost &&
      found.memoryCost * found.timeCost <= ARGON2_BOUNDS.work &&
      found.parallelism <= ARGON2_BOUNDS.parallelism)
  );
}
