import { spawnSync } from 'node:child_process';
import { requireServices } from './databases.ts';

/**
 * PHP's own functions (Debian's php-cli), so hashes and token rows in tests are made exactly the way a
 * Laravel application makes them, not by our idea of it. `.ci/run` installs php-cli.
 */
export const phpAvailable = spawnSync('php', ['-r', 'echo PHP_VERSION;'], { encoding: 'utf8' }).status === 0;

/** Skip reason for suites that need PHP; throws under REQUIRE_SERVICES=1. */
export function phpSkip(): string | false {
  if (phpAvailable) return false;
  if (requireServices) throw new Error('php-cli is required (REQUIRE_SERVICES=1) but `php` does not run');
  return 'php-cli not installed';
}

/**
 * Runs `code` with `php -r`; `$in` holds `input` (JSON-decoded as arrays), and whatever the code
 * assigns to `$out` comes back JSON-decoded.
 */
export function php<T>(code: string, input: unknown = null): T {
  const script = `$in = json_decode(stream_get_contents(STDIN), true); ${code}; echo json_encode($out);`;
  const result = spawnSync('php', ['-r', script], { input: JSON.stringify(input), encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`php failed: ${result.stderr || result.stdout}`);
  return JSON.parse(result.stdout) as T;
}

/** Laravel's hashing defaults (config/hashing.php): bcrypt rounds, and argon memory/time/threads. */
export const LARAVEL_ARGON = { memory: 65536, time: 4, threads: 1 };

export type LaravelHashForm = 'bcrypt' | 'argon2i' | 'argon2id';

/**
 * `Hash::make($password)` for each form: PHP's password_hash with PASSWORD_BCRYPT (→ `$2y$`,
 * `rounds` as Laravel's BCRYPT_ROUNDS) or PASSWORD_ARGON2I / PASSWORD_ARGON2ID with Laravel's options.
 */
export function laravelHashes(
  passwords: readonly { password: string; form: LaravelHashForm }[],
  rounds = 10,
): string[] {
  return php<string[]>(
    `$out = array_map(function ($p) {
       $argon = ['memory_cost' => ${LARAVEL_ARGON.memory}, 'time_cost' => ${LARAVEL_ARGON.time}, 'threads' => ${LARAVEL_ARGON.threads}];
       switch ($p['form']) {
         case 'bcrypt': return password_hash($p['password'], PASSWORD_BCRYPT, ['cost' => ${rounds}]);
         case 'argon2i': return password_hash($p['password'], PASSWORD_ARGON2I, $argon);
         case 'argon2id': return password_hash($p['password'], PASSWORD_ARGON2ID, $argon);
       }
     }, $in)`,
    passwords,
  );
}

export type SanctumTokenForm = 'legacy' | 'checksum';

/**
 * A personal access token the way Laravel Sanctum creates one (HasApiTokens::createToken):
 * - `legacy` (Sanctum before 3.3): Str::random(40);
 * - `checksum` (3.3 and later): config('sanctum.token_prefix') . Str::random(40) . hash('crc32b', entropy).
 * The row stores hash('sha256', $plainTextToken); the client gets "<id>|<plainTextToken>" once the row
 * has its id. Str::random draws from [A-Za-z0-9]. Returns the secret and its stored hash.
 */
export function sanctumSecrets(
  tokens: readonly { form: SanctumTokenForm; prefix?: string }[],
): { secret: string; hash: string }[] {
  return php<{ secret: string; hash: string }[]>(
    `$random = function () {
       $pool = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
       $s = '';
       for ($i = 0; $i < 40; $i++) $s .= $pool[random_int(0, 61)];
       return $s;
     };
     $out = array_map(function ($t) use ($random) {
       $entropy = $random();
       $secret = $t['form'] === 'legacy' ? $entropy : ($t['prefix'] ?? '') . $entropy . hash('crc32b', $entropy);
       return ['secret' => $secret, 'hash' => hash('sha256', $secret)];
     }, $in)`,
    tokens,
  );
}
