import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fakeClock } from '../../src/lib/clock.ts';
import { assertJsonError, bearer, tokenId, tokenRow } from '../helpers/api.ts';
import { appDialects, createTestApp, describeApp, type TestApp } from '../helpers/app.ts';

const MINUTE = 60_000;
const START = Date.UTC(2026, 0, 1, 12);

// One clock for both dialect suites; they run one after the other and every test sets it first.
const clock = fakeClock(START);

const userStatus = async (t: TestApp, token: string) =>
  (await t.app.inject({ url: '/api/user', headers: bearer(token) })).statusCode;
const listed = async (t: TestApp, token: string) =>
  (await t.app.inject({ url: '/api/tokens', headers: bearer(token) })).json().data as Array<{
    id: number;
    expires_at: string | null;
    last_used_at: string | null;
    created_at: string;
  }>;

await describeApp(
  'API token expiry and last use (fake clock)',
  (ctx) => {
    test('TOKEN_EXPIRATION (default 525960 minutes) counts from creation', async () => {
      const t = ctx();
      clock.set(START);
      const user = await t.createUser();
      const token = await t.issueToken(user.email, user.password);
      const entry = (await listed(t, token)).find((e) => e.id === tokenId(token))!;
      assert.equal(entry.created_at, new Date(START).toISOString());
      assert.equal(entry.expires_at, new Date(START + 525960 * MINUTE).toISOString());
      // Sanctum leaves expires_at empty when only the global expiration applies.
      assert.equal((await tokenRow(t.db, tokenId(token)))!.expires_at, null);

      clock.set(START + 525960 * MINUTE - 1);
      assert.equal(await userStatus(t, token), 200);
      clock.set(START + 525960 * MINUTE);
      const expired = await t.app.inject({ url: '/api/user', headers: bearer(token) });
      assertJsonError(expired, 401);
      assert.equal(expired.headers['www-authenticate'], 'Bearer realm="Gatehouse", error="invalid_token"');
    });

    test('expires_in (seconds) ends a token earlier', async () => {
      const t = ctx();
      clock.set(START);
      const user = await t.createUser();
      const token = await t.issueToken(user.email, user.password, { expires_in: 90 });
      assert.equal((await tokenRow(t.db, tokenId(token)))!.expires_at, START + 90_000);
      const entry = (await listed(t, token)).find((e) => e.id === tokenId(token))!;
      assert.equal(entry.expires_at, new Date(START + 90_000).toISOString());
      clock.advance(89_999);
      assert.equal(await userStatus(t, token), 200);
      clock.advance(1);
      assert.equal(await userStatus(t, token), 401);
      // Expired tokens cannot revoke or list anything either.
      assertJsonError(
        await t.app.inject({ method: 'DELETE', url: '/api/tokens', headers: bearer(token) }),
        401,
      );
      assert.ok(await tokenRow(t.db, tokenId(token)), 'the expired row is left for tokens:prune');
    });

    test('the earlier of expires_in and TOKEN_EXPIRATION wins', async () => {
      const t = ctx();
      clock.set(START);
      const user = await t.createUser();
      const tenYears = 10 * 365 * 24 * 3600;
      const token = await t.issueToken(user.email, user.password, { expires_in: tenYears });
      const entry = (await listed(t, token)).find((e) => e.id === tokenId(token))!;
      assert.equal(entry.expires_at, new Date(START + 525960 * MINUTE).toISOString());
      clock.set(START + 525960 * MINUTE);
      assert.equal(await userStatus(t, token), 401);
    });

    test('last_used_at is written on first use, then at most once a minute', async () => {
      const t = ctx();
      clock.set(START);
      const user = await t.createUser();
      const token = await t.issueToken(user.email, user.password);
      const lastUsed = async () => (await tokenRow(t.db, tokenId(token)))!.last_used_at;
      assert.equal(await lastUsed(), null);

      clock.set(START + 5_000);
      assert.equal(await userStatus(t, token), 200);
      assert.equal(await lastUsed(), START + 5_000);

      for (const offset of [6_000, 30_000, 64_999]) {
        clock.set(START + offset);
        assert.equal(await userStatus(t, token), 200);
        assert.equal(await lastUsed(), START + 5_000, `no write ${offset - 5_000} ms later`);
      }
      clock.set(START + 65_000);
      assert.equal(await userStatus(t, token), 200);
      assert.equal(await lastUsed(), START + 65_000, 'a minute later it is written again');
      clock.set(START + 100_000);
      assert.equal(await userStatus(t, token), 200);
      assert.equal(await lastUsed(), START + 65_000);

      const entry = (await listed(t, token)).find((e) => e.id === tokenId(token))!;
      assert.equal(entry.last_used_at, new Date(START + 65_000).toISOString());
      const updatedAt = (await tokenRow(t.db, tokenId(token)))!.updated_at;
      assert.equal(updatedAt, START, 'only last_used_at changes');
    });

    test('a failed request does not count as use', async () => {
      const t = ctx();
      clock.set(START);
      const user = await t.createUser();
      const token = await t.issueToken(user.email, user.password, { abilities: ['posts:read'] });
      const forged = `${tokenId(token)}|${'A'.repeat(40)}${'0'.repeat(8)}`;
      await t.app.inject({ url: '/api/user', headers: bearer(forged) });
      assert.equal((await tokenRow(t.db, tokenId(token)))!.last_used_at, null);
    });
  },
  { overrides: { clock }, env: { API_RATE_LIMIT: '10000' } },
);

/** Apps with a non-default TOKEN_EXPIRATION (and a TOKEN_PREFIX), per dialect. */
for (const { name, skip } of await appDialects()) {
  describe(`TOKEN_EXPIRATION variants [${name}]`, { skip }, () => {
    const apps: Record<string, TestApp> = {};
    const variants = { null: 'null', empty: '', ten: '10' } as const;
    const variantClock = fakeClock(START);
    before(async () => {
      for (const [key, value] of Object.entries(variants)) {
        apps[key] = await createTestApp(name, {
          env: { TOKEN_EXPIRATION: value, TOKEN_PREFIX: 'gh_' },
          overrides: { clock: variantClock },
        });
      }
    });
    after(async () => {
      for (const t of Object.values(apps)) await t.close();
    });

    for (const key of ['null', 'empty'] as const) {
      test(`TOKEN_EXPIRATION=${JSON.stringify(variants[key])}: tokens never expire, unless expires_in says so`, async () => {
        const t = apps[key]!;
        variantClock.set(START);
        const user = await t.createUser();
        const forever = await t.issueToken(user.email, user.password);
        const brief = await t.issueToken(user.email, user.password, { expires_in: 60 });
        const entries = await listed(t, forever);
        assert.equal(entries.find((e) => e.id === tokenId(forever))!.expires_at, null);
        assert.equal(
          entries.find((e) => e.id === tokenId(brief))!.expires_at,
          new Date(START + 60_000).toISOString(),
        );
        variantClock.set(START + 100 * 366 * 24 * 60 * MINUTE);
        assert.equal(await userStatus(t, forever), 200);
        assert.equal(await userStatus(t, brief), 401);
      });
    }

    test('TOKEN_EXPIRATION=10: tokens expire 10 minutes after creation', async () => {
      const t = apps['ten']!;
      variantClock.set(START);
      const user = await t.createUser();
      const token = await t.issueToken(user.email, user.password, { expires_in: 3600 });
      variantClock.set(START + 10 * MINUTE - 1);
      assert.equal(await userStatus(t, token), 200);
      variantClock.set(START + 10 * MINUTE);
      assert.equal(await userStatus(t, token), 401);
    });

    test('TOKEN_PREFIX is part of the secret and of what authenticates', async () => {
      const t = apps['null']!;
      variantClock.set(START);
      const user = await t.createUser();
      const token = await t.issueToken(user.email, user.password);
      assert.match(token, /^\d+\|gh_[A-Za-z0-9]{40}[0-9a-f]{8}$/);
      assert.equal(await userStatus(t, token), 200);
      assert.equal(
        await userStatus(t, token.replace('|gh_', '|')),
        401,
        'without the prefix it is another secret',
      );
    });
  });
}
