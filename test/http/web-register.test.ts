import assert from 'node:assert/strict';
import { test } from 'node:test';
import { registerUser } from '../../src/users/registration.ts';
import { countRows, describeApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';

const GOOD_PASSWORD = 'tangerine-orbit-42';

function form(overrides: Record<string, string> = {}) {
  return {
    name: 'Grace Hopper',
    email: `grace.${Math.random().toString(36).slice(2)}@Example.COM`,
    password: GOOD_PASSWORD,
    password_confirmation: GOOD_PASSWORD,
    ...overrides,
  };
}

await describeApp('web registration', (ctx) => {
  test('GET /register shows a labelled form with a CSRF token', async () => {
    const browser = new Browser(ctx().app);
    const page = await browser.get('/register');
    assert.equal(page.statusCode, 200);
    assert.match(page.headers['content-type'] as string, /^text\/html/);
    for (const name of ['name', 'email', 'password', 'password_confirmation']) {
      assert.match(page.body, new RegExp(`<label for="field-${name}">`), `label for ${name}`);
      assert.match(page.body, new RegExp(`id="field-${name}" name="${name}"`));
    }
    assert.ok(browser.csrf);
  });

  test('success: stored lower-cased in the request language, audited, logged in, 302 /dashboard', async () => {
    const { app, db } = ctx();
    const browser = new Browser(app);
    await browser.get('/register?lang=fr');
    const input = form({ name: '  Grace Hopper  ' });
    const guestId = browser.cookies.get('gatehouse_session');
    const response = await browser.post('/register', input);
    assert.equal(response.statusCode, 302);
    assert.equal(response.headers.location, '/dashboard');
    assert.notEqual(browser.cookies.get('gatehouse_session'), guestId, 'a new session id after registration');

    const row = await db
      .selectFrom('users')
      .selectAll()
      .where('email', '=', input.email.toLowerCase())
      .executeTakeFirstOrThrow();
    assert.equal(row.name, 'Grace Hopper');
    assert.equal(row.locale, 'fr');
    assert.equal(row.email_verified_at, null);
    assert.match(row.password, /^\$argon2id\$/);
    const audit = await db
      .selectFrom('audit_log')
      .selectAll()
      .where('event', '=', 'user.registered')
      .where('subject_id', '=', row.id)
      .execute();
    assert.equal(audit.length, 1);

    const dashboard = await browser.get('/dashboard');
    assert.equal(dashboard.statusCode, 200);
    assert.match(dashboard.body, /Grace Hopper/);
    assert.match(
      dashboard.body,
      /Bienvenue à bord ! Votre compte a été créé et nous avons envoyé un lien de vérification à [^<]+@/,
      'flash status shown once, naming the address the link went to',
    );
    assert.match(dashboard.body, /href="\/email\/verify"/, 'unverified users are pointed to verification');
    const again = await browser.get('/dashboard');
    assert.doesNotMatch(again.body, /Bienvenue à bord/);
  });

  test('validation: each rule answers 422 with its message, input kept but never a password', async () => {
    const { app, db } = ctx();
    const browser = new Browser(app);
    await browser.get('/register');
    const users = await countRows(db, 'users');
    const cases: [Record<string, string>, string, string][] = [
      [{ name: '' }, 'name', 'The name field is required.'],
      [{ name: 'x'.repeat(256) }, 'name', 'The name field must not be greater than 255 characters.'],
      [{ name: 'Line\nbreak' }, 'name', 'The name field must be a string.'],
      [{ email: '' }, 'email', 'The email field is required.'],
      [{ email: 'not-an-email' }, 'email', 'The email field must be a valid email address.'],
      [
        { email: `${'a'.repeat(250)}@example.com` },
        'email',
        'The email field must be a valid email address.',
      ],
      [{ password: '', password_confirmation: '' }, 'password', 'The password field is required.'],
      [
        { password: 'short', password_confirmation: 'short' },
        'password',
        'The password field must be at least 8 characters.',
      ],
      [
        { password: 'p'.repeat(129), password_confirmation: 'p'.repeat(129) },
        'password',
        'The password field must not be greater than 128 characters.',
      ],
      // On the page the mismatch stands at the confirmation field (JSON keeps `password`, below).
      [
        { password_confirmation: 'something-else' },
        'password_confirmation',
        'The password field confirmation does not match.',
      ],
      [
        { password: 'password123', password_confirmation: 'password123' },
        'password',
        'The given password has appeared in a data leak. Please choose a different password.',
      ],
    ];
    for (const [overrides, fieldName, message] of cases) {
      const input = form(overrides);
      const response = await browser.post('/register', input);
      assert.equal(response.statusCode, 422, `${JSON.stringify(overrides)} → 422`);
      assert.ok(response.body.includes(message), `${fieldName}: ${message}`);
      assert.match(response.body, new RegExp(`id="field-${fieldName}-error"`));
      if (fieldName !== 'email' && fieldName !== 'name') {
        assert.ok(response.body.includes(`value="${input.email}"`), 'e-mail kept');
        assert.ok(response.body.includes('value="Grace Hopper"'), 'name kept');
      }
      assert.ok(!response.body.includes(`value="${input.password}"`), 'password never echoed');
      assert.ok(
        !response.body.includes(`value="${input.password_confirmation}"`),
        'confirmation never echoed',
      );
    }
    assert.equal(await countRows(db, 'users'), users, 'no user created by invalid input');

    const json = await browser.postJson('/register', form({ password_confirmation: 'something-else' }));
    assert.equal(json.statusCode, 422);
    assert.deepEqual(json.json().errors, { password: ['The password field confirmation does not match.'] });
  });

  test('an address taken in any letter case: 422 "The email has already been taken."', async () => {
    const { app, db, createUser } = ctx();
    const existing = await createUser({ email: 'taken@example.com' });
    const browser = new Browser(app);
    await browser.get('/register');
    const users = await countRows(db, 'users');
    const response = await browser.post('/register', form({ email: 'TAKEN@Example.com' }));
    assert.equal(response.statusCode, 422);
    assert.match(response.body, /The email has already been taken\./);
    assert.equal(await countRows(db, 'users'), users);
    assert.ok(existing.id > 0);

    const json = await browser.postJson('/register', form({ email: 'Taken@example.com' }));
    assert.equal(json.statusCode, 422);
    assert.deepEqual(json.json(), {
      message: 'The email has already been taken.',
      errors: { email: ['The email has already been taken.'] },
    });
  });

  test('50 concurrent registrations of one address in case variants: exactly one account, no 500', async () => {
    const { app, db } = ctx();
    const address = `race-${Date.now()}@example.com`;
    const browsers = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const browser = new Browser(app);
        await browser.get('/register');
        return browser;
      }),
    );
    const variants = (i: number) =>
      [...address].map((c, j) => ((i >> (j % 8)) & 1 ? c.toUpperCase() : c)).join('');
    const responses = await Promise.all(
      browsers.map((browser, i) => browser.post('/register', form({ email: variants(i) }))),
    );
    const statuses = responses.map((r) => r.statusCode);
    assert.equal(statuses.filter((s) => s === 302).length, 1, `statuses: ${statuses.join(',')}`);
    assert.equal(statuses.filter((s) => s === 422).length, 49);
    for (const response of responses.filter((r) => r.statusCode === 422)) {
      assert.match(response.body, /The email has already been taken\./);
    }
    const rows = await db.selectFrom('users').select('email').where('email', '=', address).execute();
    assert.equal(rows.length, 1);
  });

  test('JSON: 204 and logged in; validation errors in the documented error format', async () => {
    const { app } = ctx();
    const browser = new Browser(app);
    await browser.get('/register');
    const invalid = await browser.postJson('/register', { name: '', email: 'nope', password: 'short' });
    assert.equal(invalid.statusCode, 422);
    assert.deepEqual(invalid.json(), {
      message: 'The name field is required. (and 2 more errors)',
      errors: {
        name: ['The name field is required.'],
        email: ['The email field must be a valid email address.'],
        password: ['The password field must be at least 8 characters.'],
      },
    });
    const ok = await browser.postJson('/register', form());
    assert.equal(ok.statusCode, 204);
    assert.equal(ok.body, '');
    assert.equal((await browser.get('/dashboard')).statusCode, 200);
  });

  test('signed-in users are sent from /register and /login to the dashboard', async () => {
    const { app } = ctx();
    const browser = new Browser(app);
    await browser.get('/register');
    await browser.post('/register', form());
    for (const path of ['/register', '/login']) {
      const response = await browser.get(path);
      assert.equal(response.statusCode, 302, path);
      assert.equal(response.headers.location, '/dashboard');
    }
  });

  test('POST /register without a CSRF token: 419 and nothing stored', async () => {
    const { app, db } = ctx();
    const users = await countRows(db, 'users');
    const response = await app.inject({
      method: 'POST',
      url: '/register',
      payload: new URLSearchParams(form()).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(response.statusCode, 419);
    assert.match(response.body, /Page Expired/);
    assert.equal(await countRows(db, 'users'), users);
  });

  test('registerUser: afterCreate runs in the transaction; a throw there rolls the account back', async () => {
    const { db, services } = ctx();
    const audit = { ip: '127.0.0.1', now: Date.now() };
    const seen: string[] = [];
    const ok = await registerUser(
      services.database.db,
      services.hasher,
      { name: 'Hook', email: 'Hook@Example.com', password: GOOD_PASSWORD, locale: 'de' },
      audit,
      {
        afterCreate: async (trx, user) => {
          const inside = await trx
            .selectFrom('users')
            .select('id')
            .where('id', '=', user.id)
            .executeTakeFirst();
          seen.push(`${user.email}:${inside?.id === user.id}`);
        },
      },
    );
    assert.equal(ok.status, 'registered');
    assert.deepEqual(seen, ['hook@example.com:true']);

    const users = await countRows(db, 'users');
    const audits = await countRows(db, 'audit_log');
    await assert.rejects(
      registerUser(
        services.database.db,
        services.hasher,
        { name: 'Boom', email: 'boom@example.com', password: GOOD_PASSWORD, locale: 'en' },
        audit,
        {
          afterCreate: async () => {
            throw new Error('mail queue down');
          },
        },
      ),
      /mail queue down/,
    );
    assert.equal(await countRows(db, 'users'), users, 'the user row was rolled back');
    assert.equal(await countRows(db, 'audit_log'), audits, 'and so was its audit row');
  });
});
