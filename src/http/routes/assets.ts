import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { FastifyInstance } from 'fastify';

const folder = join(dirname(fileURLToPath(import.meta.url)), '..', 'assets');

/** URL → [file in src/http/assets, content type]. */
const ASSETS: Record<string, [string, string]> = {
  '/assets/app.css': ['app.css', 'text/css; charset=utf-8'],
  '/assets/app.js': ['app.js', 'text/javascript; charset=utf-8'],
  '/assets/login-providers.js': ['login-providers.js', 'text/javascript; charset=utf-8'],
  '/favicon.svg': ['favicon.svg', 'image/svg+xml'],
  // Browsers and feed readers ask for /favicon.ico whatever the page says; an SVG answers them all
  // (a 404 there would be an error in every page's console and log).
  '/favicon.ico': ['favicon.svg', 'image/svg+xml'],
};

/**
 * /assets/passkeys.js: our passkeys.js bundled with @simplewebauthn/browser by esbuild, once per
 * process, when it is first asked for (as the hashing threads' module is compiled on first use:
 * auth/hash-pool.ts), then served from memory. Not at start: esbuild's process costs a few hundred
 * milliseconds to spawn, which every test process and CLI command would pay for a script most of them
 * never serve. No CDN: the page CSP allows scripts from 'self' only, and the code that runs sign-in
 * ceremonies should be the version in this repository's lock file.
 */
let passkeysBundle: Promise<Buffer> | undefined;
function passkeysScript(): Promise<Buffer> {
  passkeysBundle ??= build({
    entryPoints: [join(folder, 'passkeys.js')],
    bundle: true,
    format: 'iife',
    minify: true,
    target: ['es2020'],
    write: false,
    legalComments: 'none',
  }).then((result) => Buffer.from(result.outputFiles[0]!.contents));
  return passkeysBundle;
}

/** The stylesheet, the scripts and the icon are read once (the bundle built once) and served from memory, cached. */
export async function assetRoutes(app: FastifyInstance) {
  for (const [url, [file, type]] of Object.entries(ASSETS)) {
    const body = readFileSync(join(folder, file));
    app.get(url, async (_request, reply) =>
      reply.type(type).header('cache-control', 'public, max-age=3600').send(body),
    );
  }
  app.get('/assets/passkeys.js', async (_request, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .send(await passkeysScript()),
  );
}
