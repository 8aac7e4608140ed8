// Summarises a V8 .cpuprofile (node --cpu-prof): where the samples landed, by function and by file.
// Usage: node dist/bench/profile-summary.js <file.cpuprofile> [top]   (after npm run build)
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT } from './processes.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  readonly label: string;
  readonly ms: number;
  readonly share: number;
}

/** Self time per function and per file (or package), largest first. */
export function summariseProfile(path: string): { total: number; functions: SelfTime[]; files: SelfTime[] } {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const functions = new Map<string, number>();
  const files = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const micros = profile.timeDeltas[i] ?? 0;
    if (!node || micros <= 0) return;
    total += micros;
    const { functionName, url, lineNumber } = node.callFrame;
    const file = where(url);
    const name = `${functionName || '(anonymous)'} ${file}${url ? `:${lineNumber + 1}` : ''}`;
    functions.set(name, (functions.get(name) ?? 0) + micros);
    files.set(file, (files.get(file) ?? 0) + micros);
  });
  const ranked = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .map(([label, micros]) => ({ label, ms: micros / 1000, share: micros / total }));
  return { total: total / 1000, functions: ranked(functions), files: ranked(files) };
}

/** `src/auth/x.ts`, `node_modules/<package>`, `node:internal/…` or the V8 pseudo-frame name. */
function where(url: string): string {
  if (url === '') return '(native)';
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1];
  if (pkg) return `node_modules/${pkg}`;
  return path.startsWith('/') ? relative(ROOT, path) : path;
}

export function formatSummary(path: string, top = 25): string {
  const { total, functions, files } = summariseProfile(path);
  const row = (entry: SelfTime) =>
    `${entry.ms.toFixed(0).padStart(8)} ms ${(entry.share * 100).toFixed(1).padStart(5)} %  ${entry.label}`;
  return [
    `${relative(ROOT, path)}: ${total.toFixed(0)} ms sampled`,
    'self time by function:',
    ...functions.slice(0, top).map(row),
    'self time by file / package:',
    ...files.slice(0, Math.ceil(top / 2)).map(row),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('Usage: node dist/bench/profile-summary.js <file.cpuprofile> [top]\n');
    process.exit(2);
  }
  process.stdout.write(`${formatSummary(file, top ? Number(top) : 25)}\n`);
}
