#!/usr/bin/env node
// The CLI runs the compiled JavaScript in dist/ (scripts/build.mjs). `npm install` builds it (the
// `prepare` script); if dist/ is missing or older than the sources (a pull, an edit), it is brought up
// to date here first, which takes about a second once and a few milliseconds when nothing changed.
import { build } from '../scripts/build.mjs';

try {
  await build({ quiet: true });
} catch (error) {
  process.stderr.write(`gatehouse: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
const { main } = await import('../dist/src/cli/index.js');
await main();
