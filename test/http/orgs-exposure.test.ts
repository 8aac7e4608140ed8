import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { describeApp } from '../helpers/app.ts';
import { createOrg, invite, join, newSlug, person } from '../helpers/orgs.ts';
import { webhookSecret } from '../helpers/webhook-receiver.ts';

/**
 * What an organization shows to whom, on every dialect (docs/guides/organizations.md): a non-member gets
 * exactly the answer of an unknown slug on every /orgs/{slug}… route (the same bytes); the memberships
 * reach forward auth's Remote-Groups and the webhooks org.member.added / org.member.removed with their
 * `data` shape.
 */
const HTML = 'text/html,application/xhtml+xml';
/** Headers that differ between any two answers (the clock) or carry nothing about the organization. */
const VARYING = new Set(['date', 'x-request-id']);

function sameAnswer(
  a: LightMyRequestResponse,
  b: LightMyRequestResponse,
  label: string,
  slugs: [string, string],
) {
  assert.equal(a.statusCode, b.statusCode, label);
  // An HTML page links its own URL (the language switcher): compared with the slugs set aside.
  assert.equal(a.body.replaceAll(slugs[0], '{slug}'), b.body.replaceAll(slugs[1], '{slug}'), label);
  const headers = (r: LightMyRequestResponse) =>
    Object.fromEntries(
      Object.entries(r.headers).filter(([name]) => !VARYING.has(name) && name !== 'set-cookie'),
    );
  assert.deepEqual(headers(a), headers(b), label);
}

await describeApp(
  'organizations: what others see, forward auth, webhooks',
  (ctx) => {
    test('a non-member gets exactly the unknown slug’s answer on every /orgs/{slug} route, whatever the body', async () => {
      const t = ctx();
      const owner = await person(t);
      const member = await person(t);
      const outsider = await person(t);
      const unconfirmed = await person(t);
      const org = await createOrg(owner, newSlug('secret'), 'Secret Org');
      await join(t, owner, org.slug, member);
      const { invitation } = await invite(t, owner, org.slug, 'pending@example.com');
      await outsider.confirmPassword();
      const unknown = newSlug('nothing').replace(/^nothing/, 'zzzzzz');
      const routes: [string, string, object?][] = [
        ['GET', ''],
        ['PUT', '', { name: 'Mine now' }],
        // Bodies that fail validation: still 404, never the 422 that would come first (Laravel binds
        // and authorizes before it validates).
        ['PUT', '', { name: '' }],
        ['POST', '/invitations', { email: 'not an address', role: 'no such role' }],
        ['PUT', `/members/${member.user.id}`, { role: 'no such role' }],
        ['PUT', '/members/me', {}],
        ['DELETE', ''],
        ['GET', '/roles'],
        ['GET', '/invitations'],
        ['POST', '/invitations', { email: 'spy@example.com', role: 'member' }],
        ['DELETE', `/invitations/${invitation.id}`],
        ['PUT', `/members/${member.user.id}`, { role: 'admin' }],
        ['PUT', '/members/me', { role: 'owner' }],
        ['DELETE', `/members/${member.user.id}`],
        ['DELETE', '/members/me'],
      ];
      for (const [method, rest, body] of routes) {
        const label = `${method} /orgs/{slug}${rest}`;
        const json = await outsider.json(method as 'GET', `/orgs/${org.slug}${rest}`, body);
        const none = await outsider.json(method as 'GET', `/orgs/${unknown}${rest}`, body);
        assert.equal(json.statusCode, 404, `${label}: ${json.body}`);
        assert.deepEqual(json.json(), { message: 'Not Found.' });
        sameAnswer(json, none, label, [org.slug, unknown]);
        if (method === 'GET') {
          const page = await outsider.browser.get(`/orgs/${org.slug}${rest}`, { accept: HTML });
          const nonePage = await outsider.browser.get(`/orgs/${unknown}${rest}`, { accept: HTML });
          assert.equal(page.statusCode, 404);
          sameAnswer(page, nonePage, `${label} (page)`, [org.slug, unknown]);
          assert.ok(!page.body.includes('Secret Org'));
        }
      }
      // Without a recent password confirmation: 404 too, not the 423 that asks for one.
      const deleted = await unconfirmed.json('DELETE', `/orgs/${org.slug}`);
      assert.equal(deleted.statusCode, 404, deleted.body);
      sameAnswer(deleted, await unconfirmed.json('DELETE', `/orgs/${unknown}`), 'DELETE unconfirmed', [
        org.slug,
        unknown,
      ]);
      // Nothing changed.
      const detail = (await owner.json('GET', `/orgs/${org.slug}`)).json();
      assert.equal(detail.name, 'Secret Org');
      assert.deepEqual(
        detail.members.map((m: { role: string }) => m.role),
        ['owner', 'member'],
      );
      assert.equal(detail.invitations.length, 1);
    });

    test('Remote-Groups: org:<slug>:<role> per membership on /auth/request and /auth/forward, fresh', async () => {
      const t = ctx();
      const ada = await person(t);
      const bob = await person(t);
      const first = await createOrg(ada, newSlug('aa'));
      const second = await createOrg(bob, newSlug('bb'));
      await join(t, bob, second.slug, ada, 'admin');
      const token = await t.issueToken(ada.user.email, ada.user.password);
      for (const path of ['/auth/request', '/auth/forward']) {
        const bySession = await ada.browser.get(path, { accept: HTML });
        assert.equal(bySession.statusCode, 200);
        assert.equal(bySession.headers['remote-groups'], `org:${first.slug}:owner,org:${second.slug}:admin`);
        const byToken = await t.app.inject({ url: path, headers: { authorization: `Bearer ${token}` } });
        assert.equal(byToken.headers['remote-groups'], `org:${first.slug}:owner,org:${second.slug}:admin`);
      }
      assert.equal((await bob.json('DELETE', `/orgs/${second.slug}/members/${ada.user.id}`)).statusCode, 204);
      const after = await ada.browser.get('/auth/request');
      assert.equal(after.headers['remote-groups'], `org:${first.slug}:owner`, 'the very next check');
      const loner = await person(t);
      const none = await loner.browser.get('/auth/request');
      assert.equal(none.statusCode, 200);
      assert.equal(none.headers['remote-groups'], '', 'sent empty, so a proxy replaces a client’s own');
    });

    test('webhooks: org.member.added (the creator too, and an acceptance) and org.member.removed, {organization, user, role}', async () => {
      const t = ctx();
      const owner = await person(t);
      const invitee = await person(t);
      const org = await createOrg(owner);
      await join(t, owner, org.slug, invitee, 'admin');
      assert.equal(
        (await owner.json('DELETE', `/orgs/${org.slug}/members/${invitee.user.id}`)).statusCode,
        204,
      );
      const rows = await t.db
        .selectFrom('webhook_events')
        .select(['type', 'payload'])
        .where('type', 'like', 'org.%')
        .orderBy('id')
        .execute();
      const mine = rows
        .map((row) => ({ type: row.type, body: JSON.parse(row.payload) }))
        .filter((event) => event.body.data.organization.id === org.id);
      assert.deepEqual(
        mine.map((event) => [event.type, event.body.type, event.body.data]),
        [
          [
            'org.member.added',
            'org.member.added',
            {
              organization: { id: org.id, slug: org.slug },
              user: { id: owner.user.id, email: owner.user.email },
              role: 'owner',
            },
          ],
          [
            'org.member.added',
            'org.member.added',
            {
              organization: { id: org.id, slug: org.slug },
              user: { id: invitee.user.id, email: invitee.user.email },
              role: 'admin',
            },
          ],
          [
            'org.member.removed',
            'org.member.removed',
            {
              organization: { id: org.id, slug: org.slug },
              user: { id: invitee.user.id, email: invitee.user.email },
              role: 'admin',
            },
          ],
        ],
      );
    });
  },
  // Events are written whatever the endpoints (webhook_events); the worker is not started in-process.
  { env: { WEBHOOK_URLS: 'http://127.0.0.1:9/hooks', WEBHOOK_SECRET: webhookSecret() } },
);
