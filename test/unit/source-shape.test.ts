import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../helpers/paths.ts';

/**
 * The shape of src/ that docs/contributing/architecture.md promises: small files named by role (at most
 * 300 lines each) and no import cycle at run time (a cycle works only while every import is used
 * inside functions, and breaks the day one is used at load). Type-only imports are erased by the
 * compiler and do not count.
 */
const SRC = join(ROOT, 'src');
const MAX_LINES = 300;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The relative modules a file imports or re-exports at run time (not `import type`, not all-`type` lists). */
export function runtimeImports(file: string, text: string): string[] {
  const found: string[] = [];
  const statement =
    /^(?:import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"](\.[^'"]+)['"]|^import\s+['"](\.[^'"]+)['"]/gm;
  for (const match of text.matchAll(statement)) {
    const [, typeOnly, clause = '', from, bare] = match;
    const target = from ?? bare;
    if (target === undefined || typeOnly !== undefined) continue;
    const names = /^\{([^}]*)\}$/s.exec(clause.trim());
    if (names) {
      const specifiers = names[1]!
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      if (specifiers.length > 0 && specifiers.every((s) => s.startsWith('type '))) continue;
    }
    found.push(resolve(dirname(file), target));
  }
  return found;
}

/** Strongly connected components of more than one file (or a file importing itself): Tarjan. */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    order.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!order.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, order.get(next)!));
    }
    if (low.get(node) === order.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component);
    }
  };
  for (const node of graph.keys()) if (!order.has(node)) visit(node);
  return found;
}

const files = sources(SRC);

test(`no file in src/ is longer than ${MAX_LINES} lines`, () => {
  const long = files
    .map((file) => ({ file: relative(ROOT, file), lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
    .filter(({ lines }) => lines > MAX_LINES);
  assert.deepEqual(long, []);
});

test('no import cycle in src/ at run time', () => {
  const graph = new Map(files.map((file) => [file, runtimeImports(file, readFileSync(file, 'utf8'))]));
  const found = cycles(graph).map((component) => component.map((file) => relative(ROOT, file)).sort());
  assert.deepEqual(found, []);
});

test('views take a view context: no file under src/http/**/views/ imports Fastify', () => {
  const views = files.filter((file) => /\/http\/(?:.+\/)?views\//.test(file));
  assert.ok(views.length > 20, `views found: ${views.length}`);
  const fastify = views
    .filter((file) => /from ['"]fastify['"]/.test(readFileSync(file, 'utf8')))
    .map((file) => relative(ROOT, file));
  assert.deepEqual(fastify, []);
});

test('packages loaded on demand are imported at run time by lib/packages-on-demand.ts alone', () => {
  // docs/contributing/architecture.md: imported at the top of a module, each start would load them.
  const onDemand =
    /^import\s+(?!type\s)[^'";]*from\s*['"](pg|mysql2(?:\/promise)?|ioredis|qrcode|@simplewebauthn\/server)['"]/m;
  const importers = files
    .filter((file) => onDemand.test(readFileSync(file, 'utf8')))
    .map((file) => relative(ROOT, file));
  assert.deepEqual(importers, []);
  assert.ok(onDemand.test("import { Redis } from 'ioredis';"), 'the pattern sees a value import');
  assert.ok(!onDemand.test("import type { Redis } from 'ioredis';"), 'and lets a type import be');
});

test('the import reader sees what the cycle check needs (a check that cannot see imports proves nothing)', () => {
  const text = [
    "import { a } from './a.ts';",
    "import type { B } from './b.ts';",
    "import { type C, type D } from './c.ts';",
    "import { type E, f } from './e.ts';",
    "export { g } from './g.ts';",
    "import './side-effect.ts';",
    "import fs from 'node:fs';",
  ].join('\n');
  const seen = runtimeImports('/x/y.ts', text).map((path) => relative('/x', path));
  assert.deepEqual(seen, ['a.ts', 'e.ts', 'g.ts', 'side-effect.ts']);
});

test('the cycle finder finds a cycle of two and of one, and nothing in a chain', () => {
  const graph = new Map([
    ['a', ['b']],
    ['b', ['a', 'c']],
    ['c', ['d']],
    ['d', []],
    ['e', ['e']],
  ]);
  assert.deepEqual(
    cycles(graph).map((component) => component.sort()),
    [['a', 'b'], ['e']],
  );
});
