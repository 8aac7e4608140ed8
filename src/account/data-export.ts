import { auditRowsOfUser } from '../audit/audit.repository.ts';
import { type AuditContext, recordAudit } from '../audit/audit.ts';
import { findResetToken } from '../auth/password-reset/password-resets.repository.ts';
import { allRememberTokensOfUser } from '../auth/remember-me/remember-tokens.repository.ts';
import { listSessionsOfUser } from '../auth/sessions/sessions.repository.ts';
import { type AccessTokenSettings, listAccessTokens, tokenFacts } from '../auth/tokens/access-tokens.ts';
import type { Db } from '../db/schema.ts';
import { listIdentityRows } from '../identities/identities.repository.ts';
import { organizationsExportPart } from '../orgs/export-part.ts';
import { listPasskeys } from '../passkeys/passkeys.repository.ts';
import { listPostsOfUser } from '../posts/posts.repository.ts';
import { findTwoFactorRow } from '../two-factor/two-factor.repository.ts';
import type { TwoFactorState } from '../two-factor/two-factor.ts';
import { findUserById } from '../users/users.repository.ts';

/**
 * GET /user/export (docs/guides/account.md): everything stored about a user, as one JSON document made of named
 * parts. Each part picks its fields one by one, so a column added later is not exported by accident —
 * and above all no secret is: no password hash, no session id or session data (it holds the CSRF
 * secret), no token or its hash, no remember-me selector or validator, no reset-token hash, no
 * two-factor secret or recovery code. A feature that stores something about users adds its part to
 * EXPORT_PARTS below.
 */

/** What the parts read from. */
export interface ExportSource {
  readonly db: Db;
  readonly tokens: AccessTokenSettings;
  /** Two-factor status and the number of unused recovery codes (the codes themselves never). */
  readonly twoFactorState: (userId: number) => Promise<TwoFactorState>;
}

export interface ExportPart {
  /** The part's key in the document. */
  readonly name: string;
  collect(source: ExportSource, userId: number): Promise<unknown>;
}

const iso = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? null : new Date(ms).toISOString();

const profile: ExportPart = {
  name: 'profile',
  async collect({ db }, userId) {
    const row = await findUserById(db, userId);
    if (row === undefined) return null;
    return {
      id: row.id,
      name: row.name,
      email: row.email,
      email_verified_at: iso(row.email_verified_at),
      locale: row.locale,
      panel_access: row.can_access_panel === 1,
      disabled_at: iso(row.disabled_at),
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
    };
  },
};

const pendingEmail: ExportPart = {
  name: 'pending_email',
  async collect({ db }, userId) {
    const row = await findUserById(db, userId);
    if (row?.pending_email == null) return null;
    return { email: row.pending_email, requested_at: iso(row.pending_email_at) };
  },
};

const sessions: ExportPart = {
  name: 'sessions',
  async collect({ db }, userId) {
    return (await listSessionsOfUser(db, userId)).map((row) => ({
      guard: row.guard,
      ip_address: row.ip_address,
      user_agent: row.user_agent,
      created_at: iso(row.created_at),
      last_active_at: iso(row.last_activity),
    }));
  },
};

const rememberedDevices: ExportPart = {
  name: 'remembered_devices',
  async collect({ db }, userId) {
    return (await allRememberTokensOfUser(db, userId)).map((row) => ({
      guard: row.guard,
      ip_address: row.ip_address,
      user_agent: row.user_agent,
      created_at: iso(row.created_at),
      last_used_at: iso(row.last_used_at),
      expires_at: iso(row.expires_at),
    }));
  },
};

const apiTokens: ExportPart = {
  name: 'api_tokens',
  async collect({ db, tokens }, userId) {
    return (await listAccessTokens(db, tokens, userId)).map((token) => tokenFacts(token, iso));
  },
};

const twoFactor: ExportPart = {
  name: 'two_factor',
  async collect({ db, twoFactorState }, userId) {
    const row = await findTwoFactorRow(db, userId);
    const state = await twoFactorState(userId);
    return {
      status: state.status,
      enrolment_started_at: iso(row?.created_at),
      confirmed_at: iso(row?.confirmed_at),
      recovery_codes_left: state.recoveryCodesLeft,
    };
  },
};

const passwordReset: ExportPart = {
  name: 'password_reset',
  async collect({ db }, userId) {
    const row = await findResetToken(db, userId);
    return row === undefined ? null : { requested_at: iso(row.created_at) };
  },
};

/**
 * What the user did and what was done to the account, but not other people (docs/security.md "The data
 * export"): an action of someone else on the account (an admin's) keeps its event and time and says
 * `actor: "someone_else"`, without that person's id or IP address; an action of the user on someone else
 * (the user as an admin) keeps what the user did, without the other person's id or the details that
 * name them. Attempts by nobody known (a failed login) keep their address: they were made on this account.
 */
const auditEvents: ExportPart = {
  name: 'audit_events',
  async collect({ db }, userId) {
    return (await auditRowsOfUser(db, userId)).map((row) => {
      const byUser = row.actor_id === userId;
      const bySomeoneElse = row.actor_id !== null && !byUser;
      const aboutUser = row.subject_id === userId;
      return {
        id: row.id,
        event: row.event,
        actor: byUser ? 'you' : bySomeoneElse ? 'someone_else' : null,
        actor_id: byUser ? userId : null,
        subject_id: aboutUser ? userId : null,
        ip_address: bySomeoneElse ? null : row.ip_address,
        details: row.details === null || !aboutUser ? null : (JSON.parse(row.details) as unknown),
        created_at: iso(row.created_at),
      };
    });
  },
};

// Names and dates only: the public key and the credential id identify the authenticator, not the person.
const passkeys: ExportPart = {
  name: 'passkeys',
  async collect({ db }, userId) {
    return (await listPasskeys(db, userId)).map((passkey) => ({
      name: passkey.name,
      created_at: iso(passkey.created_at),
      last_used_at: iso(passkey.last_used_at),
    }));
  },
};

// The provider, its subject id (what the provider calls the person) and the address it gave.
const linkedAccounts: ExportPart = {
  name: 'linked_accounts',
  async collect({ db }, userId) {
    return (await listIdentityRows(db, userId)).map((identity) => ({
      provider: identity.provider,
      subject: identity.subject,
      email: identity.email,
      email_verified: identity.email_verified === 1,
      created_at: iso(identity.created_at),
      last_used_at: iso(identity.last_used_at),
    }));
  },
};

const posts: ExportPart = {
  name: 'posts',
  async collect({ db }, userId) {
    return (await listPostsOfUser(db, userId)).map((post) => ({
      id: post.id,
      title: post.title,
      body: post.body,
      created_at: iso(post.created_at),
      updated_at: iso(post.updated_at),
    }));
  },
};

/** The parts, in the order the document lists them. */
export const EXPORT_PARTS: readonly ExportPart[] = [
  profile,
  pendingEmail,
  sessions,
  rememberedDevices,
  apiTokens,
  twoFactor,
  passkeys,
  linkedAccounts,
  passwordReset,
  auditEvents,
  posts,
  organizationsExportPart,
];

/**
 * Collects every part and records `user.exported` (who downloaded what, and from where). Null when
 * the account no longer exists.
 */
export async function exportAccountData(
  source: ExportSource,
  userId: number,
  audit: AuditContext,
  parts: readonly ExportPart[] = EXPORT_PARTS,
): Promise<Record<string, unknown> | null> {
  const document: Record<string, unknown> = { exported_at: iso(audit.now) };
  for (const part of parts) document[part.name] = await part.collect(source, userId);
  if (document['profile'] === null) return null;
  await recordAudit(source.db, 'user.exported', audit, userId, { parts: parts.map((part) => part.name) });
  return document;
}
