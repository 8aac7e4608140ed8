/**
 * Which files of src/ one warm request runs code in (docs/contributing/benchmarks.md): V8's precise
 * coverage, reset just before the request and read just after it. The service runs in this process
 * (buildApp + inject) over the database DATABASE_URL names (default: a temporary SQLite file).
 *
 *   npm run build && node dist/bench/files-crossed.js [bearer|session|forward]   (default: bearer)
 *
 * It runs compiled, from dist/ (scripts/build.mjs): the files are counted there and named by their
 * sources.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.ts';
import { HEARD_WITHIN_MS } from '../src/auth/cache/own-ticks.ts';
import { loadConfig } from '../src/config.ts';
import { migrateToLatest } from '../src/db/migrator.ts';
import { createServices } from '../src/services.ts';
import { issueToken, loginSession, seedUser } from './seed.ts';

const which = process.argv[2] ?? 'bearer';
const root = fileURLToPath(new URL('../src/', import.meta.url));
const folder = mkdtempSync(join(tmpdir(), 'gatehouse-files-'));
const config = loadConfig(
  {
    DATABASE_URL: process.env['DATABASE_URL'] ?? `sqlite:${join(folder, 'db.sqlite')}`,
    AUTH_CACHE: process.env['AUTH_CACHE'] ?? 'off',
    APP_KEY: `base64:${Buffer.alloc(32, 1).toString('base64')}`,
    STORAGE_PATH: folder,
    LOG_LEVEL: 'warn',
    IP_AUTH_LIMIT: '0',
    // The general API limit runs as configured by default, high enough for the warm-up not to reach it.
    API_RATE_LIMIT: '1000000',
    ...(process.env['REDIS_URL'] ? { REDIS_URL: process.env['REDIS_URL'] } : {}),
  },
  { readDotEnv: false },
);
const services = createServices(config);
await migrateToLatest(services.database.db);
const app = await buildApp(services);

// The same user, token and signed-in browser the bench uses (bench/seed.ts), over a real port.
const user = await seedUser(config.database, services.hasher);
const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
const token = await issueToken(baseUrl, user);
const cookie = await loginSession(baseUrl, user);
const request = {
  bearer: { url: '/api/user', headers: { authorization: `Bearer ${token}`, accept: 'application/json' } },
  session: { url: '/dashboard', headers: { cookie } },
  forward: { url: '/auth/request', headers: { cookie } },
}[which];
if (request === undefined) throw new Error(`unknown request "${which}": bearer, session or forward`);

// Warm: the first answers load modules, caches and the JIT's first tiers.
for (let i = 0; i < 50; i++) await app.inject(request);
// AUTH_CACHE=notify serves entries once its listener has subscribed (started by the first lookup).
for (let waited = 0; services.authCache && !services.authCache.live && waited < 5_000; waited += 10) {
  await new Promise((resolve) => setTimeout(resolve, 10));
}

const inspector = new Session();
inspector.connect();
await inspector.post('Profiler.enable');
await inspector.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
// A request just before the measured one, so that its answers are in the cache even where the cache
// serves only while its listener heard itself lately (AUTH_CACHE=notify: HEARD_WITHIN_MS); taking the
// coverage resets the counts. Tried again while the two were further apart than half that.
let response = await app.inject(request);
let gapMs = Number.POSITIVE_INFINITY;
for (let attempt = 0; attempt < 10 && gapMs > HEARD_WITHIN_MS / 2; attempt++) {
  await app.inject(request);
  const resetAt = performance.now();
  await inspector.post('Profiler.takePreciseCoverage');
  response = await app.inject(request);
  gapMs = performance.now() - resetAt;
}
const { result } = await inspector.post('Profiler.takePreciseCoverage');
await inspector.post('Profiler.stopPreciseCoverage');
inspector.disconnect();

const files = result
  .filter((script) => script.url.startsWith(`file://${root}`))
  .filter((script) => script.functions.some((fn) => fn.ranges.some((range) => range.count > 0)))
  .map((script) => relative(root, fileURLToPath(script.url)).replace(/\.js$/, '.ts'))
  .sort();
console.log(
  `${which}: ${response.statusCode}, ${files.length} files of src/ (${config.database.dialect}, ` +
    `AUTH_CACHE=${config.authCache}; ${gapMs.toFixed(1)} ms after the request before it)`,
);
for (const file of files) console.log(`  ${file}`);
await app.close();
rmSync(folder, { recursive: true, force: true });
