import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  bearerFrom,
  generateSecret,
  parseLegacyToken,
  parsePlainToken,
} from '../../src/auth/tokens/token-format.ts';
import { crc32Hex } from '../../src/lib/crypto.ts';

/** A well-formed secret for `entropy` (40 alnum), as Sanctum builds it: entropy + crc32b(entropy). */
const secretOf = (entropy: string, prefix = '') => `${prefix}${entropy}${crc32Hex(entropy)}`;
const ENTROPY = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd';

describe('crc32b (PHP hash("crc32b"))', () => {
  test('matches the standard check values', () => {
    assert.equal(crc32Hex(''), '00000000');
    assert.equal(crc32Hex('123456789'), 'cbf43926');
    assert.equal(crc32Hex('The quick brown fox jumps over the lazy dog'), '414fa339');
  });

  test('keeps leading zeros: always 8 lowercase hex digits', () => {
    assert.equal(crc32Hex('pad51'), '005b26c4');
  });
});

describe('generateSecret', () => {
  test('is 40 [A-Za-z0-9] followed by their crc32b', () => {
    const secret = generateSecret('');
    assert.match(secret, /^[A-Za-z0-9]{40}[0-9a-f]{8}$/);
    assert.equal(secret.slice(40), crc32Hex(secret.slice(0, 40)));
  });

  test('puts TOKEN_PREFIX in front of the entropy', () => {
    const secret = generateSecret('gh_live_');
    assert.match(secret, /^gh_live_[A-Za-z0-9]{40}[0-9a-f]{8}$/);
    assert.equal(secret.slice(-8), crc32Hex(secret.slice(8, 48)));
  });

  test('is random: no repeats, and every alphabet character shows up', () => {
    const secrets = Array.from({ length: 200 }, () => generateSecret(''));
    assert.equal(new Set(secrets).size, secrets.length);
    const seen = new Set(secrets.flatMap((s) => [...s.slice(0, 40)]));
    assert.equal(seen.size, 62);
  });

  test('round-trips through parsePlainToken', () => {
    for (const prefix of ['', 'gh_', 'x-1']) {
      const secret = generateSecret(prefix);
      assert.deepEqual(parsePlainToken(`17|${secret}`), { id: 17, secret });
    }
  });
});

describe('parsePlainToken', () => {
  test('accepts <id>|<secret>, with or without a prefix', () => {
    assert.deepEqual(parsePlainToken(`1|${secretOf(ENTROPY)}`), { id: 1, secret: secretOf(ENTROPY) });
    assert.deepEqual(parsePlainToken(`2147483647|${secretOf(ENTROPY, 'pre_')}`), {
      id: 2147483647,
      secret: secretOf(ENTROPY, 'pre_'),
    });
  });

  test('refuses every other shape', () => {
    const good = secretOf(ENTROPY);
    const wrongCrc = `${ENTROPY}${crc32Hex(ENTROPY) === '00000000' ? '00000001' : '00000000'}`;
    const cases: Record<string, string> = {
      empty: '',
      'bar only': '|',
      'no secret': '1|',
      'no id': `|${good}`,
      'bare secret (legacy Sanctum lookup)': good,
      'letters as id': `abc|${good}`,
      'garbage both sides': 'abc|def',
      'zero id': `0|${good}`,
      'leading zero id': `01|${good}`,
      'negative id': `-1|${good}`,
      'decimal id': `1.5|${good}`,
      'id beyond serial': `2147483648|${good}`,
      'twenty-digit id': `99999999999999999999|${good}`,
      'wrong checksum': `1|${wrongCrc}`,
      'upper-case checksum': `1|${ENTROPY}${crc32Hex(ENTROPY).toUpperCase()}`,
      '39 characters of entropy': `1|${secretOf(ENTROPY.slice(1))}`,
      'checksum over prefix + entropy': `1|A${ENTROPY}${crc32Hex(`A${ENTROPY}`)}`,
      'symbols in entropy': `1|${secretOf(`${ENTROPY.slice(0, 39)}!`)}`,
      'bar in prefix': `1|a|b${good}`,
      'space after bar': `1| ${good}`,
      'space before bar': `1 |${good}`,
      'trailing garbage': `1|${good}x`,
      'very long': `1|${'a'.repeat(10_000)}`,
      'non-ASCII': `1|${ENTROPY.slice(0, 39)}é${crc32Hex(`${ENTROPY.slice(0, 39)}é`)}`,
    };
    for (const [label, plain] of Object.entries(cases)) {
      assert.equal(parsePlainToken(plain), null, label);
    }
  });
});

describe('bearerFrom', () => {
  test('takes the credentials of a Bearer header; the scheme is case-insensitive (RFC 7235)', () => {
    assert.equal(bearerFrom('Bearer 1|abc'), '1|abc');
    assert.equal(bearerFrom('bearer 1|abc'), '1|abc');
    assert.equal(bearerFrom('BEARER 1|abc'), '1|abc');
    assert.equal(bearerFrom('Bearer   1|abc  '), '1|abc');
  });

  test('is null without a single Bearer credential', () => {
    for (const header of [
      undefined,
      '',
      'Bearer',
      'Bearer ',
      'Bearer1|abc',
      'Basic dXNlcjpwYXNz',
      'Token x',
    ]) {
      assert.equal(bearerFrom(header), null, String(header));
    }
    assert.equal(bearerFrom('Bearer 1|abc 2|def'), null);
    assert.equal(bearerFrom('Bearer 1|abc, Bearer 2|def'), null);
  });

  test('reads exactly what /^Bearer[ \\t]+(\\S+)[ \\t]*$/i reads', () => {
    const pattern = /^Bearer[ \t]+(\S+)[ \t]*$/i;
    const pieces = [
      'Bearer',
      'bEaReR',
      'Basic',
      ' ',
      '\t',
      '\n',
      '\u00a0',
      '\u2028',
      'a.b',
      '1|x',
      ',',
      '',
      'Bearerx',
    ];
    let compared = 0;
    for (const a of pieces)
      for (const b of pieces)
        for (const c of pieces)
          for (const d of pieces) {
            const header = a + b + c + d;
            assert.equal(bearerFrom(header), pattern.exec(header)?.[1] ?? null, JSON.stringify(header));
            compared++;
          }
    assert.equal(compared, pieces.length ** 4);
  });
});

describe('parseLegacyToken (imported tokens only: docs/guides/moving-from-laravel.md)', () => {
  test('accepts the forms Sanctum issued before 3.3 and the bare secret', () => {
    assert.deepEqual(parseLegacyToken(`7|${ENTROPY}`), { id: 7, secret: ENTROPY }, 'no checksum');
    assert.deepEqual(parseLegacyToken(ENTROPY), { secret: ENTROPY }, 'bare, before 3.3');
    const checked = secretOf(ENTROPY, 'laravel_');
    assert.deepEqual(parseLegacyToken(checked), { secret: checked }, 'bare, prefixed with checksum');
  });

  test('refuses what no Sanctum version issued, before any lookup', () => {
    for (const plain of [
      '',
      '7|',
      '7|short',
      `0|${ENTROPY}`,
      `07|${ENTROPY}`,
      `99999999999|${ENTROPY}`,
      `7|${ENTROPY.slice(1)}`,
      `7|${ENTROPY} `,
      `7|${ENTROPY}\n`,
      `|${ENTROPY}`,
      `7|7|${ENTROPY}`,
      `${'p'.repeat(41)}${ENTROPY}`,
      `${ENTROPY}_`,
      `${ENTROPY.slice(0, 20)}%${ENTROPY.slice(20)}`,
    ]) {
      assert.equal(parseLegacyToken(plain), null, JSON.stringify(plain));
    }
  });
});
