import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isNativeRedirect, uriProblem } from '../../src/oauth/redirect-uris.ts';

/**
 * The redirect-URI rules of registration (src/oauth/redirect-uris.ts), with the mistakes the field
 * shipped: wildcard and prefix matching (Keycloak CVE-2024-8883, Authentik CVE-2024-52289), `..;/`
 * path tricks (Keycloak CVE-2026-3872), `javascript:` targets (Keycloak CVE-2026-9086), userinfo `@`.
 */
describe('redirect URI rules at registration', () => {
  test('accepted: https anywhere, http on loopback (any port), a reverse-domain native scheme', () => {
    for (const uri of [
      'https://app.example/callback',
      'https://App.Example:8443/cb?tenant=1',
      'http://localhost/cb',
      'http://127.0.0.1:49152/callback',
      'http://[::1]/cb',
      'com.example.app:/oauth2redirect',
      'com.example.app://callback',
    ]) {
      assert.equal(uriProblem(uri, 'redirect'), null, uri);
    }
  });

  const refused: [string, string][] = [
    ['javascript:alert(document.domain)', 'forbidden_scheme'],
    ['JavaScript:alert(1)', 'forbidden_scheme'],
    ['data:text/html,<script>alert(1)</script>', 'forbidden_scheme'],
    ['data:text/html;base64,PHNjcmlwdD4=', 'forbidden_scheme'],
    ['file:///etc/passwd', 'forbidden_scheme'],
    ['vbscript:msgbox', 'forbidden_scheme'],
    ['https://app.example/cb#fragment', 'fragment'],
    ['https://app.example/cb#', 'fragment'],
    ['https://*.example.com/cb', 'wildcard'],
    ['https://app.example/*', 'wildcard'],
    ['http://app.example/cb', 'http_not_loopback'],
    ['http://127.0.0.1.evil.example/cb', 'http_not_loopback'],
    ['https://app.example@evil.example/cb', 'credentials'],
    ['https://user:pass@app.example/cb', 'credentials'],
    ['https://app.example/cb/..;/admin', 'dot_segments'],
    ['https://app.example/cb/../admin', 'dot_segments'],
    ['https://app.example/./cb', 'dot_segments'],
    ['https://app.example/cb%2f..%2fadmin', 'dot_segments'],
    ['https://app.example/cb\\evil', 'dot_segments'],
    ['myapp://callback', 'private_scheme_not_reverse_domain'],
    ['https://app.example/ cb', 'invalid'],
    ['/relative/cb', 'invalid'],
    ['https:///cb', 'invalid'],
    [`https://app.example/${'a'.repeat(2100)}`, 'too_long'],
  ];
  for (const [uri, problem] of refused) {
    test(`refused: ${uri.slice(0, 60)} (${problem})`, () => {
      assert.equal(uriProblem(uri, 'redirect'), problem);
    });
  }

  test('a query is fine, even with encoded slashes in it', () => {
    assert.equal(uriProblem('https://app.example/cb?next=%2Fhome&x=..', 'redirect'), null);
  });

  test('post-logout and back-channel URIs: https or loopback http only, a query allowed', () => {
    assert.equal(uriProblem('https://app.example/bye?from=gatehouse', 'post_logout'), null);
    assert.equal(uriProblem('http://localhost:8080/backchannel', 'backchannel'), null);
    assert.equal(uriProblem('com.example.app:/bye', 'post_logout'), 'private_scheme_not_allowed');
    assert.equal(uriProblem('http://app.example/logout', 'backchannel'), 'http_not_loopback');
    assert.equal(uriProblem('javascript:alert(1)', 'post_logout'), 'forbidden_scheme');
  });

  test('a native app is one with loopback http or a private-use scheme', () => {
    assert.equal(isNativeRedirect('http://127.0.0.1:1234/cb'), true);
    assert.equal(isNativeRedirect('com.example.app:/cb'), true);
    assert.equal(isNativeRedirect('https://app.example/cb'), false);
  });
});
