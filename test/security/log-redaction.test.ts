import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { describeEachDialect } from '../helpers/app.ts';

/**
 * docs/security.md "Logs": the request log redacts secret-bearing paths (the reset token, the
 * verification link's hash) also when they arrive percent-encoded — the router decodes
 * `/%72eset-password/<token>` and serves the reset page with the token all the same.
 */
await describeEachDialect('Log redaction', (ctx) => {
  test('log redaction: percent-encoded secret-bearing paths are redacted like plain ones', async () => {
    const t = ctx();
    const token = randomBytes(20).toString('hex');
    const hash = randomBytes(20).toString('hex');
    const targets = [
      `/reset-password/${token}?email=a%40example.com`,
      `/%72eset-password/${token}?email=a%40example.com`,
      `/%72%65%73%65%74%2dpassword/${token}`,
      `/%2572eset-password/${token}`,
      `/reset-password/${token.slice(0, 10)}%2F${token.slice(10)}`,
      `/email/verify/1/${hash}?expires=1&signature=x`,
      `/%65mail/verify/1/${hash}`,
      `/email%2Fverify/1/${hash}`,
    ];
    const served = await t.app.inject({ url: `/%72eset-password/${token}?email=a%40example.com` });
    assert.equal(served.statusCode, 200, 'the encoded path reaches the reset page');
    assert.ok(served.body.includes(token), 'with the token in its form');
    for (const url of targets) {
      const before = t.logs.length;
      await t.app.inject({ url });
      const lines = t.logs.slice(before).filter((line) => line.includes('"msg":"request"'));
      assert.equal(lines.length, 1, url);
      const logged = JSON.parse(lines[0]!).req.url as string;
      assert.ok(
        !logged.includes(token.slice(0, 12)) && !logged.includes(token.slice(-12)),
        `${url} → ${logged}`,
      );
      assert.ok(!logged.includes(hash.slice(0, 12)), `${url} → ${logged}`);
      assert.match(logged, /\[redacted\]/, url);
    }
    // Paths without secrets are logged as sent.
    const before = t.logs.length;
    await t.app.inject({ url: '/%6Cogin?lang=de' });
    const line = t.logs.slice(before).find((l) => l.includes('"msg":"request"'))!;
    assert.equal(JSON.parse(line).req.url, '/%6Cogin?lang=de');
  });
});
