import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

const storage = mkdtempSync(join(tmpdir(), 'gatehouse-config-'));
after(() => rmSync(storage, { recursive: true, force: true }));

const KEY = `base64:${Buffer.alloc(32, 1).toString('base64')}`;
const load = (env: Record<string, string>) =>
  loadConfig({ APP_KEY: KEY, STORAGE_PATH: storage, ...env }, { readDotEnv: false, cwd: storage });
const PG = 'postgres://postgres@127.0.0.1:5432/gatehouse';
const MYSQL = 'mysql://root@127.0.0.1:3306/gatehouse';

/** Refused at start with one line naming AUTH_CACHE, and (when given) saying `hint`. */
function refuses(env: Record<string, string>, hint?: string) {
  assert.throws(
    () => load(env),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.variable === 'AUTH_CACHE' &&
      !error.message.includes('\n') &&
      (hint === undefined || error.message.includes(hint)),
    JSON.stringify(env),
  );
}

describe('AUTH_CACHE', () => {
  test('defaults to off (the strict path) on every dialect', () => {
    assert.equal(load({}).authCache, 'off');
    assert.equal(load({ DATABASE_URL: PG }).authCache, 'off');
    assert.equal(load({ DATABASE_URL: MYSQL, AUTH_CACHE: 'off' }).authCache, 'off');
  });

  test('notify is accepted on PostgreSQL, and on MySQL/MariaDB with REDIS_URL', () => {
    assert.equal(load({ DATABASE_URL: PG, AUTH_CACHE: 'notify' }).authCache, 'notify');
    const mysql = load({ DATABASE_URL: MYSQL, AUTH_CACHE: 'notify', REDIS_URL: 'redis://127.0.0.1:6379' });
    assert.equal(mysql.authCache, 'notify');
  });

  test('any other value is refused, naming the allowed ones', () => {
    for (const value of ['on', 'NOTIFY', 'redis', '1'])
      refuses({ DATABASE_URL: PG, AUTH_CACHE: value }, 'off, notify');
  });

  test('notify on SQLite is refused (its lookups are kept already)', () => {
    refuses({ AUTH_CACHE: 'notify' }, 'SQLite');
  });

  test('notify on MySQL/MariaDB without REDIS_URL is refused, naming REDIS_URL', () => {
    refuses({ DATABASE_URL: MYSQL, AUTH_CACHE: 'notify' }, 'REDIS_URL');
  });
});
