import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeClock } from '../../src/lib/clock.ts';
import { countRows, describeApp, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { runCliInProcess } from '../helpers/cli.ts';
import { enableTwoFactor, midStep } from '../helpers/two-factor.ts';

const clock = fakeClock(midStep());

async function adminPasswordStep(ctx: TestApp, admin: { email: string; password: string }) {
  const browser = new Browser(ctx.app);
  await browser.get('/admin/login');
  return {
    browser,
    answer: await browser.post('/admin/login', { email: admin.email, password: admin.password }),
  };
}

async function lastAudit(ctx: TestApp, event: string) {
  return ctx.db
    .selectFrom('audit_log')
    .selectAll()
    .where('event', '=', event)
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

/** The DATABASE_URL the test app runs on, for a CLI run over the same data. */
function databaseUrl(ctx: TestApp): string {
  const database = ctx.config.database;
  return database.dialect === 'sqlite' ? `sqlite:${database.filename}` : database.url;
}

await describeApp(
  'two-factor in the panel and the CLI (docs/guides/two-factor.md)',
  (ctx) => {
    test('an admin with two-factor passes /admin/two-factor-challenge before any panel page', async () => {
      const admin = await ctx().createUser({ panelAccess: true });
      const enrolled = await enableTwoFactor(ctx(), admin);
      clock.advance(30_000);
      const { browser, answer } = await adminPasswordStep(ctx(), admin);
      assert.equal(answer.statusCode, 302);
      assert.equal(answer.headers.location, '/admin/two-factor-challenge');
      assert.equal((await browser.get('/admin')).headers.location, '/admin/login');
      const page = await browser.get('/admin/two-factor-challenge');
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /action="\/admin\/two-factor-challenge"/);
      const wrong = await browser.post('/admin/two-factor-challenge', { code: enrolled.code(5) });
      assert.equal(wrong.statusCode, 422);
      const done = await browser.post('/admin/two-factor-challenge', { code: enrolled.code() });
      assert.equal(done.statusCode, 302);
      assert.equal(done.headers.location, '/admin');
      assert.equal((await browser.get('/admin')).statusCode, 200);
      assert.equal((await lastAudit(ctx(), 'admin.login.succeeded'))?.subject_id, admin.id);
      // The web session is another guard: the panel's pending login never opened it.
      assert.equal((await browser.get('/dashboard')).statusCode, 302);
    });

    test("an admin turns off a user's two-factor: audited with the admin as actor, the user is mailed", async () => {
      const admin = await ctx().createUser({ panelAccess: true });
      const user = await ctx().createUser();
      await enableTwoFactor(ctx(), user);
      const { browser } = await adminPasswordStep(ctx(), admin);
      const page = await browser.get(`/admin/users/${user.id}`);
      assert.match(page.body, new RegExp(`action="/admin/users/${user.id}/two-factor/disable"`));
      const mails = await countRows(ctx().db, 'mail_outbox');
      // The acting admin's own password (docs/security.md "The owner").
      const done = await browser.post(`/admin/users/${user.id}/two-factor/disable`, {
        password: admin.password,
      });
      assert.equal(done.statusCode, 302);
      assert.equal(done.headers.location, `/admin/users/${user.id}`);
      assert.equal((await ctx().services.auth.twoFactor.state(user.id)).status, 'off');
      const row = await lastAudit(ctx(), 'two_factor.disabled');
      assert.equal(row?.actor_id, admin.id);
      assert.equal(row?.subject_id, user.id);
      assert.deepEqual(JSON.parse(row!.details!), { by: 'admin', was_enabled: true });
      assert.equal(await countRows(ctx().db, 'mail_outbox'), mails + 1);
      const again = await browser.postJson(`/admin/users/${user.id}/two-factor/disable`, {
        password: admin.password,
      });
      assert.equal(again.statusCode, 200);
      assert.match(again.json().message, /has no two-factor authentication/);
      // Without CSRF: 419, nothing changes.
      const forged = await ctx().app.inject({
        method: 'POST',
        url: `/admin/users/${user.id}/two-factor/disable`,
        headers: { cookie: browser.cookieHeader() },
      });
      assert.equal(forged.statusCode, 419);
    });

    test('gatehouse two-factor:disable --email E', async () => {
      const user = await ctx().createUser();
      await enableTwoFactor(ctx(), user);
      const env = {
        DATABASE_URL: databaseUrl(ctx()),
        APP_KEY: ctx().config.appKey.toString('utf8'),
        STORAGE_PATH: ctx().config.storagePath,
        MAIL_MAILER: 'log',
      };
      env.APP_KEY = `base64:${ctx().config.appKey.toString('base64')}`;
      const off = await runCliInProcess(['two-factor:disable', '--email', user.email.toUpperCase()], env);
      assert.equal(off.code, 0, off.stderr);
      assert.equal(off.stdout, `Two-factor authentication turned off for ${user.email}.\n`);
      assert.equal((await ctx().services.auth.twoFactor.state(user.id)).status, 'off');
      const row = await lastAudit(ctx(), 'two_factor.disabled');
      assert.equal(row?.actor_id, null);
      assert.deepEqual(JSON.parse(row!.details!), { by: 'cli', was_enabled: true });
      const again = await runCliInProcess(['two-factor:disable', '--email', user.email], env);
      assert.equal(again.code, 0);
      assert.match(again.stdout, /has no two-factor authentication/);
      for (const [args, message] of [
        [['two-factor:disable'], /^Usage: gatehouse two-factor:disable --email ADDRESS\n$/],
        [
          ['two-factor:disable', '--email', 'nobody@example.com'],
          /^No user has the e-mail address nobody@example\.com\.\n$/,
        ],
        [['two-factor:disable', '--email', 'not-an-address'], /is not a valid e-mail address/],
      ] as const) {
        const failed = await runCliInProcess([...args], env);
        assert.notEqual(failed.code, 0);
        assert.match(failed.stderr, message);
      }
      const help = await runCliInProcess(['two-factor:disable', '--help'], env);
      assert.equal(help.code, 0);
      assert.match(help.stdout, /--email/);
    });
  },
  { overrides: { clock }, env: { IP_AUTH_LIMIT: '0' } },
);

await describeApp(
  'ADMIN_REQUIRE_TWO_FACTOR=true (docs/guides/two-factor.md)',
  (ctx) => {
    test('an admin without two-factor opens no panel page until it is on', async () => {
      const admin = await ctx().createUser({ panelAccess: true });
      const { browser, answer } = await adminPasswordStep(ctx(), admin);
      assert.equal(answer.headers.location, '/admin');
      for (const path of ['/admin', '/admin/users', `/admin/users/${admin.id}`, '/admin/audit']) {
        const refused = await browser.get(path);
        assert.equal(refused.statusCode, 302, path);
        assert.equal(refused.headers.location, '/admin/two-factor-required');
      }
      const json = await browser.get('/admin/users', { accept: 'application/json' });
      assert.equal(json.statusCode, 403);
      assert.deepEqual(json.json(), {
        message: 'The administration panel requires two-factor authentication.',
      });
      const notice = await browser.get('/admin/two-factor-required');
      assert.equal(notice.statusCode, 200);
      assert.match(notice.body, /href="\/user\/two-factor"/);
      // Actions are refused too, not only pages.
      const user = await ctx().createUser();
      await browser.post(`/admin/users/${user.id}/disable`);
      assert.equal(
        (await ctx().services.auth.providerOf('web').retrieveById(user.id))?.disabledAt ?? null,
        null,
      );
      await enableTwoFactor(ctx(), admin);
      assert.equal((await browser.get('/admin')).statusCode, 200);
    });
  },
  { overrides: { clock }, env: { IP_AUTH_LIMIT: '0', ADMIN_REQUIRE_TWO_FACTOR: 'true' } },
);
