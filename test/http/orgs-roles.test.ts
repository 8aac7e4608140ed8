import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDialect } from '../helpers/app.ts';
import { createOrg, join, person, rolesIn } from '../helpers/orgs.ts';

/**
 * The role rules of docs/guides/organizations.md through HTTP, on every dialect: who may rename, invite,
 * change roles and remove; owners only touch the owner role; several owners; the last owner can neither
 * leave nor be demoted (422), not even when two owners demote each other at the same moment; ORG_ROLES.
 */
// On every database: the suite races (two owners demoting each other at once), and the database decides races.
await describeEachDialect(
  'organization roles',
  (ctx) => {
    /** An organization with an owner, an admin, a member and a billing member. */
    async function team() {
      const t = ctx();
      const [owner, admin, member, billing] = await Promise.all([person(t), person(t), person(t), person(t)]);
      const org = await createOrg(owner);
      await join(t, owner, org.slug, admin, 'admin');
      await join(t, owner, org.slug, member);
      await join(t, owner, org.slug, billing, 'billing');
      return { t, org, owner, admin, member, billing };
    }
    const FORBIDDEN = { message: 'This action is unauthorized.' };

    test('a member lacking the role gets 403 and changes nothing', async () => {
      const { t, org, owner, member, billing } = await team();
      const before = await rolesIn(t, org.id);
      for (const who of [member, billing]) {
        const answers = [
          await who.json('PUT', `/orgs/${org.slug}`, { name: 'Taken over' }),
          await who.json('POST', `/orgs/${org.slug}/invitations`, { email: 'x@example.com', role: 'member' }),
          await who.json('GET', `/orgs/${org.slug}/invitations`),
          await who.json('PUT', `/orgs/${org.slug}/members/${owner.user.id}`, { role: 'member' }),
          await who.json('PUT', `/orgs/${org.slug}/members/me`, { role: 'admin' }),
          await who.json('DELETE', `/orgs/${org.slug}/members/${owner.user.id}`),
          // Bodies that fail validation, and a delete without a password confirmation: 403 all the
          // same, before any 422 or 423.
          await who.json('PUT', `/orgs/${org.slug}`, { name: '' }),
          await who.json('POST', `/orgs/${org.slug}/invitations`, { email: 'bad', role: 'no such role' }),
          await who.json('PUT', `/orgs/${org.slug}/members/${owner.user.id}`, { role: 'no such role' }),
          await who.json('PUT', `/orgs/${org.slug}/members/me`, {}),
          await who.json('DELETE', `/orgs/${org.slug}`),
        ];
        for (const answer of answers) {
          assert.equal(answer.statusCode, 403, answer.body);
          assert.deepEqual(answer.json(), FORBIDDEN);
        }
        assert.equal((await who.browser.get(`/orgs/${org.slug}/invitations`)).statusCode, 403);
        // What a member may do: see the organization (without its invitations) and its roles.
        const seen = await who.json('GET', `/orgs/${org.slug}`);
        assert.equal(seen.statusCode, 200);
        assert.deepEqual(seen.json().invitations, []);
        assert.equal((await who.json('GET', `/orgs/${org.slug}/roles`)).statusCode, 200);
      }
      assert.deepEqual(await rolesIn(t, org.id), before);
      assert.equal((await owner.json('GET', `/orgs/${org.slug}`)).json().name, org.name);
    });

    test('admins manage members but never the owner role', async () => {
      const { t, org, owner, admin, member } = await team();
      const tries = {
        inviteOwner: await admin.json('POST', `/orgs/${org.slug}/invitations`, {
          email: 'boss@example.com',
          role: 'owner',
        }),
        promote: await admin.json('PUT', `/orgs/${org.slug}/members/${member.user.id}`, { role: 'owner' }),
        promoteSelf: await admin.json('PUT', `/orgs/${org.slug}/members/me`, { role: 'owner' }),
        demoteOwner: await admin.json('PUT', `/orgs/${org.slug}/members/${owner.user.id}`, { role: 'admin' }),
        // A role the owner cannot have is refused as the owner's business first (403, not 422).
        touchOwner: await admin.json('PUT', `/orgs/${org.slug}/members/${owner.user.id}`, { role: '' }),
        removeOwner: await admin.json('DELETE', `/orgs/${org.slug}/members/${owner.user.id}`),
      };
      for (const [name, answer] of Object.entries(tries)) assert.equal(answer.statusCode, 403, name);
      assert.equal(
        (await admin.json('PUT', `/orgs/${org.slug}/members/${member.user.id}`, { role: 'admin' }))
          .statusCode,
        204,
      );
      assert.equal((await admin.json('PUT', `/orgs/${org.slug}`, { name: 'By the admin' })).statusCode, 204);
      const invited = await admin.json('POST', `/orgs/${org.slug}/invitations`, {
        email: 'helper@example.com',
        role: 'admin',
      });
      assert.equal(invited.statusCode, 201, invited.body);
      assert.equal(
        (await admin.json('DELETE', `/orgs/${org.slug}/members/${member.user.id}`)).statusCode,
        204,
      );
      assert.equal((await rolesIn(t, org.id))[owner.user.id], 'owner');
      assert.equal((await rolesIn(t, org.id))[member.user.id], undefined);
      // An owner's invitation is the owners' to cancel.
      const ownerInvite = await owner.json('POST', `/orgs/${org.slug}/invitations`, {
        email: 'co-owner@example.com',
        role: 'owner',
      });
      assert.equal(ownerInvite.statusCode, 201);
      const cancel = `/orgs/${org.slug}/invitations/${ownerInvite.json().id}`;
      assert.equal((await admin.json('DELETE', cancel)).statusCode, 403);
      assert.equal((await owner.json('DELETE', cancel)).statusCode, 204);
      assert.equal((await owner.json('DELETE', cancel)).statusCode, 404);
    });

    test('several owners; the last one can neither leave nor be demoted (422), audited only when done', async () => {
      const { t, org, owner, admin } = await team();
      const lastOwner = {
        message: 'An organization needs an owner: make another member an owner first.',
        errors: { role: ['An organization needs an owner: make another member an owner first.'] },
      };
      const demote = await owner.json('PUT', `/orgs/${org.slug}/members/me`, { role: 'admin' });
      assert.equal(demote.statusCode, 422);
      assert.deepEqual(demote.json(), lastOwner);
      const leave = await owner.json('DELETE', `/orgs/${org.slug}/members/me`);
      assert.equal(leave.statusCode, 422);
      assert.deepEqual(leave.json().errors, { user: lastOwner.errors.role });
      const page = await owner.browser.post(`/orgs/${org.slug}/members/me`, { _method: 'DELETE' });
      assert.equal(page.statusCode, 422);
      assert.match(page.body, /role="alert">An organization needs an owner/);

      assert.equal(
        (await owner.json('PUT', `/orgs/${org.slug}/members/${admin.user.id}`, { role: 'owner' })).statusCode,
        204,
      );
      assert.equal((await admin.json('GET', `/orgs/${org.slug}`)).json().role, 'owner');
      // Two owners: either may now step down, or remove the other.
      assert.equal(
        (await owner.json('PUT', `/orgs/${org.slug}/members/me`, { role: 'member' })).statusCode,
        204,
      );
      assert.equal(
        (await admin.json('DELETE', `/orgs/${org.slug}/members/me`)).statusCode,
        422,
        'now the last',
      );
      assert.equal(
        (await admin.json('DELETE', `/orgs/${org.slug}/members/${owner.user.id}`)).statusCode,
        204,
      );
      const audited = await t.db
        .selectFrom('audit_log')
        .select(['event', 'subject_id', 'details'])
        .where('event', 'in', ['org.member.role_changed', 'org.member.removed'])
        .orderBy('id')
        .execute();
      const mine = audited.filter((row) => JSON.parse(row.details!).organization_id === org.id);
      assert.deepEqual(
        mine.map((row) => [row.event, row.subject_id, JSON.parse(row.details!).role]),
        [
          ['org.member.role_changed', admin.user.id, 'owner'],
          ['org.member.role_changed', owner.user.id, 'member'],
          ['org.member.removed', owner.user.id, 'member'],
        ],
      );
    });

    test('two owners demoting each other at once leave exactly one owner', async () => {
      for (let round = 0; round < 3; round++) {
        const { t, org, owner, admin } = await team();
        await owner.json('PUT', `/orgs/${org.slug}/members/${admin.user.id}`, { role: 'owner' });
        const [a, b] = await Promise.all([
          owner.json('PUT', `/orgs/${org.slug}/members/${admin.user.id}`, { role: 'member' }),
          admin.json('PUT', `/orgs/${org.slug}/members/${owner.user.id}`, { role: 'member' }),
        ]);
        const statuses = [a.statusCode, b.statusCode].sort();
        // The loser either found itself demoted already (403: no longer an owner) or was the last owner (422).
        assert.equal(statuses[0], 204, `${a.body} ${b.body}`);
        assert.ok(statuses[1] === 403 || statuses[1] === 422, String(statuses[1]));
        const owners = Object.values(await rolesIn(t, org.id)).filter((role) => role === 'owner');
        assert.equal(owners.length, 1);
      }
    });

    test('ORG_ROLES: a custom role is offered, carries its abilities; an unknown role is 422', async () => {
      const { t, org, owner, billing } = await team();
      const roles = await owner.json('GET', `/orgs/${org.slug}/roles`);
      assert.deepEqual(roles.json().data, [
        { name: 'owner', abilities: ['*'] },
        { name: 'admin', abilities: ['members:manage'] },
        { name: 'member', abilities: [] },
        { name: 'billing', abilities: ['invoices:read', 'invoices:write'] },
      ]);
      const seen = await billing.json('GET', `/orgs/${org.slug}`);
      assert.equal(seen.json().role, 'billing');
      assert.deepEqual(seen.json().abilities, ['invoices:read', 'invoices:write']);
      const unknown = await owner.json('PUT', `/orgs/${org.slug}/members/${billing.user.id}`, {
        role: 'janitor',
      });
      assert.equal(unknown.statusCode, 422);
      assert.deepEqual(unknown.json().errors, { role: ['The selected role is invalid.'] });
      assert.equal((await rolesIn(t, org.id))[billing.user.id], 'billing');
      const page = await owner.browser.get(`/orgs/${org.slug}/roles`);
      assert.match(page.body, /<code>invoices:read<\/code>/);
    });
  },
  { env: { ORG_ROLES: 'billing=invoices:read,invoices:write;admin=members:manage' } },
);
