import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as client from 'openid-client';
import { describeApp } from '../helpers/app.ts';
import { answerConsent, authorize, registerClient, relyingParty } from '../helpers/oidc.ts';
import { createOrg, join, person } from '../helpers/orgs.ts';

/**
 * The `orgs` scope (docs/guides/organizations.md, oidc-provider.md "Scopes"): the claim `orgs`, each of
 * the user's organizations as {id, slug, role, abilities}, in the ID token and in userinfo — the direct answer
 * and the library's alike — and only when the scope was granted.
 */
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
/** The person allows the consent page `asked` stopped at; the client exchanges the code. */
async function allowAndExchange(
  browser: Parameters<typeof answerConsent>[0],
  config: client.Configuration,
  asked: Awaited<ReturnType<typeof authorize>>,
) {
  const { callback } = await answerConsent(browser, asked.last, 'allow');
  assert.ok(callback);
  return client.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: asked.verifier,
    expectedState: asked.state,
    expectedNonce: asked.nonce,
  });
}

type OrgClaim = { id: number; slug: string; role: string; abilities: string[] };
const byId = (orgs: unknown) => [...(orgs as OrgClaim[])].sort((a, b) => a.id - b.id);

await describeApp(
  'the orgs scope',
  (ctx) => {
    test('discovery lists the scope and its claim; a client may be registered with it', async () => {
      const app = ctx();
      const discovery = (await app.app.inject({ url: '/.well-known/openid-configuration' })).json();
      assert.ok(discovery.scopes_supported.includes('orgs'));
      assert.ok(discovery.claims_supported.includes('orgs'));
      await registerClient(app, { scope: 'openid orgs' });
    });

    test('granted: the consent page names it, the ID token and userinfo carry {id, slug, role, abilities}', async () => {
      const app = ctx();
      const owner = await person(app);
      const first = await createOrg(owner);
      const second = await createOrg(owner);
      const rp = await registerClient(app, { scope: 'openid profile orgs' });
      const config = await relyingParty(app, rp);

      const asked = await authorize(owner.browser, config, { scope: 'openid orgs' });
      assert.match(asked.last.body, /see which organizations you belong to and your role in each/);
      const tokens = await allowAndExchange(owner.browser, config, asked);
      const expected = [first, second]
        .map(({ id, slug }) => ({ id, slug, role: 'owner', abilities: ['*'] }))
        .sort((a, b) => a.id - b.id);
      assert.deepEqual(byId(tokens.claims()?.['orgs']), expected);

      const direct = await app.app.inject({ url: '/oauth/userinfo', headers: bearer(tokens.access_token) });
      assert.equal(direct.statusCode, 200, direct.body);
      assert.deepEqual(byId(direct.json().orgs), expected);
      assert.equal('name' in direct.json(), false, 'profile was not asked for');
      // The library's own answer (the token in a form body) says the same.
      const library = await app.app.inject({
        method: 'POST',
        url: '/oauth/userinfo',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ access_token: tokens.access_token }).toString(),
      });
      assert.equal(library.statusCode, 200, library.body);
      assert.deepEqual(library.json(), direct.json());

      // A new membership shows at once (the cached memberships are dropped by the insert).
      const third = await createOrg(owner);
      const after = await app.app.inject({ url: '/oauth/userinfo', headers: bearer(tokens.access_token) });
      assert.deepEqual(
        byId(after.json().orgs).map((org) => org.id),
        [...expected.map((org) => org.id), third.id],
      );
    });

    test('not granted: no orgs claim anywhere; no organizations: an empty list', async () => {
      const app = ctx();
      const owner = await person(app);
      await createOrg(owner);
      const rp = await registerClient(app, { scope: 'openid profile orgs' });
      const config = await relyingParty(app, rp);
      const asked = await authorize(owner.browser, config, { scope: 'openid profile' });
      const tokens = await allowAndExchange(owner.browser, config, asked);
      assert.equal('orgs' in (tokens.claims() ?? {}), false);
      const info = await app.app.inject({ url: '/oauth/userinfo', headers: bearer(tokens.access_token) });
      assert.equal('orgs' in info.json(), false);

      const loner = await person(app);
      const lonerAsked = await authorize(loner.browser, config, { scope: 'openid orgs' });
      const lonerTokens = await allowAndExchange(loner.browser, config, lonerAsked);
      assert.deepEqual(lonerTokens.claims()?.['orgs'], []);
    });

    test("a role of ORG_ROLES: the claim carries the role's abilities", async () => {
      const app = ctx();
      const owner = await person(app);
      const org = await createOrg(owner);
      const accountant = await person(app);
      await join(app, owner, org.slug, accountant, 'billing');
      const rp = await registerClient(app, { scope: 'openid orgs' });
      const config = await relyingParty(app, rp);
      const asked = await authorize(accountant.browser, config, { scope: 'openid orgs' });
      const tokens = await allowAndExchange(accountant.browser, config, asked);
      const expected = [
        { id: org.id, slug: org.slug, role: 'billing', abilities: ['invoices:read', 'invoices:write'] },
      ];
      assert.deepEqual(tokens.claims()?.['orgs'], expected);
      const info = await app.app.inject({ url: '/oauth/userinfo', headers: bearer(tokens.access_token) });
      assert.deepEqual(info.json().orgs, expected);
    });
  },
  { env: { ORG_ROLES: 'billing=invoices:read,invoices:write' } },
);
