import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { trustedPeer } from '../../src/http/trust-proxy.ts';
import { assertSafeAddress } from '../../src/mail/message.ts';

const storage = mkdtempSync(join(tmpdir(), 'gatehouse-config-'));
after(() => rmSync(storage, { recursive: true, force: true }));

const KEY = `base64:${Buffer.alloc(32, 1).toString('base64')}`;
const load = (env: Record<string, string>) =>
  loadConfig({ APP_KEY: KEY, STORAGE_PATH: storage, ...env }, { readDotEnv: false, cwd: storage });

/** Asserts that `env` is refused with a ConfigError naming `variable` in one line. */
function refuses(env: Record<string, string>, variable: string) {
  assert.throws(
    () => load(env),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.variable === variable &&
      error.message.includes(variable) &&
      !error.message.includes('\n'),
    JSON.stringify(env),
  );
}

describe('APP_URL', () => {
  test('defaults to http://localhost:$PORT (a passkey domain, which an IP address is not)', () => {
    assert.equal(load({}).appUrl, 'http://localhost:3000');
    assert.equal(load({ PORT: '4123' }).appUrl, 'http://localhost:4123');
    assert.equal(
      load({ PORT: '4123', APP_URL: 'https://auth.example.com' }).appUrl,
      'https://auth.example.com',
    );
  });
});

describe('TOKEN_EXPIRATION', () => {
  test('defaults to 525960 minutes', () => {
    assert.equal(load({}).tokenExpirationMinutes, 525960);
  });

  test('`null`, empty or blank means tokens never expire', () => {
    for (const value of ['null', 'NULL', '', '   ']) {
      assert.equal(load({ TOKEN_EXPIRATION: value }).tokenExpirationMinutes, null, JSON.stringify(value));
    }
  });

  test('takes whole minutes ≥ 1', () => {
    assert.equal(load({ TOKEN_EXPIRATION: '10' }).tokenExpirationMinutes, 10);
    for (const value of ['0', '-5', '1.5', 'ten', '10m'])
      refuses({ TOKEN_EXPIRATION: value }, 'TOKEN_EXPIRATION');
  });
});

describe('API token settings', () => {
  test('TOKEN_PREFIX is empty by default and limited to scanner-friendly characters', () => {
    assert.equal(load({}).tokenPrefix, '');
    assert.equal(load({ TOKEN_PREFIX: 'gh_live-' }).tokenPrefix, 'gh_live-');
    for (const value of ['a|b', 'with space', 'x'.repeat(33), 'é'])
      refuses({ TOKEN_PREFIX: value }, 'TOKEN_PREFIX');
  });

  test('API_RATE_LIMIT defaults to 60 a minute; 0 switches it off', () => {
    assert.equal(load({}).apiRateLimitPerMinute, 60);
    assert.equal(load({ API_RATE_LIMIT: '0' }).apiRateLimitPerMinute, 0);
    refuses({ API_RATE_LIMIT: 'lots' }, 'API_RATE_LIMIT');
  });

  test('login throttle: 5 attempts per 60 s by default', () => {
    const config = load({});
    assert.equal(config.loginMaxAttempts, 5);
    assert.equal(config.loginDecaySeconds, 60);
  });
});

describe('REDIS_URL and REDIS_PREFIX', () => {
  test('Redis is off unless REDIS_URL is set', () => {
    assert.equal(load({}).redisUrl, null);
    assert.equal(load({ REDIS_URL: 'redis://127.0.0.1:6379/2' }).redisUrl, 'redis://127.0.0.1:6379/2');
    refuses({ REDIS_URL: 'http://127.0.0.1:6379' }, 'REDIS_URL');
  });

  test('keys are prefixed with `gatehouse:` unless REDIS_PREFIX says otherwise', () => {
    assert.equal(load({}).redisPrefix, 'gatehouse:');
    assert.equal(load({ REDIS_PREFIX: 'tenant-a:gh:' }).redisPrefix, 'tenant-a:gh:');
    for (const value of ['has space', 'a*', 'x'.repeat(65)]) refuses({ REDIS_PREFIX: value }, 'REDIS_PREFIX');
  });
});

describe('DATABASE_URL', () => {
  test('sqlite:PATH (relative to the working directory), sqlite::memory:, postgres:// and mysql://', () => {
    assert.deepEqual(load({}).database, {
      dialect: 'sqlite',
      filename: join(storage, 'storage/database.sqlite'),
    });
    assert.deepEqual(load({ DATABASE_URL: 'sqlite::memory:' }).database, {
      dialect: 'sqlite',
      filename: ':memory:',
    });
    assert.deepEqual(load({ DATABASE_URL: 'sqlite:/tmp/x.db' }).database, {
      dialect: 'sqlite',
      filename: '/tmp/x.db',
    });
    assert.deepEqual(load({ DATABASE_URL: 'postgres://u@h:5432/d' }).database, {
      dialect: 'postgres',
      url: 'postgres://u@h:5432/d',
    });
    assert.deepEqual(load({ DATABASE_URL: 'mysql://u:p%40ss@h:3306/d' }).database, {
      dialect: 'mysql',
      url: 'mysql://u:p%40ss@h:3306/d',
    });
    // mariadb:// is the same driver and the same behaviour; it is handed on as mysql://.
    assert.deepEqual(load({ DATABASE_URL: 'mariadb://u@h/d?ssl={}' }).database, {
      dialect: 'mysql',
      url: 'mysql://u@h/d?ssl={}',
    });
  });

  test('anything else stops the start naming DATABASE_URL', () => {
    for (const value of [
      'sqlite:',
      'postgres://',
      'database.sqlite',
      'postgres://a b',
      'mongodb://h/d',
      // MySQL without a database, without a host, with a path that is not one name, or not a URL.
      'mysql://x',
      'mysql://x/',
      'mysql:///d',
      'mysql://h/a/b',
      'mariadb://a b/d',
    ]) {
      refuses({ DATABASE_URL: value }, 'DATABASE_URL');
    }
  });
});

describe('invalid configuration', () => {
  test('names the variable for non-numeric lifetimes and bad ports', () => {
    refuses({ SESSION_LIFETIME: 'two hours' }, 'SESSION_LIFETIME');
    refuses({ PORT: '70000' }, 'PORT');
    refuses({ APP_URL: 'ftp://example.com' }, 'APP_URL');
    refuses({ TRUST_PROXY: 'maybe' }, 'TRUST_PROXY');
  });

  test('leaves no generated APP_KEY behind when another variable is bad', () => {
    const fresh = mkdtempSync(join(tmpdir(), 'gatehouse-config-'));
    try {
      assert.throws(
        () => loadConfig({ STORAGE_PATH: fresh, DATABASE_URL: 'mysql://x' }, { readDotEnv: false }),
        ConfigError,
      );
      assert.deepEqual(readdirSync(fresh), []);
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  test('the config is frozen', () => {
    const config = load({});
    assert.throws(() => {
      (config as { port: number }).port = 1;
    }, TypeError);
  });
});

describe('MAIL_FROM_ADDRESS', () => {
  test('the default is an address the mailer accepts, whatever the APP_URL host', () => {
    const cases: [string, string][] = [
      ['https://auth.example.com', 'no-reply@auth.example.com'],
      ['http://localhost:3000', 'no-reply@localhost.localdomain'],
      ['http://127.0.0.1:3000', 'no-reply@localhost.localdomain'],
      ['http://[::1]:3000', 'no-reply@localhost.localdomain'],
      ['http://intranet', 'no-reply@localhost.localdomain'],
    ];
    for (const [url, sender] of cases) {
      const { fromAddress } = load({ APP_URL: url }).mail;
      assert.equal(fromAddress, sender, url);
      assert.doesNotThrow(() => assertSafeAddress(fromAddress), `${url}: the mailer takes ${fromAddress}`);
    }
  });

  test('a configured sender the mailer would refuse stops the start, named in one line', () => {
    for (const bad of [
      'no-reply@localhost',
      'root',
      'a@b@c.com',
      'x@example.com, y@example.com',
      'me@[10.0.0.1]',
    ]) {
      refuses({ MAIL_FROM_ADDRESS: bad }, 'MAIL_FROM_ADDRESS');
    }
    assert.equal(load({ MAIL_FROM_ADDRESS: 'ops@example.org' }).mail.fromAddress, 'ops@example.org');
  });
});

describe('DATABASE_URL', () => {
  test('a SQLite file in a folder that does not exist is refused, naming the folder; nothing is created', () => {
    const missing = join(storage, 'no-such-folder', 'deeper');
    assert.throws(
      () => load({ DATABASE_URL: `sqlite:${join(missing, 'db.sqlite')}` }),
      (error: unknown) =>
        error instanceof ConfigError && error.variable === 'DATABASE_URL' && error.message.includes(missing),
    );
    assert.ok(!readdirSync(storage).includes('no-such-folder'));
    // An existing folder, and the default storage/ (created on first start), are fine.
    assert.doesNotThrow(() => load({ DATABASE_URL: `sqlite:${join(storage, 'db.sqlite')}` }));
    assert.doesNotThrow(() => load({}));
  });
});

describe('FORWARD_AUTH_DOMAINS', () => {
  test('defaults to none; entries are trimmed, lower-cased, deduplicated', () => {
    assert.deepEqual(load({}).forwardAuthDomains, []);
    assert.deepEqual(
      load({ FORWARD_AUTH_DOMAINS: ' App.Example.com, *.tools.example.com,app.example.com' })
        .forwardAuthDomains,
      ['app.example.com', '*.tools.example.com'],
    );
  });

  test('a URL, a path, a bare wildcard or a bad port stops the start, naming the variable', () => {
    for (const bad of [
      'https://app.example.com',
      'app.example.com/x',
      '*',
      'app.example.com:0',
      'a b.com',
      'user@app.example.com',
    ]) {
      refuses({ FORWARD_AUTH_DOMAINS: bad }, 'FORWARD_AUTH_DOMAINS');
    }
  });
});

describe('SESSION_DOMAIN', () => {
  test("unset: host-only cookies; Laravel's leading dot is accepted", () => {
    assert.equal(load({}).sessionDomain, null);
    const config = load({ APP_URL: 'https://auth.example.com', SESSION_DOMAIN: '.Example.com' });
    assert.equal(config.sessionDomain, 'example.com');
    assert.equal(
      load({ APP_URL: 'https://example.com', SESSION_DOMAIN: 'example.com' }).sessionDomain,
      'example.com',
    );
  });

  test('a domain that does not cover APP_URL, an IP or a single label stops the start', () => {
    const appUrl = 'https://auth.example.com';
    refuses({ APP_URL: appUrl, SESSION_DOMAIN: 'evil.test' }, 'SESSION_DOMAIN');
    refuses({ APP_URL: appUrl, SESSION_DOMAIN: 'ample.com' }, 'SESSION_DOMAIN');
    refuses({ APP_URL: appUrl, SESSION_DOMAIN: 'other.example.com' }, 'SESSION_DOMAIN');
    refuses({ APP_URL: 'http://127.0.0.1:3000', SESSION_DOMAIN: '127.0.0.1' }, 'SESSION_DOMAIN');
    refuses({ APP_URL: 'http://localhost:3000', SESSION_DOMAIN: 'localhost' }, 'SESSION_DOMAIN');
    refuses({ APP_URL: appUrl, SESSION_DOMAIN: 'example.com/x' }, 'SESSION_DOMAIN');
  });
});

describe('trustedPeer (whose X-Forwarded-Uri is believed)', () => {
  test('unset: nobody; a hop count: the nearest peer; addresses and CIDRs: those only', () => {
    assert.equal(trustedPeer(false)('127.0.0.1'), false);
    assert.equal(trustedPeer(1)('203.0.113.9'), true);
    const listed = trustedPeer('10.0.0.0/8,::1,192.0.2.7');
    assert.equal(listed('10.1.2.3'), true);
    assert.equal(listed('::ffff:10.1.2.3'), true, 'IPv4-mapped on a dual-stack socket');
    assert.equal(listed('::1'), true);
    assert.equal(listed('192.0.2.7'), true);
    assert.equal(listed('192.0.2.8'), false);
    assert.equal(listed('11.0.0.1'), false);
    assert.equal(listed(undefined), false);
  });
});

test('every lifetime is at most ten years: a longer one stops the start, naming the variable', () => {
  // With 9007199254740991, REMEMBER_LIFETIME and SESSION_ABSOLUTE_LIFETIME stopped the start with the
  // OpenID provider's "ttl.Grant must be a positive integer", naming no variable, and
  // ORG_INVITATION_EXPIRE stored invitations whose expiry no date can hold (500s from then on).
  const lifetimes: Record<string, number> = {
    SESSION_LIFETIME: 5_259_600,
    SESSION_ABSOLUTE_LIFETIME: 5_259_600,
    ADMIN_SESSION_LIFETIME: 5_259_600,
    REMEMBER_LIFETIME: 5_259_600,
    TOKEN_EXPIRATION: 5_259_600,
    PASSWORD_RESET_EXPIRE: 5_259_600,
    VERIFICATION_EXPIRE: 5_259_600,
    ORG_INVITATION_EXPIRE: 5_259_600,
    LOGIN_DECAY_SECONDS: 315_576_000,
    PASSWORD_TIMEOUT: 315_576_000,
  };
  for (const [name, max] of Object.entries(lifetimes)) {
    assert.doesNotThrow(() => load({ [name]: String(max) }), name);
    for (const value of [String(max + 1), '9007199254740991']) {
      assert.throws(
        () => load({ [name]: value }),
        (error: unknown) =>
          error instanceof ConfigError && error.message.includes(`${name} must be between 1 and ${max}`),
        `${name}=${value}`,
      );
    }
  }
});
