import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { describeEachDialect, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { leaves, parseMime } from '../helpers/mime.ts';
import { eventually } from '../helpers/process.ts';
import { extractLinks } from '../helpers/smtp-sink.ts';

const FIRST_PASSWORD = 'saffron-glacier-tundra-81';
const WRONG_PASSWORD = 'saffron-glacier-tundra-18';
const NEW_PASSWORD = 'cobalt-meadow-lighthouse-27';

/** The link of the newest .eml of `kind` the log mailer wrote to storage/mail/ for `email`. */
async function mailedLink(app: TestApp, kind: string, email: string, part: string): Promise<URL> {
  const folder = join(app.config.storagePath, 'mail');
  return eventually(
    () => {
      let files: string[] = [];
      try {
        files = readdirSync(folder).filter((f) => f.includes(`-${kind}-`));
      } catch {
        return undefined;
      }
      for (const file of files.sort().reverse()) {
        const mime = parseMime(readFileSync(join(folder, file)));
        if (!mime.headers.get('to')?.[0]?.includes(email)) continue;
        const parts = leaves(mime);
        const text = parts.find((p) => p.contentType === 'text/plain')?.body ?? '';
        const html = parts.find((p) => p.contentType === 'text/html')?.body ?? '';
        const link = extractLinks({ text, html }).find((l) => l.includes(part));
        if (link) return new URL(link);
      }
      return undefined;
    },
    10_000,
    `a ${kind} mail to ${email}`,
  );
}

/**
 * Issue 7 §7 / docs/guides/operations.md: during a whole tour of the service at LOG_LEVEL=trace — registration,
 * the mailed verification link, logout, login with remember-me, a wrong password, API tokens (also
 * one put in a query string), the mailed reset link, the reset, the panel — no log line holds a
 * password, a token or its secret part, a reset token, a link signature or any cookie value.
 * Mail goes through the `log` mailer, which writes every mail to the log as well.
 */
await describeEachDialect(
  'no secret in any log line',
  (ctx) => {
    test('a full flow leaves only redacted traces', async (t) => {
      const app = ctx();
      app.services.outbox.start(app.app.log);
      const secrets = new Set<string>([FIRST_PASSWORD, WRONG_PASSWORD, NEW_PASSWORD]);
      const browser = new Browser(app.app);
      const collect = (response: LightMyRequestResponse) => {
        for (const cookie of response.cookies) if (cookie.value.length >= 8) secrets.add(cookie.value);
        return response;
      };
      const email = `secret-keeper-${Date.now()}@example.com`;

      collect(await browser.get('/register'));
      const registered = collect(
        await browser.post('/register', {
          name: 'Secret Keeper',
          email,
          password: FIRST_PASSWORD,
          password_confirmation: FIRST_PASSWORD,
        }),
      );
      assert.equal(registered.statusCode, 302);
      secrets.add(browser.csrf!);

      const verify = await mailedLink(app, 'verify-email', email, '/email/verify/');
      secrets.add(verify.searchParams.get('signature')!);
      assert.equal(collect(await browser.get(verify.pathname + verify.search)).statusCode, 302);

      await browser.get('/dashboard');
      assert.equal(collect(await browser.post('/logout')).statusCode, 302);
      collect(await browser.get('/login'));
      assert.equal(
        collect(await browser.post('/login', { email, password: WRONG_PASSWORD })).statusCode,
        422,
      );
      const login = collect(await browser.post('/login', { email, password: FIRST_PASSWORD, remember: '1' }));
      assert.equal(login.statusCode, 302);
      assert.ok(login.cookies.some((c) => c.name === 'gatehouse_remember'));

      const token = await app.issueToken(email, FIRST_PASSWORD, { device_name: 'laptop' });
      secrets.add(token);
      secrets.add(token.split('|')[1]!);
      const bearer = { authorization: `Bearer ${token}` };
      assert.equal((await app.app.inject({ url: '/api/user', headers: bearer })).statusCode, 200);
      // A token in the query string authenticates nothing and must not be logged either.
      await app.app.inject({ url: `/api/user?token=${encodeURIComponent(token)}` });
      await app.app.inject({ url: '/api/user', headers: { authorization: `Bearer ${token}x` } });
      assert.equal(
        (await app.app.inject({ method: 'DELETE', url: '/api/tokens/current', headers: bearer })).statusCode,
        204,
      );

      const guest = new Browser(app.app);
      await guest.get('/forgot-password');
      assert.equal((await guest.post('/forgot-password', { email })).statusCode, 302);
      const reset = await mailedLink(app, 'reset-password', email, '/reset-password/');
      const resetToken = reset.pathname.split('/').pop()!;
      secrets.add(resetToken);
      collect(await guest.get(reset.pathname + reset.search));
      const done = collect(
        await guest.post('/reset-password', {
          token: resetToken,
          email,
          password: NEW_PASSWORD,
          password_confirmation: NEW_PASSWORD,
        }),
      );
      assert.equal(done.statusCode, 302);
      // The spent token once more (invalid now), and the new password through the API.
      await guest.post('/reset-password', {
        token: resetToken,
        email,
        password: NEW_PASSWORD,
        password_confirmation: NEW_PASSWORD,
      });
      secrets.add(await app.issueToken(email, NEW_PASSWORD));

      const admin = await app.createUser({ panelAccess: true, password: 'panel-keeper-passphrase-3' });
      secrets.add(admin.password);
      const panel = new Browser(app.app);
      collect(await panel.get('/admin/login'));
      const adminLogin = collect(
        await panel.post('/admin/login', { email: admin.email, password: admin.password }),
      );
      assert.equal(adminLogin.statusCode, 302);
      collect(await panel.get('/admin/users'));
      await app.services.outbox.drain();

      // Something was logged: one line per request, and the mails.
      const lines = app.logs;
      assert.ok(lines.length > 20, `only ${lines.length} log lines`);
      assert.ok(
        lines.some((l) => l.includes('"kind":"reset-password"')),
        'the reset mail was logged (with its token redacted)',
      );
      for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), `not a JSON line: ${line}`);
      const leaks: string[] = [];
      for (const secret of secrets) {
        for (const form of new Set([secret, encodeURIComponent(secret)])) {
          const line = lines.find((l) => l.includes(form));
          if (line) leaks.push(`${secret.slice(0, 6)}… in ${line.slice(0, 200)}`);
        }
      }
      t.diagnostic(`${lines.length} log lines checked against ${secrets.size} secrets`);
      assert.deepEqual(leaks, []);
    });
  },
  { env: { LOG_LEVEL: 'trace', MAIL_MAILER: 'log', API_RATE_LIMIT: '0' } },
);
