import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import * as client from 'openid-client';
import { fakeClock } from '../../src/lib/clock.ts';
import { describeApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { fresh, signedInAs, signInThrough, upstreamsForThisFile } from '../helpers/login-providers.ts';
import { authorize, follow, registerClient, relyingParty } from '../helpers/oidc.ts';
import { enableTwoFactor, midStep } from '../helpers/two-factor.ts';

/**
 * The chain (docs/guides/login-providers.md, docs/guides/oidc-provider.md): an app signs in through
 * Gatehouse's own OpenID provider while Gatehouse signs the person in at an upstream provider (a real
 * oidc-provider, "acme"). The app's relying party is openid-client; the person is a guest when the app
 * sends them, chooses "Continue with Acme ID" on Gatehouse's login page, comes back through the
 * authorization, and the app's ID token says how: `amr` has `fed` (and `otp`, `mfa` after a second
 * factor).
 */
const up = await upstreamsForThisFile();
const clock = fakeClock(midStep());

await describeApp(
  'an app signs in through Gatehouse, Gatehouse through an upstream provider',
  (ctx) => {
    before(() => ctx().services.identities.providers.settled());

    /** The app's authorization, the upstream sign-in on the login page it leads to, and the code back. */
    async function chain(browser: Browser, config: client.Configuration, code?: () => string) {
      const started = await authorize(browser, config);
      assert.equal(started.callback, null, 'a guest: the login page first');
      assert.match(started.last.body, /href="\/auth\/acme"/, 'with the provider’s button');
      const trip = await signInThrough(browser, 'acme');
      let next = String(trip.finish?.headers.location);
      if (code !== undefined) {
        assert.equal(next, '/two-factor-challenge');
        await browser.get('/two-factor-challenge');
        const passed = await browser.post('/two-factor-challenge', { code: code() });
        next = String(passed.headers.location);
      }
      const { callback } = await follow(browser, next);
      assert.ok(callback?.searchParams.get('code'), 'the app gets its code');
      return client.authorizationCodeGrant(config, callback!, {
        pkceCodeVerifier: started.verifier,
        expectedState: started.state,
        expectedNonce: started.nonce,
      });
    }

    test('the app’s ID token names the person and says `fed`', async () => {
      const app = ctx();
      const rp = await registerClient(app, { trusted: true });
      const config = await relyingParty(app, rp);
      const who = fresh('chain');
      up.acme.signInAs({ sub: who.sub, email: who.email, email_verified: true, name: 'Katherine Johnson' });
      const browser = new Browser(app.app);
      const tokens = await chain(browser, config);
      const claims = tokens.claims()!;
      const userId = await signedInAs(browser);
      assert.equal(claims.sub, String(userId), 'Gatehouse’s own subject, not the upstream one');
      assert.deepEqual(claims['amr'], ['fed']);
      const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
      assert.equal(info.email, who.email);
      assert.equal(info['name'], 'Katherine Johnson');
    });

    test('with two-factor on, the chain passes the challenge and `amr` is fed, otp, mfa', async () => {
      const app = ctx();
      const rp = await registerClient(app, { trusted: true });
      const config = await relyingParty(app, rp);
      const who = fresh('chain2fa');
      up.acme.signInAs({ sub: who.sub, email: who.email, email_verified: true });
      const first = new Browser(app.app);
      await signInThrough(first, 'acme');
      const userId = (await signedInAs(first))!;
      const enrolled = await enableTwoFactor(app, { id: userId, email: who.email });
      clock.advance(30_000);
      const tokens = await chain(new Browser(app.app), config, () => enrolled.code());
      assert.equal(tokens.claims()!.sub, String(userId));
      assert.deepEqual(tokens.claims()!['amr'], ['fed', 'otp', 'mfa']);
    });
  },
  { env: up.env, overrides: { clock } },
);
