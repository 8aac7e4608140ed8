import type { FastifyInstance } from 'fastify';
import { safeEqual } from '../../lib/crypto.ts';
import { bearerChallenge } from '../bearer-challenge.ts';
import { HttpError, NotFoundError } from '../errors.ts';

/**
 * GET /metrics (docs/guides/metrics.md): 404 unless METRICS_TOKEN is set, then only with `Authorization: Bearer
 * <METRICS_TOKEN>`. The token is compared in constant time (safeEqual hashes both sides first), so
 * response timing tells nothing about how much of a guess matched.
 */
export async function metricsRoutes(app: FastifyInstance) {
  const { config, metrics } = app.services;
  const token = config.metricsToken;

  app.get('/metrics', async (request, reply) => {
    if (token === null || !metrics.enabled) throw new NotFoundError();
    const match = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '');
    if (match === null || !safeEqual(match[1]!, token)) {
      throw new HttpError(401, 'GH_UNAUTHENTICATED', 'auth.unauthenticated', {
        'www-authenticate': bearerChallenge(config.appName, match === null ? undefined : 'invalid_token'),
      });
    }
    const { contentType, body } = await metrics.scrape();
    return reply.header('cache-control', 'no-store').type(contentType).send(body);
  });
}
