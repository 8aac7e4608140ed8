import type { FastifyInstance } from 'fastify';
import { identityRoutes } from '../identities/index.ts';
import { oauthRoutes } from '../oauth/index.ts';
import { orgRoutes } from '../orgs/index.ts';
import { accountRoutes } from './account/index.ts';
import { adminRoutes } from './admin/index.ts';
import { apiRoutes } from './api/index.ts';
import { assetRoutes } from './assets.ts';
import { forwardAuthRoutes } from './forward-auth/index.ts';
import { metricsRoutes } from './metrics.ts';
import { opsRoutes } from './ops.ts';
import { webRoutes } from './web/index.ts';

/**
 * Every route, by area; each area is a folder protected through requireAuth and auth.config.ts.
 * A new area (account self-service under /user, forward auth) is a folder beside these and a line here.
 */
export async function routes(app: FastifyInstance) {
  await app.register(opsRoutes);
  await app.register(metricsRoutes);
  await app.register(assetRoutes);
  await app.register(apiRoutes);
  await app.register(webRoutes);
  await app.register(accountRoutes);
  await app.register(adminRoutes);
  await app.register(forwardAuthRoutes);
  await app.register(oauthRoutes);
  await app.register(identityRoutes);
  await app.register(orgRoutes);
}
