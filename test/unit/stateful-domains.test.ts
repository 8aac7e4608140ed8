import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  parseStatefulDomain,
  StatefulDomainError,
  statefulDomains,
} from '../../src/auth/guards/stateful-domains.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';

const DEFAULTS = ['localhost', 'localhost:3000', '127.0.0.1', '127.0.0.1:8000', '::1'];

describe('statefulDomains: ports', () => {
  const domains = statefulDomains(DEFAULTS);

  test('an entry without a port matches only the default port of the scheme', () => {
    assert.equal(domains.matches('http://localhost'), true);
    assert.equal(domains.matches('https://localhost'), true);
    assert.equal(domains.matches('http://localhost:80'), true, 'URL drops the default port');
    assert.equal(domains.matches('http://localhost:5173'), false);
    assert.equal(domains.matches('http://localhost:443'), false, '443 is not http’s default');
    assert.equal(domains.matches('http://127.0.0.1'), true);
    assert.equal(domains.matches('http://127.0.0.1:3000'), false);
  });

  test('an entry with a port matches exactly that (effective) port', () => {
    assert.equal(domains.matches('http://localhost:3000'), true);
    assert.equal(domains.matches('http://localhost:30000'), false);
    assert.equal(domains.matches('http://127.0.0.1:8000'), true);
    assert.equal(domains.matches('http://127.0.0.1:8001'), false);
    const tls = statefulDomains(['example.com:443']);
    assert.equal(tls.matches('https://example.com'), true);
    assert.equal(tls.matches('http://example.com'), false);
  });

  test('`:*` matches any port, the default one included', () => {
    const any = statefulDomains(['localhost:*']);
    assert.equal(any.matches('http://localhost:5173'), true);
    assert.equal(any.matches('http://localhost'), true);
    assert.equal(any.matches('http://127.0.0.1:5173'), false);
  });

  test('the bare IPv6 default `::1` matches the bracketed origin browsers send', () => {
    assert.equal(domains.matches('http://[::1]'), true);
    assert.equal(domains.matches('http://[::1]:3000'), false);
    assert.equal(statefulDomains(['[::1]:8080']).matches('http://[0:0:0:0:0:0:0:1]:8080'), true);
  });
});

describe('statefulDomains: host wildcards', () => {
  const domains = statefulDomains(['*.example.com', 'app-*.test.dev:8443']);

  test('`*` stands for one or more labels', () => {
    assert.equal(domains.matches('https://app.example.com'), true);
    assert.equal(domains.matches('https://a.b.example.com'), true);
    assert.equal(domains.matches('https://APP.Example.COM'), true, 'hosts compare case-insensitively');
    assert.equal(domains.matches('https://app-pr7.test.dev:8443'), true);
  });

  test('but never the bare domain, a look-alike, or a different port', () => {
    assert.equal(domains.matches('https://example.com'), false);
    assert.equal(domains.matches('https://evilexample.com'), false);
    assert.equal(domains.matches('https://example.com.evil.test'), false);
    assert.equal(domains.matches('https://app.example.com:8443'), false);
    assert.equal(domains.matches('https://app-pr7.test.dev'), false);
  });

  test('a path that looks like the domain does not pass (Referer smuggling)', () => {
    assert.equal(domains.matches('https://evil.test/.example.com/'), false);
    assert.equal(domains.matches('https://app.example.com@evil.test/'), false);
  });

  test('international names are compared in punycode', () => {
    const idn = statefulDomains(['*.bücher.de']);
    assert.equal(idn.matches('https://shop.xn--bcher-kva.de'), true);
    assert.equal(idn.matches('https://shop.bücher.de'), true);
  });
});

describe('statefulDomains: which header decides', () => {
  const domains = statefulDomains(['localhost:5173']);

  test('Origin decides when present, else the Referer', () => {
    assert.equal(domains.fromFrontend('http://localhost:5173', undefined), true);
    assert.equal(domains.fromFrontend(undefined, 'http://localhost:5173/app/page?x=1'), true);
    assert.equal(domains.fromFrontend('http://evil.test', 'http://localhost:5173/'), false);
    assert.equal(domains.fromFrontend(undefined, undefined), false);
  });

  test('Origin: null and non-http schemes are never stateful', () => {
    assert.equal(domains.fromFrontend('null', 'http://localhost:5173/'), false);
    assert.equal(domains.matches('chrome-extension://localhost:5173'), false);
    assert.equal(domains.matches('file://localhost:5173/x'), false);
    assert.equal(domains.matches('not a url'), false);
    assert.equal(domains.matches(`http://localhost:5173/${'a'.repeat(5000)}`), false);
  });
});

describe('parseStatefulDomain', () => {
  test('rejects what is not host[:port]', () => {
    for (const entry of [
      'https://app.example.com',
      'example.com/path',
      'user@example.com',
      'example.com:0',
      'example.com:99999',
      'example.com:abc',
      '*',
      '*:*',
      '[::1',
      'exa mple.com',
      '.example.com',
      ':8000',
      'a..b',
    ]) {
      assert.throws(() => parseStatefulDomain(entry), StatefulDomainError, entry);
    }
  });

  test('accepts the documented shapes', () => {
    for (const entry of [
      'localhost',
      'localhost:3000',
      'localhost:*',
      '*.example.com',
      '::1',
      '[::1]:8000',
    ]) {
      assert.doesNotThrow(() => parseStatefulDomain(entry), entry);
    }
    assert.equal(parseStatefulDomain(' LocalHost:3000 ').port, 3000);
  });
});

describe('SANCTUM_STATEFUL_DOMAINS in the config', () => {
  const base = { APP_KEY: `base64:${Buffer.alloc(32, 1).toString('base64')}`, STORAGE_PATH: '/nonexistent' };

  test('the default list plus APP_URL host[:port] when unset; exactly the list when set', () => {
    const unset = loadConfig({ ...base, APP_URL: 'https://auth.example.org:8443' }, { readDotEnv: false });
    assert.deepEqual(unset.statefulDomains, [...DEFAULTS, 'auth.example.org:8443']);
    const set = loadConfig(
      { ...base, SANCTUM_STATEFUL_DOMAINS: ' App.Test:5173 , *.example.com ,' },
      { readDotEnv: false },
    );
    assert.deepEqual(set.statefulDomains, ['app.test:5173', '*.example.com']);
  });

  test('an unusable entry stops the start with one line naming the variable', () => {
    assert.throws(
      () =>
        loadConfig(
          { ...base, SANCTUM_STATEFUL_DOMAINS: 'localhost:3000,https://app.example.com' },
          { readDotEnv: false },
        ),
      (error: unknown) =>
        error instanceof ConfigError &&
        /^Invalid configuration: SANCTUM_STATEFUL_DOMAINS entry "https:\/\/app\.example\.com" must be host\[:port\]/.test(
          error.message,
        ),
    );
  });
});
