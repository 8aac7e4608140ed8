/** The events a webhook receiver can get (docs/guides/webhooks.md). */
export const WEBHOOK_EVENTS = [
  'user.registered',
  'user.verified',
  'user.email_changed',
  'user.password_changed',
  'user.password_reset',
  'user.deleted',
  'user.disabled',
  'user.enabled',
  'user.login',
  'token.created',
  'token.revoked',
  'two_factor.enabled',
  'two_factor.disabled',
  'passkey.created',
  'passkey.deleted',
  'org.member.added',
  'org.member.removed',
  'oauth.consent.granted',
  'oauth.consent.revoked',
] as const;

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/**
 * Audit event → webhook event: the one table that decides what is reported. Every state change writes
 * an audit row in its own transaction (audit/audit.ts), so an event recorded there is written in the
 * same transaction as the change, and a new use case that audits is reported by adding a line here.
 * Keyed by name rather than by the AuditEvent union: the passkey events arrive with the passkey routes.
 * Sign-ins to the panel (admin.login.succeeded) are not user.login: that event reports the user's own
 * sign-ins (web, API token), as Laravel's Login event of the web guard would.
 */
const REPORTED: Readonly<Record<string, WebhookEvent>> = {
  'user.registered': 'user.registered',
  'email.verified': 'user.verified',
  'admin.user.verified': 'user.verified',
  'user.email_changed': 'user.email_changed',
  'user.password_changed': 'user.password_changed',
  'password.reset': 'user.password_reset',
  'user.deleted': 'user.deleted',
  'admin.user.deleted': 'user.deleted',
  'admin.user.disabled': 'user.disabled',
  'admin.user.enabled': 'user.enabled',
  'login.succeeded': 'user.login',
  'token.created': 'token.created',
  'token.issued': 'token.created',
  'token.revoked': 'token.revoked',
  'admin.token.revoked': 'token.revoked',
  'two_factor.enabled': 'two_factor.enabled',
  'two_factor.disabled': 'two_factor.disabled',
  'passkey.created': 'passkey.created',
  'passkey.deleted': 'passkey.deleted',
  'admin.passkey.deleted': 'passkey.deleted',
  // docs/guides/organizations.md: a creator joins their new organization as its owner.
  'org.created': 'org.member.added',
  'org.invitation.accepted': 'org.member.added',
  'org.member.removed': 'org.member.removed',
  // docs/guides/oidc-provider.md "Connected apps": a person allowed a client more, or disconnected it.
  'oauth.consent.granted': 'oauth.consent.granted',
  'oauth.consent.revoked': 'oauth.consent.revoked',
};

/** The webhook event an audit event is reported as, or null. */
export function webhookEventFor(auditEvent: string): WebhookEvent | null {
  return Object.hasOwn(REPORTED, auditEvent) ? REPORTED[auditEvent]! : null;
}

type Scalar = string | number | boolean;
type Details = Readonly<Record<string, unknown>>;

/**
 * What an event adds to `data` beyond the user and the actor, picked from the audit details by name.
 * A list of what may go out rather than everything the audit row holds: `data` carries ids, e-mail
 * addresses, names and plain facts, never a secret or a hash.
 */
const EXTRA: Partial<Record<WebhookEvent, (d: Details) => Record<string, unknown>>> = {
  'user.email_changed': (d) => ({ previous_email: text(d['from']) }),
  'user.login': (d) => ({ guard: text(d['channel']), two_factor: d['two_factor'] === true }),
  'token.created': (d) => ({ token: { id: id(d['token_id']), name: text(d['name']) } }),
  'token.revoked': (d) => ({
    token_id: id(d['token_id'] ?? d['id']),
    token_name: text(d['name']),
    all: d['scope'] === 'all',
    count: id(d['count']) ?? 1,
  }),
  'two_factor.disabled': (d) => ({ by: text(d['by']) }),
  'passkey.created': (d) => ({ passkey: { id: id(d['passkey_id'] ?? d['id']), name: text(d['name']) } }),
  'passkey.deleted': (d) => ({ passkey: { id: id(d['passkey_id'] ?? d['id']), name: text(d['name']) } }),
  'oauth.consent.granted': (d) => ({
    client_id: text(d['client_id']),
    scope: text(d['scope']),
    added: text(d['added']),
  }),
  'oauth.consent.revoked': (d) => ({ client_id: text(d['client_id']), client_name: text(d['name']) }),
};

/**
 * Events whose `data` has a shape of its own rather than the user, the actor and extras: a membership
 * (docs/guides/organizations.md) is `{organization: {id, slug}, user: {id, email}, role}`.
 */
const SHAPED: Partial<
  Record<WebhookEvent, (subject: EventSubject | null, d: Details) => Record<string, unknown>>
> = {
  'org.member.added': membershipData,
  'org.member.removed': membershipData,
};

function membershipData(subject: EventSubject | null, d: Details): Record<string, unknown> {
  return {
    organization: { id: id(d['organization_id']), slug: text(d['organization_slug']) },
    user: subject && { id: subject.id, email: subject.email },
    role: text(d['role']),
  };
}

export interface EventSubject {
  readonly id: number;
  readonly email: string | null;
  readonly name: string | null;
}

/** The `data` of an event: the user it is about, who did it, and the event's own facts. */
export function eventData(
  type: WebhookEvent,
  subject: EventSubject | null,
  actorId: number | null,
  details: Details,
): Record<string, unknown> {
  const shaped = SHAPED[type];
  if (shaped) return dropUndefined(shaped(subject, details));
  return dropUndefined({ user: subject, actor_id: actorId, ...EXTRA[type]?.(details) });
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const id = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isSafeInteger(value) ? value : undefined;

function dropUndefined(value: Record<string, unknown>): Record<string, unknown> {
  const kept: [string, unknown][] = [];
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue;
    const nested =
      item !== null && typeof item === 'object' ? dropUndefined(item as Record<string, Scalar>) : item;
    kept.push([key, nested]);
  }
  return Object.fromEntries(kept);
}
