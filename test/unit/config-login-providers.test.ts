import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

const storage = mkdtempSync(join(tmpdir(), 'gatehouse-config-'));
after(() => rmSync(storage, { recursive: true, force: true }));

const KEY = `base64:${Buffer.alloc(32, 1).toString('base64')}`;
const load = (env: Record<string, string>) =>
  loadConfig({ APP_KEY: KEY, STORAGE_PATH: storage, ...env }, { readDotEnv: false, cwd: storage });
const providers = (env: Record<string, string>) => load(env).loginProviders;

function refuses(env: Record<string, string>, variable: string, detail?: RegExp) {
  assert.throws(
    () => load(env),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.variable === variable &&
      error.message.includes(variable) &&
      !error.message.includes('\n') &&
      (detail === undefined || detail.test(error.message)),
    JSON.stringify(env),
  );
}

const CREDENTIALS = (name: string) => ({
  [`${name}_CLIENT_ID`]: `${name.toLowerCase()}-id`,
  [`${name}_CLIENT_SECRET`]: `${name.toLowerCase()}-secret`,
});

describe('LOGIN_PROVIDERS', () => {
  test('none by default', () => {
    assert.deepEqual(providers({}), []);
  });

  test('github: GitHub.com and its API, both e-mail scopes, trusted; Enterprise at URL/api/v3', () => {
    const [github] = providers({ LOGIN_PROVIDERS: 'github', ...CREDENTIALS('GITHUB') });
    assert.deepEqual(github, {
      name: 'github',
      kind: 'github',
      clientId: 'github-id',
      clientSecret: 'github-secret',
      label: 'GitHub',
      trustEmail: true,
      scopes: ['read:user', 'user:email'],
      webUrl: 'https://github.com',
      apiUrl: 'https://api.github.com',
    });
    const [enterprise] = providers({
      LOGIN_PROVIDERS: 'github',
      ...CREDENTIALS('GITHUB'),
      GITHUB_URL: 'https://git.example.com/',
    });
    assert.equal(enterprise?.kind === 'github' && enterprise.apiUrl, 'https://git.example.com/api/v3');
  });

  test('google and microsoft have built-in issuers; microsoft is not trusted for e-mail (nOAuth)', () => {
    const [google, microsoft] = providers({
      LOGIN_PROVIDERS: 'Google, microsoft',
      ...CREDENTIALS('GOOGLE'),
      ...CREDENTIALS('MICROSOFT'),
    });
    assert.equal(google?.kind === 'openid' && google.issuer, 'https://accounts.google.com');
    assert.equal(google?.trustEmail, true);
    assert.deepEqual(google?.scopes, ['openid', 'email', 'profile']);
    assert.equal(
      microsoft?.kind === 'openid' && microsoft.issuer,
      'https://login.microsoftonline.com/common/v2.0',
    );
    assert.equal(microsoft?.trustEmail, false);
    const [tenant] = providers({
      LOGIN_PROVIDERS: 'microsoft',
      ...CREDENTIALS('MICROSOFT'),
      MICROSOFT_TENANT: 'contoso.onmicrosoft.com',
    });
    assert.equal(
      tenant?.kind === 'openid' && tenant.issuer,
      'https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0',
    );
    refuses(
      { LOGIN_PROVIDERS: 'microsoft', ...CREDENTIALS('MICROSOFT'), MICROSOFT_TENANT: 'a/b' },
      'MICROSOFT_TENANT',
    );
  });

  test('any other name is an OpenID provider with NAME_ISSUER, label, scopes (openid added) and trust', () => {
    const [acme] = providers({
      LOGIN_PROVIDERS: 'acme',
      ...CREDENTIALS('ACME'),
      ACME_ISSUER: 'https://id.acme.test/realms/staff/',
      ACME_LABEL: 'Acme staff',
      ACME_SCOPES: 'email, profile',
      ACME_TRUST_EMAIL: 'yes',
    });
    // As written, trailing slash included: the discovery document's issuer must equal it exactly.
    assert.equal(acme?.kind === 'openid' && acme.issuer, 'https://id.acme.test/realms/staff/');
    assert.equal(acme?.label, 'Acme staff');
    assert.deepEqual(acme?.scopes, ['openid', 'email', 'profile']);
    assert.equal(acme?.trustEmail, true);
    assert.equal(
      providers({ LOGIN_PROVIDERS: 'acme', ...CREDENTIALS('ACME'), ACME_ISSUER: 'https://a.test' })[0]
        ?.trustEmail,
      false,
    );
    assert.equal(
      providers({ LOGIN_PROVIDERS: 'acme', ...CREDENTIALS('ACME'), ACME_ISSUER: 'https://a.test' })[0]?.label,
      'Acme',
    );
  });

  test('NAME_ISSUER overrides a built-in issuer (a stand-in Google on loopback)', () => {
    const [google] = providers({
      LOGIN_PROVIDERS: 'google',
      ...CREDENTIALS('GOOGLE'),
      GOOGLE_ISSUER: 'http://127.0.0.1:4444',
    });
    assert.equal(google?.kind === 'openid' && google.issuer, 'http://127.0.0.1:4444');
  });

  test('http only on loopback; no query, fragment or credentials', () => {
    for (const issuer of ['http://localhost:8080', 'http://127.0.0.1', 'http://[::1]:9000/x']) {
      assert.doesNotThrow(() =>
        load({ LOGIN_PROVIDERS: 'acme', ...CREDENTIALS('ACME'), ACME_ISSUER: issuer }),
      );
    }
    for (const issuer of [
      'http://id.acme.test',
      'http://10.0.0.1',
      'ftp://x.test',
      'not a url',
      'https://a.test/?x=1',
      'https://a.test/#f',
      'https://u:p@a.test',
    ]) {
      refuses({ LOGIN_PROVIDERS: 'acme', ...CREDENTIALS('ACME'), ACME_ISSUER: issuer }, 'ACME_ISSUER');
    }
    refuses(
      { LOGIN_PROVIDERS: 'github', ...CREDENTIALS('GITHUB'), GITHUB_URL: 'http://git.example.com' },
      'GITHUB_URL',
      /https/,
    );
    assert.doesNotThrow(() =>
      load({ LOGIN_PROVIDERS: 'github', ...CREDENTIALS('GITHUB'), GITHUB_URL: 'http://127.0.0.1:9999' }),
    );
  });

  test('a clear start error naming the variable', () => {
    refuses(
      { LOGIN_PROVIDERS: 'acme', ACME_CLIENT_SECRET: 's', ACME_ISSUER: 'https://a.test' },
      'ACME_CLIENT_ID',
      /required/,
    );
    refuses(
      { LOGIN_PROVIDERS: 'acme', ACME_CLIENT_ID: 'i', ACME_ISSUER: 'https://a.test' },
      'ACME_CLIENT_SECRET',
      /required/,
    );
    refuses({ LOGIN_PROVIDERS: 'acme', ...CREDENTIALS('ACME') }, 'ACME_ISSUER', /required/);
    refuses(
      {
        LOGIN_PROVIDERS: 'acme',
        ...CREDENTIALS('ACME'),
        ACME_ISSUER: 'https://a.test',
        ACME_TRUST_EMAIL: 'maybe',
      },
      'ACME_TRUST_EMAIL',
    );
    refuses({ LOGIN_PROVIDERS: 'github,github', ...CREDENTIALS('GITHUB') }, 'LOGIN_PROVIDERS', /twice/);
    for (const name of ['request', 'forward', '9lives', 'a-b', 'ä'])
      refuses({ LOGIN_PROVIDERS: name }, 'LOGIN_PROVIDERS');
  });
});
