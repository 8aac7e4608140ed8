import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fakeClock } from '../../src/lib/clock.ts';
import { codeAt } from '../../src/two-factor/totp.ts';
import { WEBHOOK_EVENTS } from '../../src/webhooks/webhook-events.ts';
import { signedInAdmin } from '../helpers/account.ts';
import { describeApp, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { midStep } from '../helpers/two-factor.ts';
import {
  type ReceivedEvent,
  startWebhookReceiver,
  type WebhookReceiver,
  webhookSecret,
} from '../helpers/webhook-receiver.ts';
import { mailedLink, queuedMail } from '../races/support.ts';

/**
 * Webhooks (docs/guides/webhooks.md) driven through HTTP on every dialect: each event a user or an admin can
 * cause reaches two local receivers, signed (verified with the standardwebhooks library), as
 * {type, timestamp, data} with the user's id, e-mail and name, and never a secret.
 */
const secret = webhookSecret();
const receivers: WebhookReceiver[] = [
  await startWebhookReceiver(secret),
  await startWebhookReceiver(secret, { path: '/second?token=receiver-secret' }),
];
after(() => Promise.all(receivers.map((r) => r.close())));
const clock = fakeClock(midStep());
const PASSWORD = 'first ledger of the engine';
const NEW_PASSWORD = 'second ledger of the engine';
const RESET_PASSWORD = 'third ledger of the engine';

function send(
  browser: Browser,
  method: 'PUT' | 'DELETE' | 'POST',
  url: string,
  payload?: object,
  headers = {},
) {
  return browser.app
    .inject({
      method,
      url,
      ...(payload ? { payload } : {}),
      headers: {
        accept: 'application/json',
        cookie: browser.cookieHeader(),
        'x-csrf-token': browser.csrf ?? '',
        ...headers,
      },
    })
    .then((response) => browser.absorb(response));
}

/** The events both receivers accepted about user `id`, by type (each receiver got the same ones). */
function eventsAbout(id: number): Map<string, ReceivedEvent[]> {
  const byType = new Map<string, ReceivedEvent[]>();
  for (const event of receivers[0]!.events) {
    if ((event.data['user'] as { id?: number } | null)?.id !== id) continue;
    byType.set(event.type, [...(byType.get(event.type) ?? []), event]);
  }
  return byType;
}

await describeApp(
  'webhooks: every event, signed, with ids, e-mail and names',
  (ctx, dialect) => {
    let t: TestApp;
    const email = `ada-${dialect}-${Date.now()}@example.com`;
    const changed = `countess-${dialect}-${Date.now()}@example.com`;
    let userId = 0;
    const secrets: string[] = [PASSWORD, NEW_PASSWORD, RESET_PASSWORD];

    before(() => {
      t = ctx();
      // The receivers serve every dialect's suite in turn: ids start at 1 in each database.
      for (const receiver of receivers) {
        receiver.forget();
      }
      t.services.webhooks.worker!.start();
    });

    test('a user registers, changes address, verifies, changes password, signs in, uses tokens and two-factor, resets', async () => {
      const browser = new Browser(t.app);
      await browser.get('/register');
      const registered = await browser.postJson('/register', {
        name: 'Ada Lovelace',
        email,
        password: PASSWORD,
        password_confirmation: PASSWORD,
      });
      assert.equal(registered.statusCode, 204, registered.body);
      userId = (
        await t.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow()
      ).id;
      await browser.get('/dashboard');

      // Unverified, so the new address applies at once (docs/guides/account.md).
      const profile = await send(browser, 'PUT', '/user/profile-information', {
        name: 'Ada King',
        email: changed,
      });
      assert.ok([200, 204].includes(profile.statusCode), profile.body);

      const link = mailedLink(await queuedMail(t, changed, 'verify-email'), '/email/verify/');
      secrets.push(link.searchParams.get('signature')!);
      assert.equal((await browser.get(link.pathname + link.search)).statusCode, 302);

      const password = await send(browser, 'PUT', '/user/password', {
        current_password: PASSWORD,
        password: NEW_PASSWORD,
        password_confirmation: NEW_PASSWORD,
      });
      assert.equal(password.statusCode, 204, password.body);

      const fresh = new Browser(t.app);
      await fresh.get('/login');
      assert.equal(
        (await fresh.postJson('/login', { email: changed, password: NEW_PASSWORD })).statusCode,
        204,
      );
      await fresh.get('/dashboard');

      const token = await t.issueToken(changed, NEW_PASSWORD);
      secrets.push(token);
      const revoked = await t.app.inject({
        method: 'DELETE',
        url: '/api/tokens/current',
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(revoked.statusCode, 204);

      const created = await send(fresh, 'POST', '/user/api-tokens', {
        name: 'ci',
        abilities: ['posts:read'],
      });
      assert.equal(created.statusCode, 201, created.body);
      secrets.push(created.json().token);

      assert.equal(
        (await fresh.postJson('/user/confirm-password', { password: NEW_PASSWORD })).statusCode,
        204,
      );
      assert.equal((await fresh.postJson('/user/two-factor-authentication')).statusCode, 204);
      const { secretKey } = (
        await fresh.get('/user/two-factor-secret-key', { accept: 'application/json' })
      ).json();
      secrets.push(secretKey);
      const confirm = await fresh.postJson('/user/confirmed-two-factor-authentication', {
        code: codeAt(secretKey, clock.now()),
      });
      assert.equal(confirm.statusCode, 204, confirm.body);
      assert.equal((await send(fresh, 'DELETE', '/user/two-factor-authentication')).statusCode, 204);

      const forgot = new Browser(t.app);
      await forgot.get('/forgot-password');
      assert.equal((await forgot.postJson('/forgot-password', { email: changed })).statusCode, 200);
      const reset = mailedLink(await queuedMail(t, changed, 'reset-password'), '/reset-password/');
      const resetToken = reset.pathname.split('/').pop()!;
      secrets.push(resetToken);
      const done = await forgot.postJson('/reset-password', {
        token: resetToken,
        email: changed,
        password: RESET_PASSWORD,
        password_confirmation: RESET_PASSWORD,
      });
      assert.equal(done.statusCode, 200, done.body);

      const expected = [
        'user.registered',
        'user.email_changed',
        'user.verified',
        'user.password_changed',
        'user.login',
        'token.created',
        'token.revoked',
        'two_factor.enabled',
        'two_factor.disabled',
        'user.password_reset',
      ];
      await receivers[0]!.waitFor(
        () => expected.every((type) => eventsAbout(userId).has(type)),
        10_000,
        `events ${expected.join(', ')}`,
      );
      // The second endpoint is served side by side: it may be a moment behind.
      await receivers[1]!.waitFor(() => receivers[1]!.events.length >= receivers[0]!.events.length);
      const events = eventsAbout(userId);
      const registeredEvent = events.get('user.registered')![0]!;
      assert.deepEqual(registeredEvent.data['user'], { id: userId, email, name: 'Ada Lovelace' });
      assert.equal(registeredEvent.eventTimestamp, new Date(clock.now()).toISOString());
      assert.match(registeredEvent.id, /^msg_[A-Za-z0-9_-]+$/);
      assert.deepEqual(events.get('user.email_changed')![0]!.data, {
        user: { id: userId, email: changed, name: 'Ada King' },
        actor_id: userId,
        previous_email: email,
      });
      assert.deepEqual(events.get('user.verified')![0]!.data['user'], {
        id: userId,
        email: changed,
        name: 'Ada King',
      });
      assert.deepEqual(
        events.get('user.login')!.map((e) => e.data['guard']),
        ['web', 'api'],
      );
      const tokens = events.get('token.created')!.map((e) => e.data['token'] as { id: number; name: string });
      assert.deepEqual(
        tokens.map((token) => token.name),
        ['test-device', 'ci'],
      );
      assert.equal(events.get('token.revoked')![0]!.data['token_id'], Number(token.split('|')[0]));
      assert.equal(events.get('two_factor.disabled')![0]!.data['by'], 'user');

      // Every event reached both endpoints with the same id, and no payload holds a secret.
      const second = new Map(receivers[1]!.events.map((e) => [e.id, e.type]));
      for (const event of receivers[0]!.events.filter(
        (e) => (e.data['user'] as { id: number }).id === userId,
      )) {
        assert.equal(second.get(event.id), event.type, `${event.type} reached the second endpoint too`);
        const raw = JSON.stringify(event.data);
        for (const value of secrets) assert.ok(!raw.includes(value), `${event.type} carries no secret`);
        assert.doesNotMatch(raw, /argon2|password"|\$2[aby]\$/);
      }
      assert.ok(
        receivers.every((r) => r.requests.every((request) => request.verified)),
        'every signature verified',
      );
      assert.equal(
        receivers[1]!.requests[0]!.path,
        '/second?token=receiver-secret',
        'the query string is kept',
      );
    });

    test('the panel: disable, enable and delete carry the e-mail and name, and who did it', async () => {
      const { admin, browser: panel } = await signedInAdmin(t, 'Grace Hopper');
      const target = await t.createUser({ name: 'Charles Babbage' });
      await panel.get(`/admin/users/${target.id}`);
      assert.equal((await panel.post(`/admin/users/${target.id}/disable`)).statusCode, 302);
      assert.equal((await panel.post(`/admin/users/${target.id}/enable`)).statusCode, 302);
      const deleted = await panel.post(`/admin/users/${target.id}/delete`, { password: admin.password });
      assert.equal(deleted.statusCode, 302, deleted.body);
      await receivers[0]!.waitFor(
        (e) => e.type === 'user.deleted' && (e.data['user'] as { id: number }).id === target.id,
      );
      const events = eventsAbout(target.id);
      for (const type of ['user.disabled', 'user.enabled', 'user.deleted']) {
        assert.deepEqual(
          events.get(type)![0]!.data,
          {
            user: { id: target.id, email: target.email, name: 'Charles Babbage' },
            actor_id: admin.id,
          },
          type,
        );
      }
      // The admin's own sign-in to the panel is not a user.login.
      assert.equal(eventsAbout(admin.id).get('user.login'), undefined);
    });

    test('a refused change writes no event; every delivered row is wiped and marked sent', async () => {
      const before = await t.db.selectFrom('webhook_outbox').select('id').execute();
      const browser = new Browser(t.app);
      await browser.get('/register');
      const refused = await browser.postJson('/register', {
        name: 'x',
        email: 'not-an-address',
        password: 'short',
      });
      assert.equal(refused.statusCode, 422);
      const wrong = await t.app.inject({
        method: 'POST',
        url: '/api/tokens',
        payload: { email: 'nobody@example.com', password: 'wrong password', device_name: 'x' },
      });
      assert.equal(wrong.statusCode, 401);
      assert.equal((await t.db.selectFrom('webhook_outbox').select('id').execute()).length, before.length);
      await t.services.webhooks.worker!.drain();
      const rows = await t.db.selectFrom('webhook_outbox').selectAll().execute();
      assert.ok(rows.length >= 2 * 13, `one row per event and endpoint (${rows.length})`);
      for (const row of rows) {
        assert.ok(
          row.sent_at !== null && row.payload === '' && row.last_status === 204,
          `row ${row.id} delivered`,
        );
        assert.ok(!row.endpoint.includes('receiver-secret'), 'the stored endpoint has no query string');
      }
      assert.ok(WEBHOOK_EVENTS.length === 19);
    });
  },
  {
    env: { WEBHOOK_URLS: receivers.map((r) => r.url).join(','), WEBHOOK_SECRET: secret },
    overrides: { clock },
  },
);
