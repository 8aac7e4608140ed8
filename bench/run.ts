// `npm run bench` (docs/contributing/benchmarks.md): the service and a bare Fastify route each run in a child process and
// are loaded in turn from this one, over loopback only; one table is printed and bench/results.json written.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createPasswordHasher, OWASP_ARGON2ID } from '../src/auth/passwords/passwords.ts';
import { loadConfig } from '../src/config.ts';
import { loginRatioByCpu, measureHashRate } from './hash-rate.ts';
import { LONGEST_WINDOW, type LoadCase, type Measured, measureAnswered, round, runLoad } from './load.ts';
import { MACHINE_CASES, machineCases } from './machines.ts';
import { OIDC_CASES, oidcCases, roundTrips } from './oidc.ts';
import { type BenchOptions, parseOptions, USAGE } from './options.ts';
import { ROOT, type ServerProcess, startFlags, startServer, statusMb } from './processes.ts';
import { formatSummary } from './profile-summary.ts';
import { type CaseName, caseRows, formatTable, machine, type Results } from './report.ts';
import { floodScenario, largeDatabaseScenario, type ScenarioContext } from './scenarios.ts';
import { issueToken, loginSession, removeUser, seedUser } from './seed.ts';

const SHORT: Record<string, CaseName> = {
  bare: 'bare',
  bearer: 'bearer GET /api/user',
  session: 'session GET /dashboard',
  forward: 'forward-auth GET /auth/request',
  login: 'POST /api/tokens',
  'oidc-bearer': 'oidc GET /api/user',
  userinfo: 'GET /oauth/userinfo',
  refresh: 'POST /oauth/token refresh',
  'bare-refresh': 'bare oidc-provider refresh',
  'client-credentials': 'POST /oauth/token client_credentials',
  'bare-client-credentials': 'bare oidc-provider client_credentials',
  introspect: 'POST /oauth/introspect',
  'client-bearer': 'client_credentials GET /api/user',
};

async function main(options: BenchOptions): Promise<void> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const scratch = mkdtempSync(join(tmpdir(), 'gatehouse-bench-'));
  const serviceEnv: Record<string, string> = {
    DATABASE_URL: process.env['DATABASE_URL'] || `sqlite:${join(scratch, 'bench.sqlite')}`,
    // Fixed, not random: a server database kept between runs holds OpenID signing keys sealed with it.
    APP_KEY: `base64:${Buffer.alloc(32, 7).toString('base64')}`,
    STORAGE_PATH: join(scratch, 'storage'),
    LOG_LEVEL: 'warn',
    MAIL_MAILER: 'log',
    // The general API limit, the per-IP auth budget and the login throttles (per e-mail+IP and per
    // account) would turn the load (one client address, one account) into 429s: off / relaxed. The hash
    // queue bound (HASH_QUEUE_MAX) stays as configured: the flood measures the service as it runs.
    API_RATE_LIMIT: '0',
    IP_AUTH_LIMIT: '0',
    LOGIN_MAX_ATTEMPTS: '1000000000',
    ACCOUNT_MAX_FAILURES: '1000000000',
    // --metrics: the per-request counting of GET /metrics is on (it is off without a token).
    ...(options.metrics ? { METRICS_TOKEN: randomBytes(24).toString('base64url') } : {}),
    // --auth-cache: the strict path (off) or the auth cache (notify), whatever the shell has set.
    AUTH_CACHE: options.authCache,
  };
  const config = loadConfig({ ...process.env, ...serviceEnv }, { cwd: ROOT });
  const hasher = createPasswordHasher(config.hashConcurrency);
  const user = await seedUser(config.database, hasher);
  const servers: ServerProcess[] = [];
  try {
    const bare = await startServer('bench/bare-server.ts', {});
    servers.push(bare);
    const nodeFlags = [
      ...startFlags(),
      ...(options.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${resolve(options.cpuProf)}`] : []),
    ];
    const service = await startServer('src/server.ts', serviceEnv, nodeFlags);
    servers.push(service);
    const token = await issueToken(service.url, user);
    const cookie = await loginSession(service.url, user);
    log(
      `service pid ${service.pid} (${config.database.dialect}, AUTH_CACHE=${config.authCache}), bare pid ${bare.pid}`,
    );

    const json = { 'content-type': 'application/json', accept: 'application/json' };
    const selected = (options.only ?? Object.keys(SHORT)).map((c) => SHORT[c]!);
    // The OpenID provider's cases (bench/oidc.ts), set up only when one of them runs.
    const oidc = selected.some((name) => (OIDC_CASES as readonly string[]).includes(name))
      ? await oidcCases(
          service,
          serviceEnv,
          cookie,
          options.connections,
          options.rounds,
          async (script, env) => {
            const started = await startServer(script, env);
            servers.push(started);
            return started;
          },
        )
      : null;
    const startExtra = async (script: string, env: Record<string, string>) => {
      const started = await startServer(script, env);
      servers.push(started);
      return started;
    };
    // Services as themselves (bench/machines.ts), likewise only when one of them runs.
    const machines = selected.some((name) => (MACHINE_CASES as readonly string[]).includes(name))
      ? await machineCases(service, serviceEnv, startExtra)
      : null;
    const cases: Partial<Record<CaseName, LoadCase>> = {
      ...oidc?.cases,
      ...machines,
      bare: { name: 'bare', url: `${bare.url}/api/user`, server: bare },
      'bearer GET /api/user': {
        name: 'bearer GET /api/user',
        url: `${service.url}/api/user`,
        headers: { authorization: `Bearer ${token}` },
        server: service,
      },
      'session GET /dashboard': {
        name: 'session GET /dashboard',
        url: `${service.url}/dashboard`,
        headers: { cookie },
        server: service,
      },
      // docs/integrations/forward-auth.md: what nginx asks before every request to the app it guards, with the browser's
      // session cookie (the proxy passes the Cookie header on); 200 with the user headers.
      'forward-auth GET /auth/request': {
        name: 'forward-auth GET /auth/request',
        url: `${service.url}/auth/request`,
        headers: { cookie },
        server: service,
      },
      'POST /api/tokens': {
        name: 'POST /api/tokens',
        server: service,
        url: `${service.url}/api/tokens`,
        method: 'POST',
        headers: json,
        body: JSON.stringify({ email: user.email, password: user.password, device_name: 'bench' }),
        settleMs: 3000,
        warmupRequests: 3000,
      },
    };
    const context: ScenarioContext = {
      connections: options.connections,
      duration: options.duration,
      warmup: options.warmup,
      async measure(load) {
        await load.prepare?.();
        if (options.warmup > 0) {
          await runLoad(load, {
            connections: options.connections,
            duration: options.warmup,
            workers: options.workers,
            amount: load.warmupRequests,
          });
          if (load.settleMs) await sleep(load.settleMs);
        }
        const measured = await measureAnswered(
          load,
          { connections: options.connections, duration: options.duration, workers: options.workers },
          log,
        );
        log(
          `  ${load.name}: ${measured.rps} req/s, p50 ${measured.p50_ms} ms, p99 ${measured.p99_ms} ms, ` +
            `server CPU ${measured.cpu_us_per_req ?? '?'} µs/request` +
            (measured.cpu_split_us_per_req?.niced
              ? ` (hashing threads ${measured.cpu_split_us_per_req.niced}, the rest ${measured.cpu_split_us_per_req.rest})`
              : '') +
            `, client CPU ${measured.client_cpu_us_per_req} µs/request; ` +
            `service RSS ${service.rssMb() ?? '?'} MiB, peak ${statusMb(service.pid, 'VmHWM') ?? '?'} MiB`,
        );
        if (measured.unexpected > 0) {
          throw new Error(`${load.name}: unexpected answers ${JSON.stringify(measured.statuses)}`);
        }
        if (measured.requests === 0)
          throw new Error(`${load.name}: no answer within ${options.duration * LONGEST_WINDOW} s`);
        return measured;
      },
    };

    const best = new Map<CaseName, Measured>();
    const all = new Map<CaseName, number[]>();
    for (let round = 1; round <= options.rounds; round++) {
      log(
        `round ${round} of ${options.rounds} (${options.connections} connections, ${options.duration} s per case)`,
      );
      for (const name of selected) {
        const measured = await context.measure(cases[name]!);
        all.set(name, [...(all.get(name) ?? []), measured.rps]);
        if ((best.get(name)?.rps ?? -1) < measured.rps) best.set(name, measured);
      }
    }
    const rssAfterCases = service.rssMb();

    if (options.cpuProf) {
      await service.stop();
      const dir = resolve(options.cpuProf);
      // One profile per thread (the hashing threads have their own); thread 0 is the event loop.
      const newest = readdirSync(dir)
        .filter((f) => new RegExp(`\\.${service.pid}\\.0\\.\\d+\\.cpuprofile$`).test(f))
        .at(-1);
      process.stdout.write(`${formatTable(caseRows(best), new Map())}\n\n`);
      if (newest) process.stdout.write(`${formatSummary(join(dir, newest))}\n`);
      return;
    }

    log('password hash rate…');
    const hashRate = await measureHashRate(config.hashConcurrency, Math.min(options.duration, 10));
    const hashPerSecond = hashRate.perSecond;
    const extra: Record<string, unknown> = {
      hash: {
        algorithm: 'argon2id',
        ...OWASP_ARGON2ID,
        concurrency: config.hashConcurrency,
        cpu_us_per_hash: hashRate.cpuUsPerHash,
      },
      connections: options.connections,
      duration_s: options.duration,
      rounds: options.rounds,
      metrics: options.metrics,
      auth_cache: config.authCache,
      rps_spread: Object.fromEntries([...all].map(([name, values]) => [name, values])),
      cpu_us_per_request: Object.fromEntries([...best].map(([name, m]) => [name, m.cpu_us_per_req])),
      // null when the login case was not run (--only without login)
      login_ratio_to_hash_rate: best.has('POST /api/tokens')
        ? round(best.get('POST /api/tokens')!.rps / hashPerSecond, 3)
        : null,
      // The same ratio from CPU time (a hash's, against a login's in the service and the load generator),
      // which other work on the machine does not move as it moves either rate.
      login_ratio_by_cpu: loginRatioByCpu(best.get('POST /api/tokens'), hashRate.cpuUsPerHash),
    };
    const issued = best.get('POST /oauth/token client_credentials');
    const bareIssued = best.get('bare oidc-provider client_credentials');
    if (issued && bareIssued) {
      extra['client_credentials_ratio_to_bare_provider'] = round(issued.rps / bareIssued.rps, 3);
    }
    if (oidc) {
      const refresh = best.get('POST /oauth/token refresh');
      const bareRefresh = best.get('bare oidc-provider refresh');
      extra['oidc_refresh_ratio_to_bare_provider'] =
        refresh && bareRefresh ? round(refresh.rps / bareRefresh.rps, 3) : null;
      log('OpenID authorization-code round trips…');
      extra['oidc_round_trip'] = await roundTrips(service, cookie, oidc.client, {
        duration: options.duration,
        concurrency: 10,
      });
    }
    if (options.flood) {
      log(`flood: ${options.floodConnections} concurrent wrong-password logins while measuring bearer…`);
      extra['flood'] = await floodScenario(
        context,
        service.url,
        user,
        cases['bearer GET /api/user']!,
        options.floodConnections,
        hashPerSecond,
      );
    }
    extra['rss_mb'] = {
      after_cases: rssAfterCases,
      after_all: service.rssMb(),
      peak: statusMb(service.pid, 'VmHWM'),
    };
    if (options.seedLarge) {
      extra['large_db'] = await largeDatabaseScenario(
        context,
        serviceEnv,
        await hasher.hash(randomBytes(12).toString('base64url')),
        {
          users: options.largeUsers,
          tokens: options.largeTokens,
          organizations: options.largeOrganizations,
          memberships: options.largeMemberships,
          rounds: options.rounds,
        },
        log,
      );
    }

    const results: Results = {
      machine: machine(config.database.dialect),
      cases: caseRows(best),
      hash_per_s: hashPerSecond,
      extra,
    };
    mkdirSync(dirname(resolve(options.out)), { recursive: true });
    writeFileSync(resolve(options.out), `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(`${report(results, all)}\n`);
  } finally {
    for (const server of servers.reverse()) await server.stop();
    // A server database outlives the run (the SQLite file is in the scratch folder): leave it as found.
    if (config.database.dialect !== 'sqlite') await removeUser(config.database, user.id);
    rmSync(scratch, { recursive: true, force: true });
  }
}

function report(results: Results, all: ReadonlyMap<CaseName, number[]>): string {
  const spread = new Map(
    [...all]
      .filter(([, values]) => values.length > 1)
      .map(([name, values]) => [name, `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`]),
  );
  const { machine: m, extra } = results;
  const hash = extra['hash'] as {
    memoryCost: number;
    timeCost: number;
    parallelism: number;
    concurrency: number;
    cpu_us_per_hash: number;
  };
  const lines = [
    `Gatehouse benchmark — ${m.cpus} × ${m.model}, ${m.memory_mb} MiB, Node ${m.node}, ${m.dialect}, AUTH_CACHE=${extra['auth_cache']}, load ${m.load_at_start} at start`,
    '',
    formatTable(results.cases, spread),
    '',
    `password hashes/s (argon2id m=${hash.memoryCost} t=${hash.timeCost} p=${hash.parallelism}, HASH_CONCURRENCY=${hash.concurrency}): ${results.hash_per_s}, CPU ${hash.cpu_us_per_hash} µs per hash`,
  ];
  if (extra['login_ratio_to_hash_rate'] !== null) {
    lines.push(
      `POST /api/tokens / hash rate: ${extra['login_ratio_to_hash_rate']} (by CPU time: ${extra['login_ratio_by_cpu']})`,
    );
  }
  if (typeof extra['oidc_refresh_ratio_to_bare_provider'] === 'number') {
    lines.push(
      `POST /oauth/token refresh / bare oidc-provider: ${extra['oidc_refresh_ratio_to_bare_provider']}`,
    );
  }
  if (typeof extra['client_credentials_ratio_to_bare_provider'] === 'number') {
    lines.push(
      `POST /oauth/token client_credentials / bare oidc-provider: ${extra['client_credentials_ratio_to_bare_provider']}`,
    );
  }
  const trip = extra['oidc_round_trip'] as Record<string, number | null> | undefined;
  if (trip) {
    lines.push(
      `authorization-code round trip (10 browsers): ${trip['flows_per_s']} flows/s, ${trip['requests_per_flow']} requests each, server CPU ${trip['cpu_ms_per_flow']} ms per flow`,
    );
  }
  const flood = extra['flood'] as Record<string, number> | undefined;
  if (flood) {
    lines.push(
      `flood (${flood['flood_connections']} concurrent wrong-password logins, ${flood['wrong_logins_per_s']}/s answered): bearer GET /api/user ${flood['bearer_rps']} req/s, p50 ${flood['bearer_p50_ms']} ms, p99 ${flood['bearer_p99_ms']} ms`,
    );
  }
  const rss = extra['rss_mb'] as Record<string, number | null>;
  lines.push(
    `service RSS: ${rss['after_cases']} MiB after the cases, ${rss['after_all']} MiB at the end, peak ${rss['peak']} MiB`,
  );
  const large = extra['large_db'] as Record<string, number> | undefined;
  if (large) {
    lines.push(
      `large database (${large['users']?.toLocaleString('en')} users, ${large['tokens']?.toLocaleString('en')} tokens, ${large['organizations']?.toLocaleString('en')} organizations, ${large['memberships']?.toLocaleString('en')} memberships, ${large['file_mb']} MiB, seeded in ${large['seed_seconds']} s): bearer ${large['large_rps']} req/s (p99 ${large['large_p99_ms']} ms) vs ${large['small_rps']} req/s small = ${large['ratio']}`,
    );
  }
  return lines.join('\n');
}

let options: BenchOptions | 'help';
try {
  options = parseOptions(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
  process.exit(2);
}
if (options === 'help') {
  process.stdout.write(`${USAGE}\n`);
} else {
  main(options).then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
