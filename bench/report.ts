import { cpus, loadavg, totalmem } from 'node:os';
import { type Measured, round } from './load.ts';
import { MACHINE_CASES } from './machines.ts';
import { OIDC_CASES } from './oidc.ts';

export const CASE_NAMES = [
  'bearer GET /api/user',
  'session GET /dashboard',
  'POST /api/tokens',
  'forward-auth GET /auth/request',
  ...OIDC_CASES,
  ...MACHINE_CASES,
  'bare',
] as const;
export type CaseName = (typeof CASE_NAMES)[number];

/** One row of `cases` in bench/results.json (docs/contributing/benchmarks.md, docs/integrations/forward-auth.md): exactly these five keys. */
export interface CaseRow {
  name: CaseName;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  ratio_to_bare: number;
}

export interface Machine {
  cpus: number;
  model: string;
  memory_mb: number;
  node: string;
  dialect: string;
  /** 1-minute load average when the run started: other work on the machine skews the numbers. */
  load_at_start: number;
}

/** docs/contributing/benchmarks.md's three keys, plus `extra` for the scenarios of issue 7 (flood, RSS, large database). */
export interface Results {
  machine: Machine;
  cases: CaseRow[];
  hash_per_s: number;
  extra: Record<string, unknown>;
}

export function machine(dialect: string): Machine {
  const cores = cpus();
  return {
    cpus: cores.length,
    model: cores[0]?.model.trim() ?? 'unknown',
    memory_mb: Math.round(totalmem() / 2 ** 20),
    node: process.version,
    dialect,
    load_at_start: round(loadavg()[0] ?? 0, 2),
  };
}

export function caseRows(measured: ReadonlyMap<CaseName, Measured>): CaseRow[] {
  const bare = measured.get('bare')?.rps ?? 0;
  return CASE_NAMES.filter((name) => measured.has(name)).map((name) => {
    const m = measured.get(name)!;
    return {
      name,
      rps: m.rps,
      p50_ms: m.p50_ms,
      p99_ms: m.p99_ms,
      ratio_to_bare: bare > 0 ? round(m.rps / bare, 3) : 0,
    };
  });
}

/** The one table `npm run bench` prints. */
export function formatTable(rows: readonly CaseRow[], spread: ReadonlyMap<string, string>): string {
  const header = [
    'case',
    'req/s',
    'p50 ms',
    'p99 ms',
    'ratio to bare',
    spread.size > 0 ? 'req/s spread' : '',
  ];
  const body = rows.map((row) => [
    row.name,
    row.rps.toFixed(1),
    String(row.p50_ms),
    String(row.p99_ms),
    row.ratio_to_bare.toFixed(3),
    spread.get(row.name) ?? '',
  ]);
  const widths = header.map((_, i) => Math.max(...[header, ...body].map((cells) => cells[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}
