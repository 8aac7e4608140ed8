import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as client from 'openid-client';
import { describeApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import {
  authorize,
  codeFlow,
  follow,
  ISSUER,
  registerClient,
  relyingParty,
  signedInBrowser,
} from '../helpers/oidc.ts';

/**
 * Our interactions through HTTP on every dialect (docs/guides/oidc-provider.md "Signing in"): the
 * provider's session follows the Gatehouse session, `prompt=login` and `max_age` ask for a fresh proof,
 * trusted clients skip the consent screen.
 */
await describeApp('oauth interactions and sessions', (ctx) => {
  test('prompt=login asks a signed-in person to prove themselves again, then auth_time is that moment', async () => {
    const app = ctx();
    const user = await app.createUser();
    const rp = await registerClient(app, { trusted: true });
    const config = await relyingParty(app, rp);
    const browser = await signedInBrowser(app, user.email, user.password);
    const before = await codeFlow(browser, config);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const fresh = await authorize(browser, config, { prompt: 'login' });
    assert.equal(fresh.callback, null);
    assert.match(fresh.last.body, /action="\/user\/confirm-password"/, 'the password confirmation');
    const confirmed = await browser.post('/user/confirm-password', { password: user.password });
    assert.equal(confirmed.statusCode, 302);
    const { callback } = await follow(browser, String(confirmed.headers.location));
    assert.ok(callback?.searchParams.get('code'));
    const tokens = await client.authorizationCodeGrant(config, callback!, {
      pkceCodeVerifier: fresh.verifier,
      expectedState: fresh.state,
      expectedNonce: fresh.nonce,
    });
    assert.ok(Number(tokens.claims()!.auth_time) > Number(before.tokens.claims()!.auth_time));
    assert.deepEqual(tokens.claims()!['amr'], ['pwd']);
  });

  test('max_age: a login older than it asks again; a recent one does not', async () => {
    const app = ctx();
    const user = await app.createUser();
    const rp = await registerClient(app, { trusted: true });
    const config = await relyingParty(app, rp);
    const browser = await signedInBrowser(app, user.email, user.password);
    const recent = await authorize(browser, config, { max_age: '3600' });
    assert.ok(recent.callback?.searchParams.get('code'), 'signed in a moment ago');
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const stale = await authorize(browser, config, { max_age: '1' });
    assert.equal(stale.callback, null);
    assert.match(stale.last.body, /action="\/user\/confirm-password"/);
    const noneStale = await authorize(browser, config, { max_age: '1', prompt: 'none' });
    assert.equal(noneStale.callback?.searchParams.get('error'), 'login_required');
  });

  test('one logout ends both: after logging out of Gatehouse, prompt=none is login_required', async () => {
    const app = ctx();
    const user = await app.createUser();
    const rp = await registerClient(app, { trusted: true });
    const config = await relyingParty(app, rp);
    const browser = await signedInBrowser(app, user.email, user.password);
    await codeFlow(browser, config);
    assert.ok((await authorize(browser, config, { prompt: 'none' })).callback?.searchParams.get('code'));
    await browser.get('/dashboard');
    const out = await browser.post('/logout');
    assert.equal(out.statusCode, 302);
    const after = await authorize(browser, config, { prompt: 'none' });
    assert.equal(after.callback?.searchParams.get('error'), 'login_required');
  });

  test('another Gatehouse user in the same browser means a new provider session, never the old user', async () => {
    const app = ctx();
    const [ada, bob] = [await app.createUser(), await app.createUser()];
    const rp = await registerClient(app, { trusted: true });
    const config = await relyingParty(app, rp);
    const browser = await signedInBrowser(app, ada.email, ada.password);
    const first = await codeFlow(browser, config);
    assert.equal(first.tokens.claims()!.sub, String(ada.id));
    const providerCookie = browser.cookies.get('gatehouse_oidc_session');
    assert.ok(providerCookie);
    // Bob signs in in the same browser (Ada's provider cookie still there).
    await browser.get('/dashboard');
    await browser.post('/logout');
    await browser.get('/login');
    await browser.post('/login', { email: bob.email, password: bob.password });
    const second = await codeFlow(browser, config, { prompt: 'none' });
    assert.equal(second.tokens.claims()!.sub, String(bob.id));
    assert.notEqual(second.tokens.claims()!['sid'], first.tokens.claims()!['sid']);
  });

  test('id_token_hint naming someone other than the signed-in person is login_required, never a code for them', async () => {
    const app = ctx();
    const [alice, bob] = [await app.createUser(), await app.createUser()];
    const rp = await registerClient(app, { trusted: true });
    const config = await relyingParty(app, rp);
    const bobs = await codeFlow(await signedInBrowser(app, bob.email, bob.password), config);
    const browser = await signedInBrowser(app, alice.email, alice.password);
    const alices = await codeFlow(browser, config);
    const prompts: Record<string, string>[] = [{}, { prompt: 'none' }, { prompt: 'consent' }];
    for (const prompt of prompts) {
      const other = await authorize(browser, config, { id_token_hint: bobs.tokens.id_token!, ...prompt });
      assert.ok(other.callback, `back at the client: ${other.last?.body.slice(0, 300)}`);
      assert.equal(other.callback.searchParams.get('error'), 'login_required', JSON.stringify(prompt));
      assert.equal(other.callback.searchParams.get('code'), null);
      assert.equal(other.callback.searchParams.get('state'), other.state);
      assert.equal(other.callback.searchParams.get('iss'), ISSUER);
    }
    // Her own hint goes on as before, silently too.
    for (const prompt of prompts.slice(0, 2)) {
      const own = await codeFlow(browser, config, { id_token_hint: alices.tokens.id_token!, ...prompt });
      assert.equal(own.tokens.claims()!.sub, String(alice.id));
    }
  });

  test('a guest with an id_token_hint: signing in as the hinted person gives a code, as another is login_required', async () => {
    const app = ctx();
    const [alice, bob] = [await app.createUser(), await app.createUser()];
    const rp = await registerClient(app, { trusted: true });
    const config = await relyingParty(app, rp);
    const hint = (await codeFlow(await signedInBrowser(app, bob.email, bob.password), config)).tokens
      .id_token!;
    const outcomes = [];
    for (const person of [bob, alice]) {
      const browser = new Browser(app.app);
      const start = await authorize(browser, config, { id_token_hint: hint });
      assert.equal(start.callback, null, 'the login page');
      await browser.get('/login');
      const posted = await browser.post('/login', { email: person.email, password: person.password });
      const { callback } = await follow(browser, String(posted.headers.location));
      assert.equal(callback?.searchParams.get('state'), start.state);
      outcomes.push(callback?.searchParams.get('error') ?? (callback?.searchParams.get('code') && 'code'));
    }
    assert.deepEqual(outcomes, ['code', 'login_required']);
  });

  test('ui_locales chooses the consent page’s language; the person’s own ?lang= choice still wins', async () => {
    const app = ctx();
    const user = await app.createUser();
    const config = await relyingParty(app, await registerClient(app));
    const browser = await signedInBrowser(app, user.email, user.password);
    const languageOf = async (uiLocales: string, acceptLanguage?: string) => {
      if (acceptLanguage) browser.headers['accept-language'] = acceptLanguage;
      const { last } = await authorize(browser, config, { ui_locales: uiLocales });
      delete browser.headers['accept-language'];
      assert.match(last.body, /name="decision"/, 'the consent page');
      return { lang: /<html lang="([a-z]+)"/.exec(last.body)?.[1], page: last };
    };
    assert.equal((await languageOf('de')).lang, 'de');
    assert.equal((await languageOf('it de-CH fr')).lang, 'de', 'the first supported tag, by its language');
    assert.equal((await languageOf('es-419', 'fr')).lang, 'es', 'before Accept-Language');
    assert.equal((await languageOf('it pt', 'fr')).lang, 'fr', 'none supported: as before');
    assert.equal((await languageOf('it')).lang, 'en');
    // The person picks French on the consent page itself: that page, and the next ones, are French.
    const { page } = await languageOf('de');
    const uid = /action="\/oauth\/interaction\/([^"]+)"/.exec(page.body)?.[1];
    const chosen = await browser.get(`/oauth/interaction/${uid}?lang=fr`);
    assert.match(chosen.body, /<html lang="fr"/);
    assert.match(chosen.body, /Autoriser/);
    assert.equal((await languageOf('de')).lang, 'fr', 'a remembered choice outranks the client’s wish');
  });

  test('signed in to Gatehouse, a silent authorization works at once for a remembered consent', async () => {
    const app = ctx();
    const user = await app.createUser();
    const rp = await registerClient(app);
    const config = await relyingParty(app, rp);
    const first = await signedInBrowser(app, user.email, user.password);
    await codeFlow(first, config);
    const second = await signedInBrowser(app, user.email, user.password);
    const silent = await authorize(second, config, { prompt: 'none' });
    assert.ok(silent.callback?.searchParams.get('code'), String(silent.callback));
    const rows = await app.db
      .selectFrom('oauth_models')
      .select(['session_binding', 'account_id'])
      .where('kind', '=', 'Session')
      .where('account_id', '=', String(user.id))
      .execute();
    const keys = await app.db.selectFrom('sessions').select('id').where('user_id', '=', user.id).execute();
    for (const row of rows) {
      assert.ok(
        keys.some((key) => key.id === row.session_binding),
        'every provider session follows a live one',
      );
    }
  });

  test('a trusted client signs in without the consent screen, and is remembered among the connected apps', async () => {
    const app = ctx();
    const user = await app.createUser();
    const rp = await registerClient(app, { trusted: true, name: 'First party' });
    const config = await relyingParty(app, rp);
    const browser = await signedInBrowser(app, user.email, user.password);
    const flow = await authorize(browser, config, { scope: 'openid email posts:read' });
    assert.ok(flow.callback?.searchParams.get('code'), 'no consent page');
    const apps = await app.services.oauth.consents.list(user.id);
    assert.deepEqual(
      apps.map((a) => [a.name, a.scopes]),
      [['First party', ['openid', 'email', 'posts:read']]],
    );
  });

  test('an interaction that is unknown, expired or finished is a 400 page', async () => {
    const app = ctx();
    const user = await app.createUser();
    const browser = await signedInBrowser(app, user.email, user.password);
    const response = await browser.get('/oauth/interaction/not-an-interaction');
    assert.equal(response.statusCode, 400);
    assert.match(response.body, /interaction_expired/);
  });
});
