import type { FastifyInstance } from 'fastify';

export async function opsRoutes(app: FastifyInstance) {
  const { database, redis } = app.services;

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
