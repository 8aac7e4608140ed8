import type { AuditContext } from '../audit/audit.ts';
import type { PasswordHasher } from '../auth/passwords.ts';
import type { RateLimiter } from '../auth/rate-limiter.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/schema.ts';
import type { Clock } from '../lib/clock.ts';
import { checkOwnPassword, type PasswordCheckDeps, type PasswordCheckPurpose } from './password-check.ts';
import { confirmPassword } from './password-confirmation.ts';

export interface AccountServiceDeps {
  readonly config: Config;
  readonly db: Db;
  readonly clock: Clock;
  readonly hasher: PasswordHasher;
  readonly limiter: RateLimiter;
}

/**
 * Account self-service (CONTRACT §10): what a signed-in user does to their own account, each use
 * case with its dependencies bound once. Built by services.ts; http/routes/account/ only calls it.
 */
export function createAccountService(deps: AccountServiceDeps) {
  const { config, db } = deps;
  const passwords: PasswordCheckDeps = {
    db,
    hasher: deps.hasher,
    limiter: deps.limiter,
    // The web login's own limit: these checks share its counter (password-check.ts).
    limit: { max: config.loginMaxAttempts, windowSeconds: config.loginDecaySeconds },
  };
  return {
    checkPassword: (userId: number, password: string, purpose: PasswordCheckPurpose, audit: AuditContext) =>
      checkOwnPassword(passwords, userId, password, purpose, audit),
    confirmPassword: (userId: number, password: string, audit: AuditContext) =>
      confirmPassword(passwords, userId, password, audit),
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
