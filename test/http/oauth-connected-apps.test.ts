import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeApp, type TestApp } from '../helpers/app.ts';
import type { Browser } from '../helpers/browser-session.ts';
import { authorize, codeFlow, registerClient, relyingParty, signedInBrowser } from '../helpers/oidc.ts';
import { webhookSecret } from '../helpers/webhook-receiver.ts';

/**
 * The account's Connected apps (docs/guides/oidc-provider.md "Connected apps"): each client the user
 * allowed, its scopes in words, when first allowed and last used; Disconnect (a form with CSRF) ends the
 * consent and every grant of that client for the user — refresh tokens stop, JWT access tokens are
 * refused at once by /api/user and /oauth/userinfo — audited and sent as a webhook event.
 */
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function connect(app: TestApp, name = 'Photo Printer') {
  const user = await app.createUser();
  const rp = await registerClient(app, { name });
  const config = await relyingParty(app, rp);
  const browser = await signedInBrowser(app, user.email, user.password);
  const { tokens } = await codeFlow(browser, config, {
    scope: 'openid email offline_access posts:read',
    prompt: 'consent',
  });
  return { user, rp, config, browser, tokens };
}

async function refresh(app: TestApp, rp: { clientId: string; secret: string | null }, token: string) {
  const response = await app.app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${rp.clientId}:${rp.secret}`).toString('base64')}`,
    },
    payload: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }).toString(),
  });
  return { status: response.statusCode, body: response.json() as Record<string, string> };
}

/** The Disconnect form of the section for `clientId`, as the page renders it. */
async function disconnectForm(browser: Browser, clientId: string) {
  const page = await browser.get('/profile/tokens');
  assert.equal(page.statusCode, 200);
  const action = `/user/connected-apps/${clientId}`;
  assert.ok(page.body.includes(`action="${action}"`), 'the section offers Disconnect');
  return action;
}

await describeApp(
  'oauth connected apps',
  (ctx) => {
    test('the section lists each allowed client: name, scopes in words, first allowed, last used', async () => {
      const app = ctx();
      const { browser } = await connect(app, 'Photo <Printer>');
      const page = await browser.get('/profile/tokens');
      assert.equal(page.statusCode, 200);
      const section = /<section[^>]*id="connected-apps"[\s\S]*?<\/section>/.exec(page.body)?.[0];
      assert.ok(section, 'a Connected apps section in the tokens area');
      assert.match(section, /<h2 id="connected-apps-title">Connected apps<\/h2>/);
      assert.ok(section.includes('Photo &lt;Printer&gt;'), 'the client name, escaped');
      assert.ok(section.includes('see your e-mail address and whether it is verified'));
      assert.ok(section.includes('read your posts through the API'));
      assert.ok(section.includes('keep this access while you are away'));
      assert.equal((section.match(/<time /g) ?? []).length, 2, 'first allowed and last used are dates');
      assert.ok(!section.includes('Not yet'), 'the code flow used the consent');
    });

    test('a user with no consent sees none; another user’s apps are not shown', async () => {
      const app = ctx();
      await connect(app, 'Somebody Else’s App');
      const user = await app.createUser();
      const browser = await signedInBrowser(app, user.email, user.password);
      const page = await browser.get('/profile/tokens');
      assert.ok(page.body.includes('No application is connected to your account.'));
      assert.ok(!page.body.includes('Somebody Else'));
    });

    test('Disconnect ends the consent and the grant: tokens refused at once, refresh refused, audited, webhook', async () => {
      const app = ctx();
      const { user, rp, browser, tokens } = await connect(app);
      const other = await registerClient(app, { name: 'Kept App' });
      const kept = await codeFlow(browser, await relyingParty(app, other), {
        scope: 'openid offline_access',
        prompt: 'consent',
      });
      for (const url of ['/api/user', '/oauth/userinfo']) {
        assert.equal((await app.app.inject({ url, headers: bearer(tokens.access_token) })).statusCode, 200);
      }
      const action = await disconnectForm(browser, rp.clientId);
      const done = await browser.post(action, { _method: 'DELETE' });
      assert.equal(done.statusCode, 302);
      assert.equal(done.headers.location, '/profile/tokens#connected-apps');
      const after = await browser.get('/profile/tokens');
      assert.ok(after.body.includes('Photo Printer was disconnected; its access has ended.'));
      assert.ok(!after.body.includes(`/user/connected-apps/${rp.clientId}"`), 'no longer listed');

      for (const url of ['/api/user', '/oauth/userinfo']) {
        const refused = await app.app.inject({ url, headers: bearer(tokens.access_token) });
        assert.equal(refused.statusCode, 401, `${url} refuses the token at once`);
      }
      const refreshed = await refresh(app, rp, tokens.refresh_token!);
      assert.equal(refreshed.status, 400);
      assert.equal(refreshed.body.error, 'invalid_grant');
      assert.equal(
        (await app.app.inject({ url: '/api/user', headers: bearer(kept.tokens.access_token) })).statusCode,
        200,
        'another client of the same user keeps its grant',
      );
      assert.equal((await refresh(app, other, kept.tokens.refresh_token!)).status, 200);
      assert.deepEqual(
        (await app.services.oauth.consents.list(user.id)).map((a) => a.clientId),
        [other.clientId],
      );

      const audit = await app.db
        .selectFrom('audit_log')
        .select(['subject_id', 'actor_id', 'details'])
        .where('event', '=', 'oauth.consent.revoked')
        .execute();
      assert.equal(audit.length, 1);
      assert.equal(audit[0]!.subject_id, user.id);
      assert.equal(audit[0]!.actor_id, user.id);
      assert.deepEqual(JSON.parse(audit[0]!.details!), { client_id: rp.clientId, name: 'Photo Printer' });
      const events = await app.db.selectFrom('webhook_events').select('type').execute();
      assert.ok(events.some((e) => e.type === 'oauth.consent.revoked'));
      assert.ok(events.some((e) => e.type === 'oauth.consent.granted'));
    });

    test('after Disconnect the client must ask again: the consent page comes back', async () => {
      const app = ctx();
      const { rp, config, browser } = await connect(app);
      await browser.post(await disconnectForm(browser, rp.clientId), { _method: 'DELETE' });
      const again = await authorize(browser, config, { scope: 'openid email' });
      assert.equal(again.callback, null, 'not sent back without asking');
      assert.match(again.last.body, /name="decision"/);
    });

    test('refusals: no CSRF 419, a stranger’s or unknown client 404, a guest 401, JSON 204', async () => {
      const app = ctx();
      const { rp, browser, tokens } = await connect(app);
      const action = await disconnectForm(browser, rp.clientId);
      const noCsrf = await browser.post(action, { _method: 'DELETE', _token: 'wrong' });
      assert.equal(noCsrf.statusCode, 419);
      const stranger = await app.createUser();
      const strangerBrowser = await signedInBrowser(app, stranger.email, stranger.password);
      await strangerBrowser.get('/profile/tokens');
      assert.equal((await strangerBrowser.post(action, { _method: 'DELETE' })).statusCode, 404);
      for (const id of ['nope', '%00', 'a'.repeat(300), '..%2F..%2Fadmin']) {
        const response = await browser.post(`/user/connected-apps/${id}`, { _method: 'DELETE' });
        assert.equal(response.statusCode, 404, id);
      }
      const guest = await app.app.inject({
        method: 'DELETE',
        url: action,
        headers: { accept: 'application/json' },
      });
      assert.ok([401, 419].includes(guest.statusCode), `a guest is refused (${guest.statusCode})`);
      assert.equal(
        (await app.app.inject({ url: '/api/user', headers: bearer(tokens.access_token) })).statusCode,
        200,
        'nothing refused changed anything',
      );
      // A JSON client: the real method, the CSRF token in a header.
      const jsonDelete = () =>
        app.app.inject({
          method: 'DELETE',
          url: action,
          headers: {
            accept: 'application/json',
            cookie: browser.cookieHeader(),
            'x-csrf-token': browser.csrf!,
          },
        });
      assert.equal((await jsonDelete()).statusCode, 204);
      assert.equal(
        (await app.app.inject({ url: '/api/user', headers: bearer(tokens.access_token) })).statusCode,
        401,
      );
      assert.equal((await jsonDelete()).statusCode, 404, 'a second time: nothing to disconnect');
    });
  },
  { env: { WEBHOOK_URLS: 'http://127.0.0.1:9/hooks', WEBHOOK_SECRET: webhookSecret() } },
);
