import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

const folder = join(dirname(fileURLToPath(import.meta.url)), '..', 'assets');

/** The stylesheet is read once at start and served from memory with a long cache lifetime. */
export async function assetRoutes(app: FastifyInstance) {
  const css = readFileSync(join(folder, 'app.css'));
  app.get('/assets/app.css', async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(css),
  );
}
