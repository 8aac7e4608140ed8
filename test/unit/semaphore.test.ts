import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Semaphore } from '../../src/lib/semaphore.ts';

test('a released slot goes to the longest waiter, never to a newcomer, so the limit holds', async () => {
  const semaphore = new Semaphore(1);
  let running = 0;
  let most = 0;
  const order: string[] = [];
  let third: Promise<void> | undefined;
  const job = (name: string, last?: () => void) =>
    semaphore.run(async () => {
      running++;
      most = Math.max(most, running);
      order.push(name);
      await new Promise((resolve) => setImmediate(resolve));
      running--;
      last?.();
    });
  // "c" arrives in the instant between "a" releasing its slot and "b" (already waiting) resuming:
  // two microtask hops after "a" returns is right after its release and before b's continuation.
  const first = job('a', () => queueMicrotask(() => queueMicrotask(() => (third = job('c')))));
  const second = job('b');
  assert.equal(semaphore.pending, 1);
  await Promise.all([first, second]);
  await third;
  assert.equal(most, 1);
  assert.deepEqual(order, ['a', 'b', 'c']);
  assert.equal(semaphore.active, 0);
});

test('up to the limit run at once; a failing job frees its slot', async () => {
  const semaphore = new Semaphore(2);
  let running = 0;
  let most = 0;
  const jobs = Array.from({ length: 10 }, (_, i) =>
    semaphore.run(async () => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 2));
      running--;
      if (i % 3 === 0) throw new Error(`job ${i}`);
      return i;
    }),
  );
  const results = await Promise.allSettled(jobs);
  assert.equal(most, 2);
  assert.equal(results.filter((r) => r.status === 'rejected').length, 4);
  assert.equal(semaphore.active, 0);
  assert.equal(semaphore.pending, 0);
});
