import type { Kysely } from 'kysely';
import { cascade, timestamp, withId } from './helpers.ts';

/**
 * Organizations (docs/guides/organizations.md; see orgs/orgs.table.ts):
 * - organizations: a name and a slug, unique, that never changes (it is in URLs, headers and claims).
 * - organization_memberships: one row per user and organization, with the role; the unique pair is
 *   the arbiter when two acceptances of one invitation race. Indexed by user, for the per-request
 *   lookup of a user's memberships.
 * - organization_invitations: the SHA-256 of each link's secret (never the secret), the invited
 *   address (normalised as users.email is), the role, and when the link stops working. One pending
 *   invitation per address and organization (a unique pair).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('organizations'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('slug', 'varchar(63)', (c) => c.notNull().unique())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .execute();

  await withId(db, db.schema.createTable('organization_memberships'))
    .addColumn('organization_id', 'integer', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('user_id', 'integer', cascade)
    .addColumn('role', 'varchar(32)', (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('organization_memberships_organization_user_unique')
    .on('organization_memberships')
    .columns(['organization_id', 'user_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('organization_memberships_user_id_index')
    .on('organization_memberships')
    .column('user_id')
    .execute();

  await withId(db, db.schema.createTable('organization_invitations'))
    .addColumn('organization_id', 'integer', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('email', 'varchar(255)', (c) => c.notNull())
    .addColumn('role', 'varchar(32)', (c) => c.notNull())
    .addColumn('token_hash', 'char(64)', (c) => c.notNull().unique())
    .addColumn('invited_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('expires_at', timestamp, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('organization_invitations_organization_email_unique')
    .on('organization_invitations')
    .columns(['organization_id', 'email'])
    .unique()
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('organization_invitations').execute();
  await db.schema.dropTable('organization_memberships').execute();
  await db.schema.dropTable('organizations').execute();
}
