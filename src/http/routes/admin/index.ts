import type { FastifyInstance } from 'fastify';
import { twoFactorChallengeRoutes } from '../../login/two-factor-challenge.ts';
import { clientPanelRoutes } from '../../oauth/panel-clients.ts';
import { orgPanelRoutes } from '../../orgs/panel.ts';
import { adminActionRoutes } from './actions.ts';
import { adminLoginRoutes } from './login.ts';
import { adminPageRoutes } from './pages.ts';
import { adminTwoFactorRequiredRoutes, requireAdminTwoFactor } from './two-factor-required.ts';
import { adminLifecycleRoutes } from './user-lifecycle.ts';
import { adminWebhookRoutes } from './webhooks.ts';

/** Everything under /admin: the panel's login, its pages and its actions. */
export async function adminRoutes(app: FastifyInstance) {
  // Before any route is registered, so that it covers every panel route (ADMIN_REQUIRE_TWO_FACTOR).
  if (app.services.config.adminRequireTwoFactor) requireAdminTwoFactor(app);
  await app.register(adminTwoFactorRequiredRoutes);
  await app.register(adminLoginRoutes);
  await app.register(
    twoFactorChallengeRoutes({
      guard: 'admin',
      loginPath: '/admin/login',
      fallback: '/admin',
      variant: 'admin',
    }),
  );
  await app.register(adminPageRoutes);
  await app.register(adminActionRoutes);
  await app.register(adminLifecycleRoutes);
  await app.register(adminWebhookRoutes);
  // Organizations' and OIDC clients' panel pages live with their features (http/orgs/, http/oauth/); registered here so that every panel
  // hook above (ADMIN_REQUIRE_TWO_FACTOR) covers them.
  await app.register(orgPanelRoutes);
  await app.register(clientPanelRoutes);
}
