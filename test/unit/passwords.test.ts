import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { deviceCookies } from '../../src/auth/login/device-cookies.ts';
import { attemptLogin } from '../../src/auth/login/login.ts';
import { isAsStrong, parseArgon2, upgradedParams } from '../../src/auth/passwords/password-strength.ts';
import { createPasswordHasher, OWASP_ARGON2ID } from '../../src/auth/passwords/passwords.ts';
import { memoryRateLimitStore, RateLimiter } from '../../src/auth/throttle/rate-limiter.ts';
import { openDatabase } from '../../src/db/connection.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import { fakeClock } from '../../src/lib/clock.ts';
import { databaseUserProvider, userFinder } from '../../src/users/user-provider.ts';
import { laravelHashes, phpSkip } from '../helpers/php.ts';
import { insertUserRow } from '../helpers/users.ts';

/** The hash Laravel's UserFactory shipped for years: bcrypt cost 10 of "password", in PHP's $2y$ form. */
const LARAVEL_HASH = '$2y$10$92IXUNpkjO0rOQ5byMi.Ye4oKoEa3Ro9llC/.og/at2.uheWG/igi';
const ARGON2ID_PREFIX = '$argon2id$v=19$m=19456,t=2,p=1$';

const hasher = createPasswordHasher(2);

describe('password hasher', () => {
  test('hashes with argon2id at the OWASP parameters (m=19456 KiB, t=2, p=1)', async () => {
    assert.deepEqual(OWASP_ARGON2ID, { memoryCost: 19456, timeCost: 2, parallelism: 1 });
    const hash = await hasher.hash('correct horse');
    assert.ok(hash.startsWith(ARGON2ID_PREFIX), hash);
    assert.notEqual(await hasher.hash('correct horse'), hash, 'each hash has its own salt');
    assert.equal(await hasher.verify(hash, 'correct horse'), true);
    assert.equal(await hasher.verify(hash, 'correct horsE'), false);
    assert.equal(hasher.needsRehash(hash), false);
  });

  test('verifies Laravel bcrypt hashes ($2y$ and $2b$) and asks for a rehash', async () => {
    assert.equal(await hasher.verify(LARAVEL_HASH, 'password'), true);
    assert.equal(await hasher.verify(LARAVEL_HASH, 'Password'), false);
    assert.equal(await hasher.verify(`$2b$${LARAVEL_HASH.slice(4)}`, 'password'), true);
    assert.equal(hasher.needsRehash(LARAVEL_HASH), true);
  });

  test('other argon2 variants or parameters need a rehash', async () => {
    const weaker = createPasswordHasher(1, { memoryCost: 1024, timeCost: 1, parallelism: 1 });
    const hash = await weaker.hash('pw');
    assert.equal(await hasher.verify(hash, 'pw'), true, 'old hashes keep working');
    assert.equal(hasher.needsRehash(hash), true);
    assert.equal(hasher.needsRehash(hash.replace('$argon2id$', '$argon2i$')), true);
  });

  test('malformed stored hashes are a failed verification, never an exception', async () => {
    for (const stored of [
      '',
      'password',
      '$2y$10$short',
      '$argon2id$garbage',
      `${LARAVEL_HASH}x`,
      '$1$md5',
    ]) {
      assert.equal(await hasher.verify(stored, 'password'), false, stored);
    }
  });

  test('burn() spends a verification and resolves', async () => {
    await hasher.burn('whatever');
    const started = performance.now();
    await hasher.burn('whatever');
    // One argon2id verification at m=19 MiB cannot be free: it takes milliseconds, not microseconds.
    assert.ok(performance.now() - started > 2);
  });
});

const SALT_AND_TAG = '$c29tZXNhbHRzb21lc2FsdA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const argon = (head: string) => `${head}${SALT_AND_TAG}`;

describe('"weaker than the configured argon2id" (password-strength.ts)', () => {
  const target = OWASP_ARGON2ID; // m=19456, t=2, p=1

  test('argon2id v1.3 with at least the configured memory and passes is as strong, and kept', () => {
    for (const head of [
      '$argon2id$v=19$m=19456,t=2,p=1', // exactly the configuration
      '$argon2id$v=19$m=65536,t=4,p=1', // Laravel's argon2id defaults: stronger on both counts
      '$argon2id$v=19$m=19456,t=3,p=4', // parallelism is not compared
      '$argon2id$v=19$m=19456,t=2,p=8',
    ]) {
      assert.equal(isAsStrong(argon(head), target), true, head);
      assert.equal(hasher.needsRehash(argon(head)), false, head);
    }
  });

  test('everything else is weaker: less memory, fewer passes, argon2i/argon2d, version 1.0, bcrypt, unknown', () => {
    for (const stored of [
      argon('$argon2id$v=19$m=19455,t=2,p=1'), // one KiB less memory
      argon('$argon2id$v=19$m=65536,t=1,p=1'), // more memory does not buy back a missing pass
      argon('$argon2i$v=19$m=65536,t=4,p=1'), // Laravel's argon2i: weaker by type, whatever its cost
      argon('$argon2d$v=19$m=65536,t=4,p=1'),
      argon('$argon2id$v=16$m=65536,t=4,p=1'),
      argon('$argon2id$m=65536,t=4,p=1'), // no v= means version 1.0
      LARAVEL_HASH,
      `$2b$${LARAVEL_HASH.slice(4)}`,
      '$2y$14$abcdefghijklmnopqrstuuABCDEFGHIJKLMNOPQRSTUVWXYZ01234', // bcrypt of any cost
      'plain text',
      '',
    ]) {
      assert.equal(isAsStrong(stored, target), false, stored);
      assert.equal(hasher.needsRehash(stored), true, stored);
    }
  });

  test('the replacement never has less memory or fewer passes than the old hash', () => {
    const params = (stored: string) => upgradedParams(stored, target);
    assert.deepEqual(params(argon('$argon2i$v=19$m=65536,t=4,p=1')), {
      memoryCost: 65536,
      timeCost: 4,
      parallelism: 1,
    });
    assert.deepEqual(params(argon('$argon2id$v=19$m=65536,t=1,p=2')), {
      memoryCost: 65536,
      timeCost: 2,
      parallelism: 1,
    });
    assert.deepEqual(params(argon('$argon2id$v=19$m=4096,t=3,p=1')), {
      memoryCost: 19456,
      timeCost: 3,
      parallelism: 1,
    });
    assert.deepEqual(params(LARAVEL_HASH), target);
  });

  test('parseArgon2 reads PHC strings and nothing else', () => {
    assert.deepEqual(parseArgon2(argon('$argon2id$v=19$m=65536,t=4,p=1')), {
      type: 'argon2id',
      version: 19,
      memoryCost: 65536,
      timeCost: 4,
      parallelism: 1,
    });
    assert.equal(parseArgon2(argon('$argon2x$v=19$m=1,t=1,p=1')), null);
    assert.equal(parseArgon2('$argon2id$v=19$m=,t=1,p=1$x$y'), null);
    assert.equal(parseArgon2(LARAVEL_HASH), null);
  });
});

describe('hashes made by PHP the way Laravel makes them', { skip: phpSkip() }, () => {
  const [bcrypt10, bcrypt12] = [10, 12].map(
    (rounds) => laravelHashes([{ password: 'secret pw', form: 'bcrypt' }], rounds)[0]!,
  );
  const [argon2i, argon2id] = laravelHashes([
    { password: 'secret pw', form: 'argon2i' },
    { password: 'secret pw', form: 'argon2id' },
  ]) as [string, string];

  test('PHP writes the forms we expect ($2y$, argon2i/argon2id at m=65536,t=4,p=1)', () => {
    assert.match(bcrypt10!, /^\$2y\$10\$/);
    assert.match(bcrypt12!, /^\$2y\$12\$/);
    assert.match(argon2i, /^\$argon2i\$v=19\$m=65536,t=4,p=1\$/);
    assert.match(argon2id, /^\$argon2id\$v=19\$m=65536,t=4,p=1\$/);
  });

  test('every form verifies with the right password only', async () => {
    for (const stored of [bcrypt10!, bcrypt12!, `$2b$${bcrypt10!.slice(4)}`, argon2i, argon2id]) {
      assert.equal(await hasher.verify(stored, 'secret pw'), true, stored);
      assert.equal(await hasher.verify(stored, 'secret pW'), false, stored);
    }
  });

  test('bcrypt and argon2i are rehashed, Laravel argon2id is kept (not "upgraded" to less memory)', async () => {
    assert.equal(hasher.needsRehash(bcrypt12!), true);
    assert.equal(hasher.needsRehash(argon2i), true);
    assert.equal(hasher.needsRehash(argon2id), false);
    const fromArgon2i = await hasher.rehash(argon2i, 'secret pw');
    assert.match(fromArgon2i, /^\$argon2id\$v=19\$m=65536,t=4,p=1\$/);
    assert.equal(await hasher.verify(fromArgon2i, 'secret pw'), true);
    const fromBcrypt = await hasher.rehash(bcrypt10!, 'secret pw');
    assert.ok(fromBcrypt.startsWith(ARGON2ID_PREFIX), fromBcrypt);
    assert.equal(hasher.needsRehash(fromBcrypt), false);
  });
});

describe('rehash on login (attemptLogin)', () => {
  const database = openDatabase({ dialect: 'sqlite', filename: ':memory:' });
  const clock = fakeClock(Date.UTC(2026, 0, 1));
  const limiter = new RateLimiter(memoryRateLimitStore(clock));
  const deps = {
    db: database.db,
    hasher,
    throttle: {
      limiter,
      perClient: { max: 5, windowSeconds: 60 },
      perAccount: { max: 20, windowSeconds: 900 },
    },
    devices: deviceCookies(Buffer.alloc(32, 1)),
  };
  const provider = databaseUserProvider(userFinder(database.db));
  let userId = 0;

  before(async () => {
    await migrateToLatest(database.db);
    userId = await insertUserRow(database.db, {
      name: 'Imported',
      email: 'imported@example.com',
      passwordHash: LARAVEL_HASH,
      now: clock.now(),
    });
  });
  after(async () => {
    await limiter.store.close();
    await database.close();
  });

  const storedHash = async () =>
    (
      await database.db
        .selectFrom('users')
        .select('password')
        .where('id', '=', userId)
        .executeTakeFirstOrThrow()
    ).password;
  const login = (password: string) =>
    attemptLogin(
      deps,
      provider,
      'api',
      { email: 'Imported@Example.com', password },
      { ip: '10.0.0.1', now: clock.now() },
    );

  test('a wrong password leaves the bcrypt hash alone', async () => {
    assert.equal((await login('not the password')).status, 'failed');
    assert.equal(await storedHash(), LARAVEL_HASH);
  });

  test('the first successful login replaces the bcrypt hash with argon2id', async () => {
    const result = await login('password');
    assert.equal(result.status, 'ok');
    const upgraded = await storedHash();
    assert.ok(upgraded.startsWith(ARGON2ID_PREFIX), upgraded);
    assert.equal(await hasher.verify(upgraded, 'password'), true);
  });

  test('later logins verify against argon2id and keep the hash', async () => {
    const before = await storedHash();
    assert.equal((await login('password')).status, 'ok');
    assert.equal(await storedHash(), before);
    assert.equal((await login('wrong')).status, 'failed');
  });
});
