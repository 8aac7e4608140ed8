import { build } from 'esbuild';

/**
 * Bundles a browser script (and the npm packages it imports: axios, React, react-sanctum) into one
 * file for Chromium, with esbuild (pinned in package.json). Production React, no source maps.
 */
export async function bundleForBrowser(entry: string): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'chrome120',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}
