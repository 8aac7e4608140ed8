import { readFileSync } from 'node:fs';

const README = new URL('../../README.md', import.meta.url);

/**
 * The text of the README's fenced code block marked `forward-auth:<name>` in its info string
 * (```nginx forward-auth:nginx — renderers read only the first word as the language). The proxy tests
 * run these blocks, so the configuration a reader copies is the one that was tested: exactly one block
 * per name, or the test fails.
 */
export function readmeBlock(name: string): string {
  const blocks = [
    ...readFileSync(README, 'utf8').matchAll(/^```[\w-]* +forward-auth:([\w-]+)\n([\s\S]*?)^```$/gm),
  ];
  const found = blocks.filter((block) => block[1] === name);
  if (found.length !== 1) {
    throw new Error(
      `README.md has ${found.length} blocks marked forward-auth:${name} (expected exactly one)`,
    );
  }
  return found[0]![2]!;
}

/**
 * `text` with each [from, to] replaced everywhere, in order. Every `from` must occur: a README edit that
 * drops or renames one of them fails the test instead of testing a configuration nobody reads.
 */
export function fillIn(text: string, replacements: ReadonlyArray<readonly [string, string]>): string {
  let filled = text;
  for (const [from, to] of replacements) {
    if (!filled.includes(from)) throw new Error(`README configuration no longer contains "${from}"`);
    filled = filled.split(from).join(to);
  }
  return filled;
}

/** KEY=VALUE lines (the README's environment block), comments and blank lines skipped. */
export function parseEnv(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (match) env[match[1]!] = match[2]!;
  }
  return env;
}
