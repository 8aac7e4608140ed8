import type { Db } from '../db/schema.ts';
import type { WebhookSink } from '../webhooks/webhook-outbox.ts';

/** Who caused an event and from where; passed from the edge into every use case that audits. */
export interface AuditContext {
  readonly actorId?: number | null;
  readonly ip?: string | null;
  readonly now: number;
  /**
   * Where the events this change reports go (webhooks/, docs/guides/webhooks.md): set at the edge (the request
   * context, the CLI) when WEBHOOK_URLS has endpoints. Use cases only pass the context on.
   */
  readonly webhooks?: WebhookSink | null;
}

/**
 * Every action the audit trail records (docs/reference/audit-actions.md); the panel shows each with a
 * label of its own (admin.events.*, every language: test/unit/audit-labels.test.ts).
 */
export const AUDIT_EVENTS = [
  'user.registered',
  // Account self-service (src/account/, docs/guides/account.md): the user acting on their own account.
  'user.password_confirmed',
  'user.password_check_failed',
  'user.profile_updated',
  'user.email_change_requested',
  'user.email_change_cancelled',
  'user.email_changed',
  'user.password_changed',
  'user.session_ended',
  'user.other_sessions_ended',
  'user.exported',
  'user.deleted',
  'token.created',
  'token.updated',
  'login.succeeded',
  'login.failed',
  'login.lockout',
  'logout',
  'remember.theft_suspected',
  'password.reset_requested',
  'password.reset',
  'email.verified',
  'token.issued',
  'token.revoked',
  'admin.login.succeeded',
  'admin.login.failed',
  'admin.login.lockout',
  'admin.created',
  'admin.user.verified',
  'admin.user.disabled',
  'admin.user.enabled',
  'admin.user.panel_granted',
  'admin.user.panel_revoked',
  'admin.token.revoked',
  'admin.session.ended',
  'admin.user.invited',
  'admin.user.verification_sent',
  'admin.user.deleted',
  'admin.import.laravel',
  'login.two_factor_challenged',
  'two_factor.enrolment_started',
  'two_factor.enabled',
  'two_factor.disabled',
  'two_factor.recovery_codes_regenerated',
  'two_factor.recovery_code_used',
  'two_factor.challenge_failed',
  'two_factor.lockout',
  'two_factor.wrong_codes_lockout',
  // Passkeys (src/passkeys/, docs/guides/passkeys.md). A passkey sign-in itself is `login.succeeded` (method
  // "passkey"), so everything derived from logins (webhooks, metrics) counts it as one.
  'passkey.created',
  'passkey.renamed',
  'passkey.deleted',
  // An administrator removed a user's passkey from the panel (docs/guides/admin-panel.md).
  'admin.passkey.deleted',
  'passkey.login_failed',
  'passkey.clone_suspected',
  // Login providers (src/identities/, docs/guides/login-providers.md). A sign-in through one is
  // `login.succeeded` with method "provider" and the provider's name.
  'identity.linked',
  'identity.unlinked',
  // Webhooks (src/webhooks/, docs/guides/webhooks.md): an administrator made a delivery due again.
  'admin.webhook.retried',
  // The OpenID Connect provider (src/oauth/, docs/guides/oidc-provider.md).
  'oauth.client.created',
  'oauth.client.updated',
  'oauth.client.secret_rotated',
  'oauth.client.deleted',
  'oauth.consent.granted',
  'oauth.consent.revoked',
  'oauth.refresh_token.reused',
  // Organizations (src/orgs/, docs/guides/organizations.md). Details name the organization (`organization_id`,
  // `organization_slug`); the subject is the member an event is about.
  'org.created',
  'org.updated',
  'org.deleted',
  'org.invitation.sent',
  'org.invitation.accepted',
  'org.invitation.cancelled',
  'org.member.removed',
  'org.member.role_changed',
] as const;

export type AuditEvent = (typeof AUDIT_EVENTS)[number];

/**
 * Appends one row to the audit trail. Details must never hold a secret (passwords, tokens, cookies).
 *
 * The single door of webhook events too: a change that audits an event webhooks/webhook-events.ts
 * reports writes the event in the same transaction (one is opened when `db` is not one), so a
 * receiver hears of exactly the changes that committed. A use case that deletes a user records its
 * event before the row goes, so the event still carries the e-mail and name.
 */
export async function recordAudit(
  db: Db,
  event: AuditEvent,
  context: AuditContext,
  subjectId: number | null,
  details?: Record<string, unknown>,
): Promise<void> {
  const webhooks = context.webhooks?.reports(event) ? context.webhooks : null;
  if (webhooks && !db.isTransaction) {
    return db.transaction().execute((trx) => recordAudit(trx, event, context, subjectId, details));
  }
  await db
    .insertInto('audit_log')
    .values({
      event,
      actor_id: context.actorId ?? null,
      subject_id: subjectId,
      ip_address: context.ip ?? null,
      details: details === undefined ? null : JSON.stringify(details),
      created_at: context.now,
    })
    .execute();
  await webhooks?.record(db, {
    event,
    actorId: context.actorId ?? null,
    subjectId,
    details: details ?? {},
    now: context.now,
  });
}
