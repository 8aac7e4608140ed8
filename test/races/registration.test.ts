import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OWASP_ARGON2ID } from '../../src/auth/passwords/passwords.ts';
import { countRows, describeEachDialect } from '../helpers/app.ts';
import { auditCount, browserOn, tally } from './support.ts';

const PASSWORD = 'quiet-meadow-falcon-19';

/** Upper/lower-case variants of an address: all the same account (stored lower-cased). */
function variants(address: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) =>
    [...address].map((c, j) => (((i >> (j % 8)) & 1) === 1 ? c.toUpperCase() : c)).join(''),
  );
}

/**
 * Issue 7 §5: 50 browsers register one address at the same moment, in case variants, half through
 * the form and half as JSON. The unique index decides: exactly one account, one verification mail,
 * one audit row; every other answer is the ordinary "already taken" 422, never a 500.
 */
// At the real argon2id cost: each registration's hash is part of the window the race needs.
await describeEachDialect(
  'race: 50 concurrent registrations of one address',
  (ctx) => {
    test('exactly one account, the rest 422 "taken", no 500', async () => {
      const app = ctx();
      const address = `race.${Date.now()}@example.com`;
      const emails = variants(address, 50);
      const browsers = await Promise.all(emails.map(() => browserOn(app, '/register')));
      const usersBefore = await countRows(app.db, 'users');

      const responses = await Promise.all(
        browsers.map((browser, i) => {
          const input = {
            name: `Racer ${i}`,
            email: emails[i]!,
            password: PASSWORD,
            password_confirmation: PASSWORD,
          };
          return i % 2 === 0 ? browser.post('/register', input) : browser.postJson('/register', input);
        }),
      );
      const counts = tally(responses);
      const winners = responses.filter((r) => r.statusCode === 302 || r.statusCode === 204);
      assert.equal(winners.length, 1, JSON.stringify(counts));
      assert.equal(counts[422], 49, JSON.stringify(counts));
      for (const [i, r] of responses.entries()) {
        if (r.statusCode !== 422) continue;
        if (i % 2 === 1) assert.deepEqual(r.json().errors, { email: ['The email has already been taken.'] });
        else assert.match(r.body, /The email has already been taken\./);
      }

      assert.equal(await countRows(app.db, 'users'), usersBefore + 1);
      const user = await app.db
        .selectFrom('users')
        .selectAll()
        .where('email', '=', address)
        .executeTakeFirstOrThrow();
      const mails = await app.db
        .selectFrom('mail_outbox')
        .select('kind')
        .where('recipient', '=', address)
        .execute();
      assert.deepEqual(
        mails.map((m) => m.kind),
        ['verify-email'],
      );
      assert.equal(await auditCount(app, 'user.registered', user.id), 1);

      // The winner is logged in; the losers are not.
      const winner = browsers[responses.indexOf(winners[0]!)]!;
      assert.equal((await winner.get('/dashboard')).statusCode, 200);
      const loser = browsers[responses.findIndex((r) => r.statusCode === 422)]!;
      assert.equal((await loser.get('/dashboard')).statusCode, 302);
    });
  },
  { argon2: OWASP_ARGON2ID },
);
