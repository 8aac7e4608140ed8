import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OWASP_ARGON2ID } from '../../src/auth/passwords/passwords.ts';
import { requestToken } from '../helpers/api.ts';
import { describeApp } from '../helpers/app.ts';

const PAIRS = 30;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return (sorted[Math.floor((sorted.length - 1) / 2)]! + sorted[Math.ceil((sorted.length - 1) / 2)]!) / 2;
};

/**
 * No user enumeration through POST /api/tokens: an unknown e-mail costs a full argon2id verification
 * (against a dummy hash), like a wrong password does. The median gap within interleaved pairs, loosely
 * bounded, so a busy machine slows both sides alike instead of failing the test.
 */
await describeApp(
  'POST /api/tokens timing: unknown e-mail ≈ wrong password',
  (ctx) => {
    test(`over ${PAIRS} interleaved pairs the median gap is within 15 ms (or 25 % under load)`, async (t) => {
      const { app, createUser } = ctx();
      const user = await createUser();
      const wrong = (i: number) =>
        requestToken(app, { email: user.email, password: `wrong-${i}`, device_name: 'x' }, `10.9.${i}.1`);
      const unknown = (i: number) =>
        requestToken(
          app,
          { email: `nobody-${i}@example.com`, password: `wrong-${i}`, device_name: 'x' },
          `10.9.${i}.2`,
        );
      const timed = async (run: () => Promise<{ statusCode: number; body: string }>) => {
        const started = performance.now();
        const response = await run();
        const elapsed = performance.now() - started;
        assert.equal(response.statusCode, 401);
        return { elapsed, body: response.body };
      };

      // Warm-up: the dummy hash is made on first use, and the first queries prepare statements.
      for (let i = 0; i < 3; i++) {
        await timed(() => wrong(200 + i));
        await timed(() => unknown(200 + i));
      }
      const wrongTimes: number[] = [];
      const unknownTimes: number[] = [];
      const pairGaps: number[] = [];
      for (let i = 0; i < PAIRS; i++) {
        // Alternate which goes first, so drift in machine load falls on both sides.
        const order = i % 2 === 0 ? [wrong, unknown] : [unknown, wrong];
        const pair = new Map<typeof wrong, number>();
        for (const run of order) {
          const { elapsed, body } = await timed(() => run(i));
          assert.equal(body, '{"message":"The provided credentials are incorrect."}');
          pair.set(run, elapsed);
        }
        wrongTimes.push(pair.get(wrong)!);
        unknownTimes.push(pair.get(unknown)!);
        pairGaps.push(pair.get(unknown)! - pair.get(wrong)!);
      }
      // The median of the gaps within pairs (two requests a few milliseconds apart meet the same load):
      // a burst of other work on a busy machine hits one request of a pair and moves that pair's gap,
      // not the median. The medians of each side alone did move: in a CI run beside two other suites one
      // request in three took 100-240 ms instead of 15-50, and the two medians came out 46 and 104 ms.
      const gap = Math.abs(median(pairGaps));
      t.diagnostic(
        `median wrong password ${median(wrongTimes).toFixed(1)} ms, unknown e-mail ${median(unknownTimes).toFixed(1)} ms, median pair gap ${median(pairGaps).toFixed(1)} ms`,
      );
      // 15 ms on a quiet machine; when other work slows every hash down, a quarter of the slower median.
      // Either way far below what skipping the dummy verification would show (the whole hash time).
      const bound = Math.max(15, 0.25 * Math.max(median(wrongTimes), median(unknownTimes)));
      assert.ok(
        gap < bound,
        `median pair gap ${median(pairGaps).toFixed(1)} ms (wrong password ${median(wrongTimes).toFixed(1)} ms, unknown e-mail ${median(unknownTimes).toFixed(1)} ms)`,
      );
      // Both really spend a verification: far above a bare database lookup.
      assert.ok(median(unknownTimes) > 3, `unknown e-mail took only ${median(unknownTimes).toFixed(1)} ms`);
    });
  },
  // More wrong passwords for one account than docs/security.md's per-account limit allows: lifted, as in
  // test/security/enumeration-timing.test.ts, so the timing of the checks is what is measured.
  // At the real argon2id cost: what it costs is what is compared.
  { env: { API_RATE_LIMIT: '0', ACCOUNT_MAX_FAILURES: '100000' }, argon2: OWASP_ARGON2ID },
);
