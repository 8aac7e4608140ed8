import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './paths.ts';

const DOCS = join(ROOT, 'docs');

/**
 * The text of the fenced code block marked `forward-auth:<name>` (or `tested:<name>`) in its info string in `page` (a path
 * under docs/, e.g. `integrations/nginx.md`; ```nginx forward-auth:nginx — renderers read only the first
 * word as the language). The proxy tests run these blocks, so the configuration a reader copies is the
 * one that was tested: exactly one block of that name on the page, or the test fails.
 */
export function docsBlock(page: string, name: string): string {
  const blocks = [
    ...readFileSync(join(DOCS, page), 'utf8').matchAll(
      /^```[\w-]* +(?:forward-auth|tested):([\w-]+)\n([\s\S]*?)^```$/gm,
    ),
  ];
  const found = blocks.filter((block) => block[1] === name);
  if (found.length !== 1) {
    throw new Error(
      `docs/${page} has ${found.length} blocks marked forward-auth:${name} (expected exactly one)`,
    );
  }
  return found[0]![2]!;
}

/**
 * `text` with each [from, to] replaced everywhere, in order. Every `from` must occur: a docs edit that
 * drops or renames one of them fails the test instead of testing a configuration nobody reads.
 */
export function fillIn(text: string, replacements: ReadonlyArray<readonly [string, string]>): string {
  let filled = text;
  for (const [from, to] of replacements) {
    if (!filled.includes(from)) throw new Error(`the docs' configuration no longer contains "${from}"`);
    filled = filled.split(from).join(to);
  }
  return filled;
}

/** KEY=VALUE lines (the docs' environment block), comments and blank lines skipped. */
export function parseEnv(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (match) env[match[1]!] = match[2]!;
  }
  return env;
}
