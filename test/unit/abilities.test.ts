import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ABILITY_PATTERN, can, parseAbilities } from '../../src/auth/tokens/abilities.ts';

describe('can (Sanctum tokenCan)', () => {
  test('`*` holds every ability', () => {
    assert.equal(can(['*'], 'posts:read'), true);
    assert.equal(can(['*'], 'anything:at-all'), true);
    assert.equal(can(['posts:read', '*'], 'posts:write'), true);
  });

  test('otherwise only an exact match counts', () => {
    assert.equal(can(['posts:read'], 'posts:read'), true);
    assert.equal(can(['posts:read'], 'posts:write'), false);
    assert.equal(can(['posts:read'], 'posts'), false);
    assert.equal(can(['posts:read'], 'Posts:Read'), false);
    assert.equal(can(['posts:read', 'posts:write'], 'posts:write'), true);
  });

  test('no abilities grant nothing, and `*` is not a pattern inside an ability', () => {
    assert.equal(can([], 'posts:read'), false);
    assert.equal(can(['posts:*'], 'posts:read'), false);
    assert.equal(can(['*:read'], 'posts:read'), false);
  });
});

describe('ABILITY_PATTERN', () => {
  test('accepts `*` and <resource>:<action> in [a-z0-9_-]', () => {
    for (const ability of ['*', 'posts:read', 'posts:write', 'api_v2:do-it', '0:1']) {
      assert.equal(ABILITY_PATTERN.test(ability), true, ability);
    }
  });

  test('refuses everything else', () => {
    for (const ability of [
      '',
      '**',
      'posts',
      'posts:',
      ':read',
      'posts:*',
      'Posts:read',
      'posts:read:more',
      'posts read',
      ' posts:read',
      'posts:read\n',
      'pöst:read',
    ]) {
      assert.equal(ABILITY_PATTERN.test(ability), false, JSON.stringify(ability));
    }
  });
});

describe('parseAbilities (stored JSON)', () => {
  test('reads the stored array', () => {
    assert.deepEqual(parseAbilities('["*"]'), ['*']);
    assert.deepEqual(parseAbilities('["posts:read","posts:write"]'), ['posts:read', 'posts:write']);
  });

  test('anything unreadable grants nothing', () => {
    assert.deepEqual(parseAbilities(''), []);
    assert.deepEqual(parseAbilities('not json'), []);
    assert.deepEqual(parseAbilities('"*"'), []);
    assert.deepEqual(parseAbilities('{"0":"*"}'), []);
    assert.deepEqual(parseAbilities('null'), []);
    assert.deepEqual(parseAbilities('[1, null, ["*"], "posts:read"]'), ['posts:read']);
  });
});
