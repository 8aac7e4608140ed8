import type { FastifyInstance } from 'fastify';
import { packageVersion } from '../../lib/version.ts';
import { openApiDocument } from '../openapi/document.ts';
import { guardCookies } from '../session/session-cookies.ts';

export async function opsRoutes(app: FastifyInstance) {
  const { database, redis, config, auth, orgs } = app.services;

  // Built once: it depends on the configuration only (names, cookies, the ability catalogue).
  const cookies = guardCookies(config, auth.config);
  const openApi = JSON.stringify(
    openApiDocument({
      appName: config.appName,
      appUrl: config.appUrl,
      version: packageVersion(),
      sessionCookie: cookies.get('web')?.session ?? 'gatehouse_session',
      adminSessionCookie: cookies.get('admin')?.session ?? 'gatehouse_admin_session',
      abilityCatalogue: config.tokenAbilities,
      orgRoles: orgs.roles,
    }),
  );
  app.get('/openapi.json', async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(openApi),
  );

  app.get('/health', async () => ({ status: 'ok' }));

  /** Ready only when every configured backing service answers within a second. */
  app.get('/ready', async (_request, reply) => {
    const checks: Record<string, 'ok' | 'fail'> = {};
    const probe = async (name: string, run: () => Promise<unknown>) => {
      try {
        await Promise.race([
          run(),
          new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 1000).unref()),
        ]);
        checks[name] = 'ok';
      } catch {
        checks[name] = 'fail';
      }
    };
    await Promise.all([
      probe('database', () => database.ping()),
      redis ? probe('redis', () => redis.ping()) : Promise.resolve(),
    ]);
    const ready = Object.values(checks).every((c) => c === 'ok');
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ok' : 'unavailable', checks });
  });
}
