import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

const folder = join(dirname(fileURLToPath(import.meta.url)), '..', 'assets');

/** URL → [file in http/assets (its copy in dist/), content type]. */
const ASSETS: Record<string, [string, string]> = {
  '/assets/app.css': ['app.css', 'text/css; charset=utf-8'],
  '/assets/app.js': ['app.js', 'text/javascript; charset=utf-8'],
  '/assets/login-providers.js': ['login-providers.js', 'text/javascript; charset=utf-8'],
  // Our passkeys.js bundled with @simplewebauthn/browser when the sources are built (scripts/build.mjs
  // writes the bundle in its place in dist/). No CDN: the page CSP allows scripts from 'self' only, and
  // the code that runs sign-in ceremonies should be the version in this repository's lock file.
  '/assets/passkeys.js': ['passkeys.js', 'text/javascript; charset=utf-8'],
  '/favicon.svg': ['favicon.svg', 'image/svg+xml'],
  // Browsers and feed readers ask for /favicon.ico whatever the page says; an SVG answers them all
  // (a 404 there would be an error in every page's console and log).
  '/favicon.ico': ['favicon.svg', 'image/svg+xml'],
};

/** The stylesheet, the scripts and the icon are read once and served from memory, cached. */
export async function assetRoutes(app: FastifyInstance) {
  for (const [url, [file, type]] of Object.entries(ASSETS)) {
    const body = readFileSync(join(folder, file));
    app.get(url, async (_request, reply) =>
      reply.type(type).header('cache-control', 'public, max-age=3600').send(body),
    );
  }
}
