import type { Kysely } from 'kysely';
import type { AuditContext } from '../audit/audit.ts';
import type { DeviceCookies } from '../auth/login/device-cookies.ts';
import type { PasswordHasher } from '../auth/passwords/passwords.ts';
import type { SessionLifetimes } from '../auth/sessions/sessions.ts';
import type { LoginThrottle } from '../auth/throttle/login-throttle.ts';
import { accessTokenSettings } from '../auth/tokens/access-tokens.ts';
import { type PresentedLink, verificationSettings } from '../auth/verification/email-verification.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/schema.ts';
import type { Clock } from '../lib/clock.ts';
import type { Mailing } from '../mail/mailing.ts';
import type { TwoFactorState } from '../two-factor/two-factor.ts';
import { type AccountDeletionDeps, deleteOwnAccount, deletionRefusal } from './account-deletion.ts';
import { type ApiTokenDeps, createApiToken, revokeApiToken, updateApiTokenAbilities } from './api-tokens.ts';
import {
  type BrowserSessionDeps,
  type CurrentBrowser,
  endBrowserSession,
  endOtherBrowserSessions,
  listBrowserSessions,
} from './browser-sessions.ts';
import { type ExportSource, exportAccountData } from './data-export.ts';
import {
  cancelEmailChange,
  cancelEmailChangeByLink,
  cancelLinkTarget,
  confirmEmailChange,
  type ProfileDeps,
  pendingEmailOf,
  updateProfileInformation,
} from './email-change.ts';
import { changePassword, type PasswordChangeDeps } from './password-change.ts';
import {
  checkOwnPassword,
  type PasswordCheckContext,
  type PasswordCheckDeps,
  type PasswordCheckPurpose,
} from './password-check.ts';
import { confirmPassword } from './password-confirmation.ts';
import type { SignInMethods } from './sign-in-methods.ts';

export interface AccountServiceDeps {
  readonly config: Config;
  readonly db: Kysely<Database>;
  readonly clock: Clock;
  readonly hasher: PasswordHasher;
  /** The logins' counts and device cookies: the account's password checks count as logins do. */
  readonly loginThrottle: LoginThrottle;
  readonly devices: DeviceCookies;
  readonly mailing: Mailing;
  /** The web guard's session lifetimes: which sessions the list counts as live. */
  readonly webLifetimes: SessionLifetimes;
  /** The one account deletion (shared with the panel's delete), built once in services.ts. */
  readonly deletion: AccountDeletionDeps;
  /** Two-factor status for the data export (the auth service holds the sealing key). */
  readonly twoFactorState: (userId: number) => Promise<TwoFactorState>;
  /** How the account signs in besides its password (sign-in-methods.ts; services.ts may cache it). */
  readonly signInMethods: (userId: number) => Promise<SignInMethods>;
}

/**
 * Account self-service (docs/guides/account.md): what a signed-in user does to their own account, each use
 * case with its dependencies bound once. Built by services.ts; http/routes/account/ only calls it.
 */
export function createAccountService(deps: AccountServiceDeps) {
  const { config, db, mailing } = deps;
  // The logins' own counts: these checks share them (password-check.ts).
  const passwords: PasswordCheckDeps = {
    db,
    hasher: deps.hasher,
    throttle: deps.loginThrottle,
    devices: deps.devices,
  };
  const checkPassword = (
    userId: number,
    password: string,
    purpose: PasswordCheckPurpose,
    context: PasswordCheckContext,
  ) => checkOwnPassword(passwords, userId, password, purpose, context);
  const profile: ProfileDeps = { db, mailing, links: verificationSettings(config) };
  const passwordChange: PasswordChangeDeps = {
    db,
    hasher: deps.hasher,
    mailing,
    checkPassword: (userId, password, audit) => checkPassword(userId, password, 'change', audit),
    revokesTokens: config.passwordChangeRevokesTokens,
  };
  const browsers: BrowserSessionDeps = { db, appKey: config.appKey, lifetimes: deps.webLifetimes };
  const tokens: ApiTokenDeps = {
    db,
    settings: accessTokenSettings(config),
    catalogue: config.tokenAbilities,
  };
  const exportSource: ExportSource = {
    db,
    tokens: tokens.settings,
    twoFactorState: deps.twoFactorState,
  };
  return {
    checkPassword,
    /** Two-factor and passkeys at a glance (the dashboard's security card). */
    signInMethods: deps.signInMethods,
    tokenCatalogue: config.tokenAbilities,
    createToken: (
      userId: number,
      input: { name: string; abilities: readonly string[]; expiresInSeconds: number | null },
      audit: AuditContext,
    ) => createApiToken(tokens, userId, input, audit),
    updateTokenAbilities: (
      userId: number,
      tokenId: number,
      abilities: readonly string[],
      audit: AuditContext,
    ) => updateApiTokenAbilities(tokens, userId, tokenId, abilities, audit),
    revokeToken: (userId: number, tokenId: number, audit: AuditContext) =>
      revokeApiToken(tokens, userId, tokenId, audit),
    browserSessions: (userId: number, current: CurrentBrowser) =>
      listBrowserSessions(browsers, userId, current, deps.clock.now()),
    endBrowserSession: (userId: number, id: string, current: CurrentBrowser, audit: AuditContext) =>
      endBrowserSession(browsers, userId, id, current, audit),
    endOtherBrowserSessions: (
      userId: number,
      password: string,
      current: CurrentBrowser,
      audit: PasswordCheckContext,
    ) =>
      endOtherBrowserSessions(
        { ...browsers, checkPassword: (id, secret, a) => checkPassword(id, secret, 'other_sessions', a) },
        userId,
        password,
        current,
        audit,
      ),
    confirmPassword: (userId: number, password: string, audit: PasswordCheckContext) =>
      confirmPassword(passwords, userId, password, audit),
    updateProfile: (
      userId: number,
      input: { name: string; email: string },
      locale: string,
      audit: AuditContext,
    ) => updateProfileInformation(profile, userId, input, locale, audit),
    pendingEmail: (userId: number) => pendingEmailOf(db, userId),
    cancelEmailChange: (userId: number, audit: AuditContext) => cancelEmailChange(profile, userId, audit),
    /** The cancel link mailed to the current address: what it would cancel (null: nothing, or not valid). */
    cancelLinkTarget: (link: PresentedLink) => cancelLinkTarget(profile, link, deps.clock.now()),
    cancelEmailChangeByLink: (link: PresentedLink, audit: AuditContext) =>
      cancelEmailChangeByLink(profile, link, audit),
    confirmEmailChange: (userId: number, link: PresentedLink, audit: AuditContext) =>
      confirmEmailChange(profile, userId, link, audit),
    /** GET /user/export: everything stored about the user (data-export.ts), audited. */
    exportData: (userId: number, audit: AuditContext) => exportAccountData(exportSource, userId, audit),
    /** Whether the account page may offer deletion: 'owner' and 'last_admin' cannot delete themselves. */
    deletionRefusal: (userId: number) => deletionRefusal(deps.deletion, userId),
    /** DELETE /user: the password, then the one deletion use case (account-deletion.ts). */
    deleteAccount: (userId: number, password: string, locale: string, audit: PasswordCheckContext) =>
      deleteOwnAccount(
        { ...deps.deletion, checkPassword: (id, secret, a) => checkPassword(id, secret, 'delete', a) },
        userId,
        password,
        locale,
        audit,
      ),
    changePassword: (
      userId: number,
      input: { current_password: string; password: string },
      locale: string,
      audit: PasswordCheckContext,
    ) => changePassword(passwordChange, userId, input, locale, audit),
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
