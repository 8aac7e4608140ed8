import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEVICE_COOKIE } from '../../src/auth/login/device-cookies.ts';
import { sendJson } from '../helpers/account.ts';
import { describeEachDialect, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';

/** ACCOUNT_MAX_FAILURES in these apps: small, so a spray is quick; the rule is the same at 20. */
const MAX = 6;
const WRONG = 'wrong password!';
let addresses = 0;
const nextIp = () => {
  addresses++;
  return `10.9.${(addresses >> 8) & 255}.${addresses & 255}`;
};

/** The owner signed in from one address: their browser (holding the device cookie) and its cookies. */
async function owner(t: TestApp) {
  const user = await t.createUser();
  const browser = new Browser(t.app, { 'x-forwarded-for': nextIp() });
  await browser.get('/login');
  const login = await browser.post('/login', { email: user.email, password: user.password });
  assert.equal(login.statusCode, 302, login.body);
  await browser.get('/dashboard');
  assert.ok(browser.cookies.get(DEVICE_COOKIE));
  return { user, browser };
}

/** The session cookie alone, copied into a browser elsewhere (a stolen cookie, no device cookie). */
function thief(t: TestApp, from: Browser): Browser {
  const stolen = new Browser(t.app);
  stolen.cookies.set('gatehouse_session', from.cookies.get('gatehouse_session')!);
  stolen.csrf = from.csrf;
  return stolen;
}

/** The account's four password checks, a wrong password each. */
const CHECKS: Array<[method: 'POST' | 'PUT' | 'DELETE', url: string, body: Record<string, string>]> = [
  ['POST', '/user/confirm-password', { password: WRONG }],
  ['DELETE', '/user/other-browser-sessions', { password: WRONG }],
  [
    'PUT',
    '/user/password',
    { current_password: WRONG, password: 'a new one 1234', password_confirmation: 'a new one 1234' },
  ],
  ['DELETE', '/user', { password: WRONG }],
];

/**
 * docs/security.md "Every password check counts": /user/confirm-password and the account's other password
 * checks count toward ACCOUNT_MAX_FAILURES as logins do. The audit: a stolen session cookie used from many
 * addresses was a password oracle, each address held only to the per-e-mail+IP count.
 */
await describeEachDialect(
  'every password check counts toward ACCOUNT_MAX_FAILURES',
  (ctx) => {
    test('a stolen session from many addresses: the account’s checks stop at the limit, logins too; the owner’s browser goes on', async () => {
      const t = ctx();
      const { user, browser } = await owner(t);
      for (let i = 0; i < MAX; i++) {
        const [method, url, body] = CHECKS[i % CHECKS.length]!;
        const answer = await sendJson(thief(t, browser), method, url, body, { 'x-forwarded-for': nextIp() });
        assert.equal(answer.statusCode, 422, `${method} ${url}: ${answer.body}`);
      }
      // The next check, from yet another address and with the right password, is refused…
      const confirm = await sendJson(
        thief(t, browser),
        'POST',
        '/user/confirm-password',
        { password: user.password },
        { 'x-forwarded-for': nextIp() },
      );
      assert.equal(confirm.statusCode, 429, confirm.body);
      assert.ok(Number(confirm.headers['retry-after']) > 60, 'the 15-minute window');
      // …and so is a login of that e-mail from anywhere without the device cookie.
      const api = await t.app.inject({
        method: 'POST',
        url: '/api/tokens',
        headers: { 'x-forwarded-for': nextIp() },
        payload: { email: user.email, password: user.password, device_name: 'x' },
      });
      assert.equal(api.statusCode, 429, api.body);
      const lockouts = await t.db
        .selectFrom('audit_log')
        .select('details')
        .where('event', '=', 'login.lockout')
        .where('subject_id', '=', user.id)
        .execute();
      assert.ok(
        lockouts.some((row) => JSON.parse(row.details ?? '{}').scope === 'account'),
        'the account lockout is audited',
      );

      // The owner's own browser (its device cookie names the account) still confirms, from a new address.
      const own = await sendJson(
        browser,
        'POST',
        '/user/confirm-password',
        { password: user.password },
        { 'x-forwarded-for': nextIp() },
      );
      assert.equal(own.statusCode, 204, own.body);
    });
  },
  { env: { ACCOUNT_MAX_FAILURES: String(MAX), TRUST_PROXY: '127.0.0.1', API_RATE_LIMIT: '0' } },
);
