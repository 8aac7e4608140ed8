import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

const folder = join(dirname(fileURLToPath(import.meta.url)), '..', 'assets');

/** URL → [file in src/http/assets, content type]. */
const ASSETS: Record<string, [string, string]> = {
  '/assets/app.css': ['app.css', 'text/css; charset=utf-8'],
  '/assets/app.js': ['app.js', 'text/javascript; charset=utf-8'],
  '/favicon.svg': ['favicon.svg', 'image/svg+xml'],
  // Browsers and feed readers ask for /favicon.ico whatever the page says; an SVG answers them all
  // (a 404 there would be an error in every page's console and log).
  '/favicon.ico': ['favicon.svg', 'image/svg+xml'],
};

/** The stylesheet, the script and the icon are read once at start and served from memory, cached. */
export async function assetRoutes(app: FastifyInstance) {
  for (const [url, [file, type]] of Object.entries(ASSETS)) {
    const body = readFileSync(join(folder, file));
    app.get(url, async (_request, reply) =>
      reply.type(type).header('cache-control', 'public, max-age=3600').send(body),
    );
  }
}
