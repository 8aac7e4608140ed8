import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { toTokenRow, toUserRow } from '../../src/import/laravel/rows.ts';
import { laravelTimestamp } from '../../src/import/laravel/time.ts';
import { findCollisions } from '../../src/import/laravel/users.ts';

const context = { zone: 'UTC', now: Date.UTC(2026, 0, 1), locale: 'de' };

describe('Laravel timestamps', () => {
  test('wall-clock text in the app timezone, or with an explicit offset', () => {
    assert.equal(laravelTimestamp('2024-01-02 03:04:05', 'UTC'), Date.UTC(2024, 0, 2, 3, 4, 5));
    assert.equal(laravelTimestamp('2024-01-02T03:04:05.250', 'UTC'), Date.UTC(2024, 0, 2, 3, 4, 5, 250));
    // Berlin is UTC+1 in winter and UTC+2 in summer: the zone's offset on that day counts.
    assert.equal(laravelTimestamp('2024-01-02 03:04:05', 'Europe/Berlin'), Date.UTC(2024, 0, 2, 2, 4, 5));
    assert.equal(laravelTimestamp('2024-07-02 03:04:05', 'Europe/Berlin'), Date.UTC(2024, 6, 2, 1, 4, 5));
    assert.equal(laravelTimestamp('2024-07-02 03:04:05', 'America/New_York'), Date.UTC(2024, 6, 2, 7, 4, 5));
    // PostgreSQL timestamptz carries its offset: the zone option does not apply.
    assert.equal(
      laravelTimestamp('2024-07-02 03:04:05+02', 'America/New_York'),
      Date.UTC(2024, 6, 2, 1, 4, 5),
    );
    assert.equal(laravelTimestamp('2024-07-02 03:04:05-03:30', 'UTC'), Date.UTC(2024, 6, 2, 6, 34, 5));
    assert.equal(laravelTimestamp('2024-07-02', 'UTC'), Date.UTC(2024, 6, 2));
  });

  test('NULL, empty and MySQL zero dates are no value; anything else unreadable is undefined', () => {
    for (const empty of [null, undefined, '', '0000-00-00 00:00:00'])
      assert.equal(laravelTimestamp(empty, 'UTC'), null);
    for (const bad of ['yesterday', '2024-02-30 00:00:00', '2024-13-01 00:00:00', 12345, {}]) {
      assert.equal(laravelTimestamp(bad, 'UTC'), undefined, String(bad));
    }
  });
});

describe('Laravel rows as Gatehouse rows', () => {
  const user = {
    id: '42',
    name: 'Ada',
    email: '  Ada@Example.COM ',
    password: '$2y$10$92IXUNpkjO0rOQ5byMi.Ye4oKoEa3Ro9llC/.og/at2.uheWG/igi',
    email_verified_at: null,
    created_at: null,
    updated_at: '2024-01-02 03:04:05',
  };

  test('a user: lower-cased e-mail, hash as it is, missing times filled from the others', () => {
    const converted = toUserRow(user, context);
    assert.ok('row' in converted);
    assert.equal(converted.row.id, 42);
    assert.equal(converted.row.email, 'ada@example.com');
    assert.equal(converted.row.password, user.password);
    assert.equal(converted.row.locale, 'de');
    assert.equal(converted.row.created_at, Date.UTC(2024, 0, 2, 3, 4, 5));
    assert.equal(converted.row.email_verified_at, null);
  });

  test('users Gatehouse cannot hold are skipped with the reason', () => {
    const skip = (changes: object) => {
      const converted = toUserRow({ ...user, ...changes }, context);
      return 'skip' in converted ? converted.skip : null;
    };
    assert.equal(skip({ id: '2147483648' }), 'id outside 1…2147483647');
    assert.equal(skip({ id: 0 }), 'id outside 1…2147483647');
    assert.equal(skip({ email: 'no-at-sign' }), 'not a valid e-mail address');
    assert.equal(skip({ name: 'x'.repeat(256) }), 'name longer than 255 characters');
    assert.equal(skip({ created_at: 'soon' }), 'unreadable created_at');
  });

  const token = {
    id: 7,
    tokenable_type: 'App\\Models\\User',
    tokenable_id: 42,
    name: 'phone',
    token: 'a'.repeat(64),
    abilities: '["posts:read","check-status"]',
    last_used_at: null,
    created_at: '2024-01-02 03:04:05',
    updated_at: '2024-01-02 03:04:05',
  };

  test('a token: hash and abilities as stored; no expires_at column means no expiry', () => {
    const converted = toTokenRow(token, 42, context);
    assert.ok('row' in converted);
    assert.equal(converted.row.token, token.token);
    assert.equal(converted.row.abilities, '["posts:read","check-status"]');
    assert.equal(converted.row.expires_at, null);
    const noAbilities = toTokenRow({ ...token, abilities: null }, 42, context);
    assert.ok('row' in noAbilities);
    assert.equal(noAbilities.row.abilities, '[]', 'NULL grants nothing, as in Sanctum');
  });

  test('tokens Gatehouse cannot hold are skipped with the reason', () => {
    const skip = (changes: object) => {
      const converted = toTokenRow({ ...token, ...changes }, 42, context);
      return 'skip' in converted ? converted.skip : null;
    };
    assert.equal(skip({ token: 'A'.repeat(64) }), 'token column is not a SHA-256 hash');
    assert.equal(skip({ token: 'plaintext' }), 'token column is not a SHA-256 hash');
    for (const abilities of ['*', '{"a":1}', '[1]', 'not json']) {
      assert.equal(skip({ abilities }), 'abilities are not a JSON list of strings', abilities);
    }
  });

  test('addresses that differ only in case are collisions, whatever the spacing', () => {
    assert.deepEqual(
      findCollisions([
        { id: 1, email: 'a@x.test' },
        { id: 2, email: 'A@X.test' },
        { id: 3, email: 'b@x.test' },
        { id: 4, email: ' a@x.TEST' },
        { id: 5, email: null },
      ]),
      [{ email: 'a@x.test', ids: ['1', '2', '4'] }],
    );
  });
});
