import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sendJson, signedInBrowser } from '../helpers/account.ts';
import { describeEachDialect, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';

const ADMIN_IP = '10.77.1.2';
const OWN_IP = '10.88.3.4';

/** An admin signed in to the panel from `ip` (through the trusted loopback proxy). */
async function panelAdmin(t: TestApp, ip: string, user?: { email: string; password: string }) {
  const admin = user ?? (await t.createUser({ panelAccess: true, name: 'Other Admin' }));
  const browser = new Browser(t.app, { 'x-forwarded-for': ip });
  await browser.get('/admin/login');
  const login = await browser.post('/admin/login', { email: admin.email, password: admin.password });
  assert.equal(login.statusCode, 302, login.body);
  await browser.get('/admin');
  return { admin, browser };
}

/**
 * docs/guides/account.md "Download your data" and docs/security.md: the export holds what the user did
 * and what was done to the account, but not other people's ids or IP addresses. The audit: it showed
 * panel admins' ids and IP addresses (their actions on the user), and the ids of the people a user who
 * is an admin acted on.
 */
await describeEachDialect(
  'the data export holds no other people’s ids or addresses',
  (ctx) => {
    test('an admin’s actions on the user appear without the admin’s id or IP; the user’s own admin actions without the other person', async () => {
      const t = ctx();
      const { user } = await signedInBrowser(t, {
        user: await t.createUser({ panelAccess: true, name: 'Exporter' }),
      });
      // Another admin acts on the user's account from their own address.
      const other = await panelAdmin(t, ADMIN_IP);
      for (const action of ['sessions/end-all', 'tokens/revoke-all', 'verification-link']) {
        const done = await sendJson(other.browser, 'POST', `/admin/users/${user.id}/${action}`, undefined, {
          'x-forwarded-for': ADMIN_IP,
        });
        assert.ok(done.statusCode < 400, `${action}: ${done.statusCode} ${done.body}`);
      }
      // The user, an admin too, acts on a third person.
      const third = await t.createUser({ name: 'Third Person' });
      const mine = await panelAdmin(t, OWN_IP, user);
      const disabled = await sendJson(mine.browser, 'POST', `/admin/users/${third.id}/disable`, undefined, {
        'x-forwarded-for': OWN_IP,
      });
      assert.equal(disabled.statusCode, 200, disabled.body);

      // The user's browser was signed out by the admin: sign in again, confirm, download.
      const again = await signedInBrowser(t, { user });
      const confirmed = await again.browser.postJson('/user/confirm-password', { password: user.password });
      assert.equal(confirmed.statusCode, 204, confirmed.body);
      const download = await again.browser.get('/user/export');
      assert.equal(download.statusCode, 200, download.body);
      const body = download.body;
      const data = JSON.parse(body);
      const events = data.audit_events as Array<Record<string, unknown>>;
      assert.ok(
        events.some((e) => e.event === 'admin.session.ended' || e.event === 'admin.user.verification_sent'),
      );
      assert.ok(
        events.some((e) => e.event === 'admin.user.disabled'),
        'what the user did is there',
      );
      assert.ok(!body.includes(ADMIN_IP), 'no other person’s IP address');
      for (const event of events) {
        assert.ok(event['actor_id'] === null || event['actor_id'] === user.id, `${event['event']}: actor`);
        assert.ok(
          event['subject_id'] === null || event['subject_id'] === user.id,
          `${event['event']}: subject`,
        );
      }
      assert.ok(!body.includes(third.email), 'nor the address of the person the user acted on');
      assert.ok(body.includes(OWN_IP), 'the user’s own address stays');
    });
  },
  { env: { TRUST_PROXY: '127.0.0.1' } },
);
