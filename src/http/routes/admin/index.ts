import type { FastifyInstance } from 'fastify';
import { twoFactorChallengeRoutes } from '../../two-factor-challenge.ts';
import { adminActionRoutes } from './actions.ts';
import { adminLoginRoutes } from './login.ts';
import { adminPageRoutes } from './pages.ts';
import { adminLifecycleRoutes } from './user-lifecycle.ts';

/** Everything under /admin: the panel's login, its pages and its actions. */
export async function adminRoutes(app: FastifyInstance) {
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
}
