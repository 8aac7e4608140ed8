import { parseArgs } from 'node:util';

export interface BenchOptions {
  /** Seconds of measured load per case. */
  readonly duration: number;
  /** Seconds of unmeasured load before each case (JIT, caches, the first last_used_at write). */
  readonly warmup: number;
  readonly connections: number;
  /** autocannon worker threads per load (1: autocannon runs on this process's event loop). */
  readonly workers: number;
  /** Measure the four cases this many times; the table shows each case's best round and the spread. */
  readonly rounds: number;
  readonly out: string;
  readonly flood: boolean;
  readonly floodConnections: number;
  readonly seedLarge: boolean;
  readonly largeUsers: number;
  readonly largeTokens: number;
  readonly largeOrganizations: number;
  readonly largeMemberships: number;
  /** Run the service under --cpu-prof, writing profiles here (results.json is then not written). */
  readonly cpuProf: string | null;
  /** Only these cases, in this order (comparing two, or profiling one hot path at a time). */
  readonly only: readonly string[] | null;
  /** Run the service with METRICS_TOKEN set (its per-request counting on), to measure what it costs. */
  readonly metrics: boolean;
  /** AUTH_CACHE for the service (server databases): off = the strict path, notify = the auth cache. */
  readonly authCache: 'off' | 'notify';
}

/** The --only names of the cases (bench/run.ts maps them to the case names of results.json). */
export const CASE_KEYS: readonly string[] = [
  'bearer',
  'session',
  'login',
  'forward',
  'oidc-bearer',
  'userinfo',
  'refresh',
  'bare-refresh',
  'client-credentials',
  'bare-client-credentials',
  'introspect',
  'client-bearer',
  'bare',
];

export const USAGE = `Usage: npm run bench -- [options]

  --duration <s>         measured seconds per case (default 10)
  --warmup <s>           unmeasured seconds before each case (default 2; the login case: 3,000 logins)
  --connections <n>      concurrent connections (default 50)
  --workers <n>          autocannon worker threads per load (default 1)
  --rounds <n>           measure the cases n times, report the best and the spread (default 1)
  --out <file>           results file (default bench/results.json)
  --no-flood             skip the wrong-password flood scenario
  --flood-connections <n>  concurrent wrong-password logins in the flood (default 200)
  --seed-large           also seed a SQLite database with 1,000,000 users and 5,000,000 tokens and
                         compare bearer GET /api/user on it with the small database
  --large-users <n>      users for --seed-large (default 1000000)
  --large-tokens <n>     tokens for --seed-large (default 5000000)
  --large-orgs <n>       organizations for --seed-large (default 10000)
  --large-memberships <n>  memberships for --seed-large (default 100000; each user the load signs in
                         as belongs to three organizations in both databases)
  --cpu-prof <dir>       run the service with --cpu-prof into <dir> and summarise the profile
  --only <cases>         only these cases, a comma list of bearer,session,login,forward,oidc-bearer,
                         userinfo,refresh,bare-refresh,client-credentials,bare-client-credentials,
                         introspect,client-bearer,bare (e.g.
                         --only bare,forward --no-flood; with --cpu-prof: profile one hot path)
  --metrics              run the service with METRICS_TOKEN set (Prometheus metrics on)
  --auth-cache <mode>    AUTH_CACHE of the service: off (the strict path, default) or notify (token,
                         session and user lookups kept in memory, dropped on change; PostgreSQL, or
                         MySQL/MariaDB with REDIS_URL)

Environment: DATABASE_URL=postgres://… or mysql://… benchmarks PostgreSQL or MySQL/MariaDB (default:
a temporary SQLite file);
HASH_CONCURRENCY and REDIS_URL are passed to the service.`;

export function parseOptions(argv: readonly string[]): BenchOptions | 'help' {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '2' },
      connections: { type: 'string', default: '50' },
      workers: { type: 'string', default: '1' },
      rounds: { type: 'string', default: '1' },
      out: { type: 'string', default: 'bench/results.json' },
      'no-flood': { type: 'boolean', default: false },
      'flood-connections': { type: 'string', default: '200' },
      'seed-large': { type: 'boolean', default: false },
      'large-users': { type: 'string', default: '1000000' },
      'large-tokens': { type: 'string', default: '5000000' },
      'large-orgs': { type: 'string', default: '10000' },
      'large-memberships': { type: 'string', default: '100000' },
      'cpu-prof': { type: 'string' },
      only: { type: 'string' },
      metrics: { type: 'boolean', default: false },
      'auth-cache': { type: 'string', default: 'off' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) return 'help';
  const only = values.only?.split(',').map((c) => c.trim()) ?? null;
  const unknown = only?.find((c) => !CASE_KEYS.includes(c));
  if (unknown !== undefined) throw new Error(`--only: unknown case "${unknown}"`);
  return {
    duration: positive('duration', values.duration),
    warmup: positive('warmup', values.warmup, true),
    connections: positive('connections', values.connections),
    workers: positive('workers', values.workers),
    rounds: positive('rounds', values.rounds),
    out: values.out,
    flood: !values['no-flood'],
    floodConnections: positive('flood-connections', values['flood-connections']),
    seedLarge: values['seed-large'],
    largeUsers: positive('large-users', values['large-users']),
    largeTokens: positive('large-tokens', values['large-tokens']),
    largeOrganizations: positive('large-orgs', values['large-orgs']),
    largeMemberships: positive('large-memberships', values['large-memberships']),
    cpuProf: values['cpu-prof'] ?? null,
    only,
    metrics: values.metrics,
    authCache: authCache(values['auth-cache']),
  };
}

function authCache(raw: string): 'off' | 'notify' {
  if (raw !== 'off' && raw !== 'notify') throw new Error(`--auth-cache must be off or notify (got "${raw}")`);
  return raw;
}

function positive(name: string, raw: string, zeroAllowed = false): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (!zeroAllowed && value === 0)) {
    throw new Error(`--${name} must be a positive number (got "${raw}")`);
  }
  return value;
}
