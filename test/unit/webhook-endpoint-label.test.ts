import assert from 'node:assert/strict';
import { test } from 'node:test';
import { endpointHash, endpointLabel } from '../../src/webhooks/webhook-outbox.ts';

const fingerprint = (url: string) => endpointHash(url).slice(0, 8);

test('a webhook endpoint label shows the origin and a short first segment, never a secret in the path, query or credentials', () => {
  const slack = 'https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXXXXXXXXXX';
  assert.equal(endpointLabel(slack), `https://hooks.slack.com/services/… #${fingerprint(slack)}`);
  const discord = 'https://discord.com/api/webhooks/123456789/abcdefSECRETtoken';
  assert.equal(endpointLabel(discord), `https://discord.com/api/… #${fingerprint(discord)}`);
  const plain = 'http://10.0.0.5:8080/hooks';
  assert.equal(endpointLabel(plain), `http://10.0.0.5:8080/hooks #${fingerprint(plain)}`);
  const rootSecret = `https://in.example/${'k'.repeat(40)}`;
  assert.equal(endpointLabel(rootSecret), `https://in.example/… #${fingerprint(rootSecret)}`);
  const withUser = 'https://user:pass@in.example/?token=abc';
  assert.equal(endpointLabel(withUser), `https://in.example/ #${fingerprint(withUser)}`);
  for (const url of [slack, discord, rootSecret, withUser]) {
    const label = endpointLabel(url);
    for (const secret of ['XXXXXXXXXXXX', 'SECRET', 'kkkkkkkk', 'pass', 'token=abc'])
      assert.ok(!label.includes(secret), label);
  }
});

test('two endpoints that differ only where the label does not look get different labels', () => {
  const a = endpointLabel('https://in.example/hook?token=a');
  const b = endpointLabel('https://in.example/hook?token=b');
  assert.notEqual(a, b);
  assert.ok(a.startsWith('https://in.example/hook #') && b.startsWith('https://in.example/hook #'));
});
