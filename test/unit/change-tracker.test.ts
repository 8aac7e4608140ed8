import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { SqliteChangeTracker } from '../../src/db/fast-path/changes.ts';

/**
 * The SQLite change tracker against a scripted `data_version`: how often it reads, and that no
 * request is ever answered with a version read before the request began.
 */
describe('SqliteChangeTracker', () => {
  function scripted() {
    const state = { dataVersion: 1, reads: 0, inTransaction: false };
    const tracker = new SqliteChangeTracker(() => {
      state.reads++;
      return state.inTransaction ? null : state.dataVersion;
    });
    return { state, tracker };
  }

  test('requests that arrive together share one read, made after the last of them began', async () => {
    const { state, tracker } = scripted();
    tracker.observe();
    const first = tracker.version();
    // Another process commits after the first request began but before the second one did.
    state.dataVersion = 2;
    tracker.observe();
    const second = tracker.version();
    assert.ok(first instanceof Promise && second instanceof Promise, 'a request waits for the read');
    assert.equal(first, second, 'one read for both');
    const [a, b] = await Promise.all([first, second]);
    assert.equal(state.reads, 1);
    assert.equal(a, b);
    // The shared read saw the commit: the second request, which began after it, is not served stale.
    const unchanged = tracker.version();
    assert.equal(unchanged, a, 'further lookups of the same requests need no read');
    state.dataVersion = 3;
    tracker.observe();
    const third = await tracker.version();
    assert.equal(state.reads, 2, 'a request that began after the read reads again');
    assert.notEqual(third, a, 'the later commit moved the version');
  });

  test('our own writes move the version at once, without a read', async () => {
    const { state, tracker } = scripted();
    const before = tracker.version();
    const reads = state.reads;
    tracker.wrote();
    assert.notEqual(tracker.version(), before);
    assert.equal(tracker.lastVersion(), tracker.version());
    assert.equal(state.reads, reads);
  });

  test('outside a request: one read per event-loop turn', async () => {
    const { state, tracker } = scripted();
    const v1 = tracker.version();
    state.dataVersion = 5;
    assert.equal(tracker.version(), v1, 'same turn: the read of this turn stands');
    assert.equal(state.reads, 1);
    await nextTurn();
    await nextTurn();
    assert.notEqual(tracker.version(), v1, 'the next turn reads again and sees the commit');
    assert.equal(state.reads, 2);
  });

  test('no trust while a transaction holds the connection: every answer is a new version', async () => {
    const { state, tracker } = scripted();
    tracker.observe();
    const v1 = await tracker.version();
    state.inTransaction = true;
    tracker.observe();
    const v2 = await tracker.version();
    assert.notEqual(v2, v1);
    const v3 = await tracker.version();
    assert.notEqual(v3, v2, 'still unreadable: read again, and nothing kept may be used');
    state.inTransaction = false;
    tracker.observe();
    const v4 = await tracker.version();
    assert.notEqual(v4, v3);
    assert.equal(tracker.version(), v4, 'readable again: kept answers may be used');
  });
});
