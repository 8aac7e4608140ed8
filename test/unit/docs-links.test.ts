import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../helpers/paths.ts';

/**
 * The README stays a front page (at most 10 KB, the two-command quick start first), and no relative
 * link in README.md or docs/ leads nowhere: a moved or renamed page, or a renamed heading that another
 * page links to by its anchor, fails here with the file and the link.
 */

const root = ROOT;
const README_LIMIT_BYTES = 10 * 1024;

const QUICK_START = [
  'npm install && npm start     # serves on http://localhost:3000 (SQLite in storage/, mail to storage/mail)',
  'npm install && npm test      # passes',
];

function markdownFiles(): string[] {
  const files = [join(root, 'README.md')];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir).sort()) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith('.md')) files.push(path);
    }
  };
  walk(join(root, 'docs'));
  return files;
}

/** The text outside fenced code blocks and inline code spans, where links are links. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutCode = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const match of withoutCode.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = match[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Relative link targets of a page: inline links and images, and reference definitions. */
function relativeLinks(markdown: string): string[] {
  const text = prose(markdown);
  const targets = [
    ...[...text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!),
    ...[...text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map((m) => m[1]!),
  ];
  return targets.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

function brokenLinks(files: readonly string[]): string[] {
  const broken: string[] = [];
  for (const file of files) {
    const markdown = readFileSync(file, 'utf8');
    for (const link of relativeLinks(markdown)) {
      const [path = '', anchor] = link.split('#', 2);
      const target = path === '' ? file : resolve(dirname(file), decodeURI(path));
      const where = `${relative(root, file)}: ${link}`;
      if (!existsSync(target)) {
        broken.push(`${where} (no such file)`);
        continue;
      }
      if (anchor !== undefined && anchor !== '') {
        if (!target.endsWith('.md') || statSync(target).isDirectory()) {
          broken.push(`${where} (an anchor into something that is not a page)`);
        } else if (!anchorsOf(readFileSync(target, 'utf8')).has(decodeURIComponent(anchor))) {
          broken.push(`${where} (no heading with that anchor)`);
        }
      }
    }
  }
  return broken;
}

test('README.md is at most 10 KB and starts with the two-command quick start', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const bytes = Buffer.byteLength(readme);
  assert.ok(bytes <= README_LIMIT_BYTES, `README.md is ${bytes} bytes (at most ${README_LIMIT_BYTES})`);
  const lines = readme.split('\n');
  assert.match(lines[0]!, /^# Gatehouse\s*$/, 'the first line is the title');
  const first = lines.slice(1).findIndex((line) => line.trim() !== '') + 1;
  assert.match(lines[first]!, /^```/, 'the first thing after the title is the quick-start code block');
  assert.deepEqual(lines.slice(first + 1, first + 1 + QUICK_START.length), QUICK_START);
  assert.match(lines[first + 1 + QUICK_START.length]!, /^```\s*$/, 'the block holds the two commands only');
});

test('every relative link in README.md and docs/ points at an existing file and heading', () => {
  const files = markdownFiles();
  assert.ok(files.length > 30, `found only ${files.length} pages`);
  assert.deepEqual(brokenLinks(files), []);
});

test('the link check sees missing files and anchors, and ignores code and absolute URLs', () => {
  const links = relativeLinks(
    '[a](b.md) [b](https://example.com) `[c](nowhere.md)`\n```\n[d](nowhere.md)\n```\n[e]: b.md#nope',
  );
  assert.deepEqual(links, ['b.md', 'b.md#nope']);
  const anchors = anchorsOf(
    '# Tell Gatehouse about the proxy (`TRUST_PROXY`)\n## Sessions, cookies\n## Sessions, cookies\n```\n# not a heading\n```',
  );
  assert.deepEqual(
    [...anchors],
    ['tell-gatehouse-about-the-proxy-trust_proxy', 'sessions-cookies', 'sessions-cookies-1'],
  );
  const folder = mkdtempSync(join(tmpdir(), 'gatehouse-docs-links-'));
  try {
    writeFileSync(join(folder, 'b.md'), '# B\n\n## A heading\n');
    writeFileSync(
      join(folder, 'a.md'),
      '[ok](b.md) [ok](b.md#a-heading) [self](#top) [gone](nowhere.md) [anchor](b.md#no-such-heading)\n\n# Top\n',
    );
    const broken = brokenLinks([join(folder, 'a.md')]);
    assert.equal(broken.length, 2, broken.join('\n'));
    assert.match(broken[0]!, /nowhere\.md \(no such file\)/);
    assert.match(broken[1]!, /b\.md#no-such-heading \(no heading with that anchor\)/);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
