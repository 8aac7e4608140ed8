import type { Kysely, Transaction } from 'kysely';
import type { AuditLogTable } from '../audit/audit.table.ts';
import type { PasswordResetTokensTable } from '../auth/password-reset/password-resets.table.ts';
import type { RememberTokensTable } from '../auth/remember-me/remember-tokens.table.ts';
import type { SessionsTable } from '../auth/sessions/sessions.table.ts';
import type { PersonalAccessTokensTable } from '../auth/tokens/access-tokens.table.ts';
import type { IdentitiesTable } from '../identities/identities.table.ts';
import type { MailOutboxTable } from '../mail/outbox.table.ts';
import type { OauthClientsTable } from '../oauth/clients.table.ts';
import type { OauthConsentsTable } from '../oauth/consents.table.ts';
import type { OauthLogoutOutboxTable } from '../oauth/logout-outbox.table.ts';
import type { OauthModelsTable } from '../oauth/models.table.ts';
import type { OauthSigningKeysTable } from '../oauth/signing-keys.table.ts';
import type {
  OrganizationInvitationsTable,
  OrganizationMembershipsTable,
  OrganizationsTable,
} from '../orgs/orgs.table.ts';
import type { PasskeyChallengesTable, PasskeysTable } from '../passkeys/passkeys.table.ts';
import type { PostsTable } from '../posts/posts.table.ts';
import type { TwoFactorCredentialsTable } from '../two-factor/two-factor.table.ts';
import type { UsersTable } from '../users/users.table.ts';
import type { WebhookEventsTable } from '../webhooks/webhook-events.table.ts';
import type { WebhookOutboxTable } from '../webhooks/webhook-outbox.table.ts';

export interface Database {
  users: UsersTable;
  personal_access_tokens: PersonalAccessTokensTable;
  posts: PostsTable;
  sessions: SessionsTable;
  remember_tokens: RememberTokensTable;
  password_reset_tokens: PasswordResetTokensTable;
  mail_outbox: MailOutboxTable;
  audit_log: AuditLogTable;
  two_factor_credentials: TwoFactorCredentialsTable;
  passkeys: PasskeysTable;
  passkey_challenges: PasskeyChallengesTable;
  webhook_events: WebhookEventsTable;
  webhook_outbox: WebhookOutboxTable;
  oauth_models: OauthModelsTable;
  oauth_clients: OauthClientsTable;
  oauth_signing_keys: OauthSigningKeysTable;
  oauth_consents: OauthConsentsTable;
  oauth_logout_outbox: OauthLogoutOutboxTable;
  identities: IdentitiesTable;
  organizations: OrganizationsTable;
  organization_memberships: OrganizationMembershipsTable;
  organization_invitations: OrganizationInvitationsTable;
}

/** A connection or an open transaction: domain functions take either, so use cases decide the boundary. */
export type Db = Kysely<Database> | Transaction<Database>;
