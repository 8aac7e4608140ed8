import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeClock, MINUTE } from '../../src/lib/clock.ts';
import { describeEachDialect } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { accept, createOrg, invite, linkBody, newSlug, person, rolesIn } from '../helpers/orgs.ts';
import { auditCount, tally } from '../races/support.ts';

/**
 * Invitations of docs/guides/organizations.md through HTTP, on every dialect: the mail (the organization
 * named and escaped, never the inviter), acceptance by the invited verified address only, and every
 * takeover attempt we know of — another account, an unverified address, a replayed, cancelled, forged,
 * unsigned or expired link — plus 20 concurrent acceptances of one link and a guest sent to /login
 * and back.
 */
const clock = fakeClock(Date.UTC(2026, 11, 1, 9));
const EXPIRE_MINUTES = 90;

// On every database: the suite races (20 concurrent acceptances of one link), and the database decides races.
await describeEachDialect(
  'organization invitations',
  (ctx) => {
    test('the invitation: 201, stored hashed, a mail naming the organization (escaped), not the inviter', async () => {
      const t = ctx();
      const inviter = await person(t, { name: 'Mallory Inviter' });
      const org = await createOrg(inviter, newSlug('mail'), 'Acme <b>& Sons</b>');
      const { invitation, mail, link } = await invite(
        t,
        inviter,
        org.slug,
        'New.Person@Example.com',
        'admin',
      );
      assert.deepEqual(invitation, {
        id: invitation.id,
        email: 'new.person@example.com',
        role: 'admin',
        expires_at: new Date(clock.now() + EXPIRE_MINUTES * MINUTE).toISOString(),
      });
      const row = await t.db
        .selectFrom('organization_invitations')
        .selectAll()
        .where('id', '=', invitation.id)
        .executeTakeFirstOrThrow();
      const token = link.searchParams.get('token')!;
      assert.match(row.token_hash, /^[0-9a-f]{64}$/);
      assert.notEqual(row.token_hash, token, 'the secret itself is not stored');
      assert.equal(link.origin + link.pathname, `http://gatehouse.test/org-invitations/${invitation.id}`);
      assert.match(link.searchParams.get('signature')!, /^[0-9a-f]{64}$/);
      assert.equal(mail.to.address, 'new.person@example.com');
      assert.equal(mail.to.name, undefined);
      assert.match(mail.text, /"Acme <b>& Sons<\/b>"/);
      assert.match(mail.html, /&quot;Acme &lt;b&gt;&amp; Sons&lt;\/b&gt;&quot;/);
      assert.ok(!mail.html.includes('<b>'), 'no markup of the name reaches the HTML');
      for (const part of [mail.subject, mail.text, mail.html]) assert.ok(!part.includes('Mallory'), part);
      assert.match(mail.text, /as Administrator/);
      assert.deepEqual(mail.secrets, [token, link.searchParams.get('signature')]);
      const detail = (await inviter.json('GET', `/orgs/${org.slug}`)).json();
      assert.deepEqual(detail.invitations, [invitation]);
      assert.equal(
        await auditCount(t, 'org.invitation.sent'),
        1 + (await auditCount(t, 'org.invitation.sent')) - 1,
      );

      const again = await inviter.json('POST', `/orgs/${org.slug}/invitations`, {
        email: 'new.person@example.com',
        role: 'member',
      });
      assert.deepEqual(again.json().errors, {
        email: ['This address has already been invited to the organization.'],
      });
      const self = await inviter.json('POST', `/orgs/${org.slug}/invitations`, {
        email: inviter.user.email,
        role: 'member',
      });
      assert.deepEqual(self.json().errors, { email: ['This user already belongs to the organization.'] });
      const bad = await inviter.json('POST', `/orgs/${org.slug}/invitations`, {
        email: 'not an address',
        role: 'chief',
      });
      assert.deepEqual(bad.json().errors, {
        email: ['The email field must be a valid email address.'],
        role: ['The selected role is invalid.'],
      });
    });

    test('the invited verified address accepts once: 201, a member with the role; a replay changes nothing', async () => {
      const t = ctx();
      const owner = await person(t);
      const invitee = await person(t);
      const org = await createOrg(owner);
      const { link } = await invite(t, owner, org.slug, invitee.user.email.toUpperCase(), 'admin');
      const offered = await invitee.json('GET', `${link.pathname}${link.search}`);
      assert.equal(offered.statusCode, 200);
      assert.deepEqual(offered.json(), {
        organization: { id: org.id, slug: org.slug, name: org.name, role: 'admin' },
      });
      const accepted = await accept(invitee, link);
      assert.equal(accepted.statusCode, 201, accepted.body);
      assert.deepEqual(accepted.json(), { id: org.id, slug: org.slug, name: org.name, role: 'admin' });
      assert.equal((await rolesIn(t, org.id))[invitee.user.id], 'admin');
      const replay = await accept(invitee, link);
      assert.equal(replay.statusCode, 403);
      assert.match(replay.json().message, /not valid/);
      assert.equal(await auditCount(t, 'org.invitation.accepted', invitee.user.id), 1);
    });

    test('a JSON client may post to the mailed URL itself, the link’s parts in its query', async () => {
      const t = ctx();
      const owner = await person(t);
      const invitee = await person(t);
      const stranger = await person(t);
      const org = await createOrg(owner);
      const { link } = await invite(t, owner, org.slug, invitee.user.email);
      const other = await stranger.json('POST', `${link.pathname}${link.search}`, {});
      assert.equal(other.statusCode, 403);
      assert.match(other.json().message, /another/, 'read as the link it is, sent to someone else');
      const accepted = await invitee.json('POST', `${link.pathname}${link.search}`, {});
      assert.equal(accepted.statusCode, 201, accepted.body);
      assert.equal((await rolesIn(t, org.id))[invitee.user.id], 'member');
    });

    test('takeovers: another account, an unverified address, forged, unsigned, altered, cancelled, expired', async () => {
      const t = ctx();
      const owner = await person(t);
      const org = await createOrg(owner);
      const target = 'target.person@example.com';
      const { link, invitation } = await invite(t, owner, org.slug, target);
      const thief = await person(t);
      const refused = async (
        who: typeof thief,
        body: Record<string, string>,
        words: RegExp,
        url = link.pathname,
      ) => {
        const answer = await accept(who, new URL(url, link), body);
        assert.equal(answer.statusCode, 403, answer.body);
        assert.match(answer.json().message, words);
      };
      await refused(thief, linkBody(link), /another email address/);
      const page = await thief.browser.get(`${link.pathname}${link.search}`);
      assert.equal(page.statusCode, 403);
      assert.match(page.body, /sent to another email address/);
      assert.ok(!page.body.includes(org.name), 'the page does not name the organization to someone else');

      const unverified = await person(t, { email: target, verified: false });
      await refused(unverified, linkBody(link), /Verify your email address first/);

      const body = linkBody(link);
      const other = await invite(t, owner, org.slug, 'someone.else@example.com');
      await refused(thief, { ...body, signature: '' }, /not valid/);
      await refused(
        thief,
        { token: body.token, expires: body.expires, signature: '0'.repeat(64) },
        /not valid/,
      );
      await refused(thief, { ...body, expires: String(Number(body.expires) + 3600) }, /not valid/);
      await refused(thief, { ...body, token: linkBody(other.link).token }, /not valid/);
      await refused(thief, linkBody(link), /not valid/, `/org-invitations/${other.invitation.id}`);
      await refused(thief, {}, /not valid/);
      assert.deepEqual(Object.keys(await rolesIn(t, org.id)), [String(owner.user.id)], 'nobody joined');

      // The rightful owner of the address, once verified, still can.
      await t.db
        .updateTable('users')
        .set({ email_verified_at: clock.now() })
        .where('id', '=', unverified.user.id)
        .execute();
      assert.equal((await accept(unverified, link)).statusCode, 201);

      // Cancelled, then expired.
      assert.equal(
        (await owner.json('DELETE', `/orgs/${org.slug}/invitations/${other.invitation.id}`)).statusCode,
        204,
      );
      const someone = await person(t, { email: 'someone.else@example.com' });
      await refused(someone, linkBody(other.link), /not valid/, other.link.pathname);
      const late = await person(t);
      const expiring = await invite(t, owner, org.slug, late.user.email);
      clock.advance(EXPIRE_MINUTES * MINUTE);
      try {
        await refused(late, linkBody(expiring.link), /expired/, expiring.link.pathname);
      } finally {
        clock.advance(-EXPIRE_MINUTES * MINUTE);
      }
      assert.equal((await rolesIn(t, org.id))[late.user.id], undefined);
      assert.ok(invitation.id > 0);
    });

    test('the address matches composed or decomposed, in any case (NFC, case-insensitive)', async () => {
      const t = ctx();
      const owner = await person(t);
      const org = await createOrg(owner);
      const stem = `jose${Date.now().toString(36)}`;
      const invitee = await person(t, { email: `${stem}\u00e9@example.com` });
      const { invitation, link } = await invite(
        t,
        owner,
        org.slug,
        `${stem.toUpperCase()}E\u0301@EXAMPLE.COM`,
      );
      assert.equal(invitation.email, `${stem}\u00e9@example.com`);
      assert.equal((await accept(invitee, link)).statusCode, 201);
    });

    test('20 concurrent acceptances of one link: one membership, nineteen refusals', async () => {
      const t = ctx();
      const owner = await person(t);
      const invitee = await person(t);
      const org = await createOrg(owner);
      const { link } = await invite(t, owner, org.slug, invitee.user.email);
      const answers = await Promise.all(Array.from({ length: 20 }, () => accept(invitee, link)));
      assert.deepEqual(tally(answers), { 201: 1, 403: 19 });
      const rows = await t.db
        .selectFrom('organization_memberships')
        .select('id')
        .where('organization_id', '=', org.id)
        .where('user_id', '=', invitee.user.id)
        .execute();
      assert.equal(rows.length, 1);
      assert.equal(await auditCount(t, 'org.invitation.accepted', invitee.user.id), 1);
    });

    test('a guest opening the link is sent to /login and back to it, then accepts with the form', async () => {
      const t = ctx();
      const owner = await person(t);
      const org = await createOrg(owner, newSlug('guest'), 'Guest Org');
      const user = await t.createUser();
      const { link } = await invite(t, owner, org.slug, user.email, 'member');
      const guest = new Browser(t.app);
      const path = `${link.pathname}${link.search}`;
      const bounced = await guest.get(path);
      assert.equal(bounced.statusCode, 302);
      assert.equal(bounced.headers.location, '/login');
      await guest.get('/login');
      const login = await guest.post('/login', { email: user.email, password: user.password });
      assert.equal(login.statusCode, 302);
      assert.equal(login.headers.location, path);
      const page = await guest.get(path);
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /You have been invited to join Guest Org as Member\./);
      const joined = await guest.post(link.pathname, linkBody(link));
      assert.equal(joined.statusCode, 302);
      assert.equal(joined.headers.location, `/orgs/${org.slug}`);
      assert.match((await guest.get(`/orgs/${org.slug}`)).body, /Welcome to Guest Org\./);
      assert.equal((await rolesIn(t, org.id))[user.id], 'member');
    });
  },
  { env: { ORG_INVITATION_EXPIRE: String(EXPIRE_MINUTES) }, overrides: { clock } },
);
