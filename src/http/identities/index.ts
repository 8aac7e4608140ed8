import type { FastifyInstance } from 'fastify';
import { linkedAccountRoutes } from './linked-accounts.ts';
import { signInRoutes } from './sign-in.ts';

/**
 * Sign-in with other providers (docs/guides/login-providers.md): /auth/{provider} and its callback,
 * and the account's linked identities under /user/linked-accounts. The providers' discovery documents
 * are read once the app is ready, in the background: a provider that is down delays nothing.
 */
export async function identityRoutes(app: FastifyInstance) {
  await app.register(signInRoutes);
  await app.register(linkedAccountRoutes);
  app.addHook('onReady', async () => {
    app.services.identities.providers.start(app.log);
  });
}
