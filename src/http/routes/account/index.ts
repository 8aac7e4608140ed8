import type { FastifyInstance } from 'fastify';
import { apiTokenRoutes } from './api-tokens.ts';
import { browserSessionRoutes } from './browser-sessions.ts';
import { cancelEmailChangeRoutes } from './cancel-email-change.ts';
import { confirmPasswordRoutes } from './confirm-password.ts';
import { dataExportRoutes } from './data-export.ts';
import { deleteAccountRoutes } from './delete-account.ts';
import { accountPageRoutes } from './page.ts';
import { passkeyRoutes } from './passkeys.ts';
import { passwordRoutes } from './password.ts';
import { profileInformationRoutes } from './profile-information.ts';
import { twoFactorRoutes } from './two-factor.ts';

/**
 * Account self-service under /user (docs/guides/account.md) and its page, /profile: the web session guard (a
 * guest gets 302 /login, JSON 401), CSRF on every change, password confirmation where the contract
 * asks for it (http/password-confirmation.ts). Forms reach PUT and DELETE through `_method`
 * (http/form-methods.ts). Each route file is thin: validate, call services.account, answer.
 */
export async function accountRoutes(app: FastifyInstance) {
  await app.register(confirmPasswordRoutes);
  await app.register(accountPageRoutes);
  await app.register(profileInformationRoutes);
  await app.register(cancelEmailChangeRoutes);
  await app.register(passwordRoutes);
  await app.register(twoFactorRoutes);
  await app.register(passkeyRoutes);
  await app.register(browserSessionRoutes);
  await app.register(apiTokenRoutes);
  await app.register(dataExportRoutes);
  await app.register(deleteAccountRoutes);
}
