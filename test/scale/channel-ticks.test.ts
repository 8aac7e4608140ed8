import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import { HEARD_WITHIN_MS, postgresChannel, TICK_MS } from '../../src/auth/cache/postgres-channel.ts';
import { POSTGRES_ADMIN_URL, postgresAvailable, requireServices } from '../helpers/databases.ts';

/**
 * The PostgreSQL listener's measure of its own lag (postgres-channel.ts): the cache serves from
 * memory only while the listener has heard a tick it sent at most HEARD_WITHIN_MS ago, and every
 * change committed before that tick was heard before it (notifications come in commit order).
 */
async function skipReason(): Promise<string | false> {
  if (await postgresAvailable()) return false;
  if (requireServices) throw new Error('postgres is required (REQUIRE_SERVICES=1) but not reachable');
  return 'postgres not reachable';
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, what: string) {
  const deadline = Date.now() + 3_000;
  while (!check()) {
    assert.ok(Date.now() < deadline, `never: ${what}`);
    await sleep(2);
  }
}

describe('the PostgreSQL listener measures how late it hears', { skip: await skipReason() }, () => {
  test('current only while a recent tick was heard; a change committed before a tick is heard first', async () => {
    let offset = 0;
    const heard: string[][] = [];
    let serving = false;
    const channel = postgresChannel(
      POSTGRES_ADMIN_URL,
      { changed: (tables) => heard.push([...tables]), setServing: (on) => (serving = on) },
      () => performance.now() + offset,
    );
    const writer = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await writer.connect();
    try {
      channel.start();
      await until(() => serving, 'subscribed');
      assert.equal(channel.current?.(), false, 'nothing heard yet: not current');
      await until(() => channel.current?.() === true, 'a tick heard');

      // Time jumps past the bound without a tick heard: no longer current, until a new tick is.
      offset += HEARD_WITHIN_MS + TICK_MS;
      assert.equal(channel.current?.(), false);
      await until(() => channel.current?.() === true, 'current again');

      // A change committed, then at once a read: the change's message is heard before the tick
      // that makes the reader current, so a current reader has always dropped what changed.
      const before = heard.length;
      await writer.query(`select pg_notify('gatehouse_auth_cache', 'personal_access_tokens')`);
      offset += HEARD_WITHIN_MS + TICK_MS;
      await until(() => channel.current?.() === true, 'current after the change');
      assert.ok(heard.slice(before).some((tables) => tables.includes('personal_access_tokens')));
    } finally {
      await writer.end();
      await channel.close();
    }
  });
});
