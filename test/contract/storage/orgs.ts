import assert from 'node:assert/strict';
import { isUniqueViolation } from '../../../src/db/errors.ts';
import {
  consumeInvitation,
  deleteExpiredInvitation,
  deleteInvitation,
  findInvitation,
  insertInvitation,
  pendingInvitations,
} from '../../../src/orgs/invitations.repository.ts';
import {
  countOwners,
  deleteMembership,
  deleteOrganizationRow,
  findMembership,
  findOrganizationById,
  findOrganizationBySlug,
  insertMembership,
  insertOrganization,
  joinedOrganizations,
  lockOrganization,
  membershipsOfUser,
  membersOf,
  renameOrganization,
  searchOrganizationRows,
  setMembershipRole,
} from '../../../src/orgs/orgs.repository.ts';
import { deleteUserRow } from '../../../src/users/users.repository.ts';
import { insertUserRow } from '../../helpers/users.ts';
import { type ContractSuite, covers } from './contract.ts';

/**
 * The storage of organizations (orgs/*.repository.ts), identical on SQLite, PostgreSQL and
 * MariaDB/MySQL: the unique keys the use cases rely on, the cascades, the joined per-user lookup and
 * the conditional DELETE that spends an invitation once.
 */
let counter = 0;
const stamp = () => `${Date.now().toString(36)}-${++counter}`;

/** orgs/*.repository.ts. */
export const orgsContract: ContractSuite = (ctx) => {
  const user = (name = 'Member') =>
    insertUserRow(ctx().db, { email: `org-store-${stamp()}@example.com`, passwordHash: 'x', name });
  const organization = (slug = `org-${stamp()}`, name = `Org ${slug}`) =>
    insertOrganization(ctx().db, { name, slug, now: Date.now() });
  const invitation = (
    organizationId: number,
    email: string,
    values: { expiresAt?: number; hash?: string } = {},
  ) =>
    insertInvitation(ctx().db, {
      organization_id: organizationId,
      email,
      role: 'member',
      token_hash: values.hash ?? `${stamp()}`.padEnd(64, '0'),
      invited_by: null,
      expires_at: values.expiresAt ?? Date.now() + 60_000,
      created_at: Date.now(),
    });

  covers(
    [insertOrganization, findOrganizationBySlug],
    'a slug is unique, compared byte for byte (case matters to the index)',
    async () => {
      const { db } = ctx();
      const slug = `acme-${stamp()}`;
      await organization(slug);
      const error = await organization(slug).then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(error !== null && isUniqueViolation(error), String(error));
      await organization(slug.toUpperCase());
      assert.equal((await findOrganizationBySlug(db, slug))?.slug, slug);
      assert.equal(await findOrganizationBySlug(db, `${slug} `), undefined);
    },
  );

  covers(
    [insertMembership, membershipsOfUser],
    'one membership per user and organization; the per-user read joins name and slug, by slug',
    async () => {
      const { db } = ctx();
      const ada = await user();
      const zeta = await organization(`zeta-${stamp()}`, 'Zeta 🦄');
      const alpha = await organization(`alpha-${stamp()}`, 'Alpha');
      const now = Date.now();
      await insertMembership(db, { organizationId: zeta, userId: ada, role: 'owner', now });
      await insertMembership(db, { organizationId: alpha, userId: ada, role: 'billing', now });
      const again = await insertMembership(db, {
        organizationId: alpha,
        userId: ada,
        role: 'member',
        now,
      }).then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(again !== null && isUniqueViolation(again), String(again));
      const rows = await membershipsOfUser(db, ada);
      assert.deepEqual(
        rows.map((r) => [r.organization_id, r.name, r.role]),
        [
          [alpha, 'Alpha', 'billing'],
          [zeta, 'Zeta 🦄', 'owner'],
        ],
      );
      assert.deepEqual(await membershipsOfUser(db, await user()), []);
    },
  );

  covers(
    [countOwners, deleteMembership, findMembership, insertMembership, membersOf, setMembershipRole],
    'roles change and owners are counted per organization',
    async () => {
      const { db } = ctx();
      const [a, b] = [await user(), await user()];
      const org = await organization();
      const now = Date.now();
      await insertMembership(db, { organizationId: org, userId: a, role: 'owner', now });
      await insertMembership(db, { organizationId: org, userId: b, role: 'member', now });
      assert.equal(await countOwners(db, org), 1);
      await setMembershipRole(db, org, b, 'owner', now + 1);
      assert.equal(await countOwners(db, org), 2);
      assert.equal((await findMembership(db, org, b))?.updated_at, now + 1);
      assert.equal(await deleteMembership(db, org, a), true);
      assert.equal(await deleteMembership(db, org, a), false);
      assert.deepEqual(
        (await membersOf(db, org)).map((m) => [m.user_id, m.role]),
        [[b, 'owner']],
      );
    },
  );

  covers(
    [
      deleteOrganizationRow,
      findInvitation,
      findMembership,
      insertInvitation,
      insertMembership,
      lockOrganization,
      renameOrganization,
    ],
    'deleting an organization takes its memberships and invitations; deleting a user, their memberships',
    async () => {
      const { db } = ctx();
      const [a, b] = [await user(), await user()];
      const org = await organization();
      const now = Date.now();
      await insertMembership(db, { organizationId: org, userId: a, role: 'owner', now });
      await insertMembership(db, { organizationId: org, userId: b, role: 'member', now });
      const sent = await insertInvitation(db, {
        organization_id: org,
        email: 'invited@example.com',
        role: 'member',
        token_hash: stamp().padEnd(64, '1'),
        invited_by: a,
        expires_at: now + 60_000,
        created_at: now,
      });
      await deleteUserRow(db, a);
      assert.equal(await findMembership(db, org, a), undefined);
      assert.equal(
        (await findInvitation(db, sent))?.invited_by,
        null,
        'the invitation stays, without its sender',
      );
      await renameOrganization(db, org, 'Renamed', now + 5);
      assert.equal((await lockOrganization(db, org))?.name, 'Renamed');
      assert.equal(await deleteOrganizationRow(db, org), true);
      assert.equal(await findMembership(db, org, b), undefined);
      assert.equal(await findInvitation(db, sent), undefined);
      assert.equal(await deleteOrganizationRow(db, org), false);
    },
  );

  covers(
    [insertInvitation, deleteExpiredInvitation, deleteInvitation, findInvitation, pendingInvitations],
    'one pending invitation per address; an expired one gives way, a live one does not',
    async () => {
      const { db } = ctx();
      const org = await organization();
      const now = Date.now();
      const email = `twice-${stamp()}@example.com`;
      const old = await invitation(org, email, { expiresAt: now - 1 });
      const taken = await invitation(org, email).then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(taken !== null && isUniqueViolation(taken), String(taken));
      assert.deepEqual(await pendingInvitations(db, org, now), [], 'the expired one is not pending');
      await deleteExpiredInvitation(db, org, email, now);
      assert.equal(await findInvitation(db, old), undefined);
      const fresh = await invitation(org, email);
      await deleteExpiredInvitation(db, org, email, now);
      assert.deepEqual(
        (await pendingInvitations(db, org, now)).map((i) => i.id),
        [fresh],
      );
      assert.equal(await deleteInvitation(db, org + 1_000_000, fresh), false, 'only its own organization’s');
      assert.equal(await deleteInvitation(db, org, fresh), true);
    },
  );

  covers(
    [consumeInvitation, findInvitation],
    'of 20 concurrent spends of one invitation exactly one succeeds; a wrong hash spends nothing',
    async () => {
      const { db } = ctx();
      const org = await organization();
      const hash = stamp().padEnd(64, 'a');
      const id = await invitation(org, `race-${stamp()}@example.com`, { hash });
      assert.equal(await consumeInvitation(db, id, hash.replace(/a$/, 'b')), false);
      const results = await Promise.all(
        Array.from({ length: 20 }, () => db.transaction().execute((trx) => consumeInvitation(trx, id, hash))),
      );
      assert.equal(results.filter(Boolean).length, 1);
      assert.equal(await findInvitation(db, id), undefined);
    },
  );

  covers(
    [findOrganizationById, joinedOrganizations, searchOrganizationRows],
    "an organization by id; a user's organizations with the date joined; the panel's search by name or slug, with member counts",
    async () => {
      const { db } = ctx();
      const [ada, bob] = [await user('Ada'), await user('Bob')];
      const marker = stamp();
      const acme = await organization(`acme-${marker}`, `Acme ECLAIR ${marker}`);
      const beta = await organization(`beta-${marker}`, `Beta ${marker}`);
      assert.equal((await findOrganizationById(db, acme))?.slug, `acme-${marker}`);
      assert.equal(await findOrganizationById(db, 999_999_999), undefined);
      const now = Date.now();
      await insertMembership(db, { organizationId: beta, userId: ada, role: 'member', now });
      await insertMembership(db, { organizationId: acme, userId: ada, role: 'owner', now });
      await insertMembership(db, { organizationId: acme, userId: bob, role: 'member', now });
      const joined = await joinedOrganizations(db, ada);
      assert.deepEqual(
        joined.map((row) => [row.slug, row.role]),
        [
          [`acme-${marker}`, 'owner'],
          [`beta-${marker}`, 'member'],
        ],
      );
      assert.equal(typeof joined[0]!.created_at, 'number');
      // Case-insensitive on the name (ASCII letters: SQLite's lower() folds no others), and the slug;
      // LIKE's wildcards are literal.
      const byName = await searchOrganizationRows(db, { query: `eclair ${marker}`, limit: 10, offset: 0 });
      assert.deepEqual(
        byName.rows.map((row) => [row.slug, Number(row.members)]),
        [[`acme-${marker}`, 2]],
      );
      assert.equal(byName.total, 1);
      const bySlug = await searchOrganizationRows(db, { query: `beta-${marker}`, limit: 10, offset: 0 });
      assert.deepEqual(
        bySlug.rows.map((row) => row.slug),
        [`beta-${marker}`],
      );
      assert.equal((await searchOrganizationRows(db, { query: '%', limit: 10, offset: 0 })).total, 0);
    },
  );
};
