import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formActionSources } from '../../src/forward-auth/form-action.ts';

test('FORWARD_AUTH_DOMAINS become CSP form-action host-sources (http: also covers https)', () => {
  assert.deepEqual(
    formActionSources([
      'app.example.com',
      '*.tools.example.com',
      'intranet.example.com:8443',
      'any.example.com:*',
      'bücher.example',
      '10.0.0.5:8080',
    ]),
    [
      'http://app.example.com',
      'http://*.tools.example.com',
      'http://intranet.example.com:8443',
      'http://any.example.com:*',
      'http://xn--bcher-kva.example',
      'http://10.0.0.5:8080',
    ],
  );
});

test('a wildcard CSP cannot spell widens to the nearest *.domain; IPv6 and a wildcard top label are left out', () => {
  assert.deepEqual(formActionSources(['app-*.example.com', 'a.*.example.com:9000']), [
    'http://*.example.com',
    'http://*.example.com:9000',
  ]);
  assert.deepEqual(formActionSources(['[::1]:3000', '::1', 'example.*', '*.com']), ['http://*.com']);
  assert.deepEqual(formActionSources([]), []);
});
