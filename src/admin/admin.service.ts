import type { AccountDeletionDeps } from '../account/account-deletion.ts';
import type { AuditContext } from '../audit/audit.ts';
import type { AuthService } from '../auth/auth.service.ts';
import type { PasswordHasher } from '../auth/passwords/passwords.ts';
import { verificationSettings } from '../auth/verification/email-verification.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/schema.ts';
import type { Mailing } from '../mail/mailing.ts';
import { findUserById } from '../users/users.repository.ts';
import { type AuditBrowseQuery, browseAuditLog } from './audit-log.ts';
import { createAdmin, type NewAdminInput } from './create-admin.ts';
import { loadOverview } from './overview.ts';
import { ownerId, protectsOwnersSecondFactors } from './owner.ts';
import { disableUser, enableUser, markEmailVerified, setPanelAccess } from './user-actions.ts';
import {
  endAllUserSessions,
  endUserSession,
  revokeAllUserTokens,
  revokeUserToken,
} from './user-credentials.ts';
import { loadUserDetail, searchUsers, type UserListQuery } from './user-directory.ts';
import { deleteUser, inviteUser, sendVerificationLink } from './user-lifecycle.ts';

export interface AdminServiceDeps {
  readonly db: Db;
  readonly hasher: PasswordHasher;
  readonly mailing: Mailing;
  readonly config: Config;
  readonly auth: AuthService;
  readonly deletion: AccountDeletionDeps;
}

/**
 * The panel's use cases (docs/guides/admin-panel.md), bound once to their dependencies: the routes in
 * http/routes/admin call these and never the database. Each state change audits in its transaction.
 */
export function createAdminService({ db, hasher, mailing, config, auth, deletion }: AdminServiceDeps) {
  return {
    overview: (now: number) =>
      loadOverview(
        db,
        { tokenExpirationMinutes: config.tokenExpirationMinutes, sessionLifetimes: auth.sessionLifetimes },
        now,
      ),
    userDetail: (userId: number, now: number) =>
      loadUserDetail(db, { tokens: auth.tokens.settings, webSessions: auth.lifetimesOf('web') }, userId, now),
    /** One user's row, for the target of an action (undefined: no such user). */
    findUser: (userId: number) => findUserById(db, userId),
    searchUsers: (query: UserListQuery, pageSize: number) => searchUsers(db, query, pageSize),
    browseAuditLog: (query: AuditBrowseQuery, pageSize: number) => browseAuditLog(db, query, pageSize),
    /** The seed admin (make:admin): mails in APP_LOCALE, since no request gives a language. */
    create: (input: NewAdminInput, audit: AuditContext) =>
      createAdmin({ db, hasher, canAccessPanel: auth.canAccessPanel, locale: config.locale }, input, audit),
    /** The installation's owner: the first admin make:admin created. */
    ownerId: () => ownerId(db),
    /** Whether this admin may not remove this user's second factors (the owner's, docs/security.md). */
    protectsOwnersSecondFactors: (userId: number, actorId: number) =>
      protectsOwnersSecondFactors(db, userId, actorId),
    /** A new account and an invitation mail with a set-password link, in the admin's language. */
    invite: (input: { name: string; email: string; locale: string }, audit: AuditContext) =>
      inviteUser(
        { db, hasher, mailing, resetExpireMinutes: config.passwordResetExpireMinutes },
        input,
        audit,
      ),
    sendVerificationLink: (userId: number, audit: AuditContext) =>
      sendVerificationLink(db, mailing, verificationSettings(config), userId, audit),
    deleteUser: (userId: number, audit: AuditContext) => deleteUser(deletion, userId, audit),
    verifyEmail: (userId: number, audit: AuditContext) => markEmailVerified(db, userId, audit),
    disable: (userId: number, audit: AuditContext) => disableUser(db, userId, audit),
    enable: (userId: number, audit: AuditContext) => enableUser(db, userId, audit),
    /** The panel's own grant or withdrawal (the CLI's goes through admin:grant, which may touch the owner). */
    setPanelAccess: (userId: number, grant: boolean, audit: AuditContext) =>
      setPanelAccess(db, userId, grant, audit, 'panel'),
    revokeToken: (userId: number, tokenId: number, audit: AuditContext) =>
      revokeUserToken(db, userId, tokenId, audit),
    revokeAllTokens: (userId: number, audit: AuditContext) => revokeAllUserTokens(db, userId, audit),
    endSession: (userId: number, key: string, audit: AuditContext) => endUserSession(db, userId, key, audit),
    endAllSessions: (userId: number, audit: AuditContext) => endAllUserSessions(db, userId, audit),
  };
}

export type AdminService = ReturnType<typeof createAdminService>;
