import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Primer, primedLookup } from '../../src/db/fast-path/primer.ts';
import { ServerChangeTracker } from '../../src/db/fast-path/server.ts';

describe('Primer (a joined read answers the lookup that follows it, in the same turn only)', () => {
  const counting = () => {
    let loads = 0;
    const load = async (id: number) => {
      loads++;
      return `loaded ${id}`;
    };
    return { load, loads: () => loads };
  };

  test('a primed answer is taken once, then the lookup reads again', async () => {
    const primer = new Primer<number, string | null>();
    const { load, loads } = counting();
    const lookup = primedLookup(primer, load);
    primer.prime(1, 'primed');
    primer.prime(2, null);
    assert.equal(await lookup(1), 'primed');
    assert.equal(await lookup(2), null, 'a user found missing is an answer too');
    assert.equal(loads(), 0);
    assert.equal(await lookup(1), 'loaded 1');
    assert.equal(loads(), 1);
  });

  test('a request that begins drops every primed answer (it may predate that request)', async () => {
    const tracker = new ServerChangeTracker();
    const primer = tracker.primer<number, string>();
    const { load, loads } = counting();
    const lookup = primedLookup(primer, load);
    primer.prime(1, 'primed');
    tracker.observe();
    assert.equal(await lookup(1), 'loaded 1');
    assert.equal(loads(), 1);
  });

  test('the turn ends: nothing primed survives into the next one', async () => {
    const primer = new Primer<number, string>();
    const { load, loads } = counting();
    const lookup = primedLookup(primer, load);
    primer.prime(1, 'primed');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(await lookup(1), 'loaded 1');
    assert.equal(loads(), 1);
  });

  test('a server tracker keeps nothing between requests', () => {
    const tracker = new ServerChangeTracker();
    assert.equal(tracker.version(), null);
    assert.equal(tracker.lastVersion(), null);
  });
});
