import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { hashPool } from '../../src/auth/passwords/hash-pool.ts';

const FAST = { algorithm: 2, memoryCost: 1024, timeCost: 1, parallelism: 1 };

test('runs more jobs than threads, in any mix, and survives a failing job', async () => {
  const pool = hashPool(2);
  const hashes = (await Promise.all(
    Array.from({ length: 6 }, (_, i) => pool.run({ op: 'argon2.hash', password: `pw${i}`, options: FAST })),
  )) as string[];
  assert.equal(new Set(hashes).size, 6);
  await assert.rejects(pool.run({ op: 'argon2.verify', hash: '$argon2id$garbage', password: 'x' }));
  const checks = await Promise.all(
    hashes.map((hash, i) => pool.run({ op: 'argon2.verify', hash, password: i === 0 ? 'wrong' : `pw${i}` })),
  );
  assert.deepEqual(checks, [false, true, true, true, true, true]);
});

// Token checks must keep the CPU during a flood of logins: the hashing threads run at nice 10.
test('hashing threads run at a lower scheduling priority (Linux)', {
  skip: !existsSync('/proc/self/task'),
}, async () => {
  await hashPool(1).run({ op: 'argon2.hash', password: 'pw', options: FAST });
  const nice = (tid: string) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  };
  const values = readdirSync('/proc/self/task').map(nice);
  assert.equal(nice(String(process.pid)), 0, 'the event loop keeps normal priority');
  assert.ok(values.includes(10), `no thread at nice 10: ${values.join(' ')}`);
});
