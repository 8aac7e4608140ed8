import autocannon, { type RequestParams } from 'autocannon';

/** One kind of request to load a server with. */
export interface LoadCase {
  readonly name: string;
  /** Full URL (loopback only). */
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** The status every answer must have; anything else means the case is broken, not slow. */
  readonly expectStatus?: number;
  /** Authorization header values picked at random per request (many tokens of a large database). */
  readonly rotateAuthorization?: readonly string[];
  /**
   * Requests that depend on earlier answers (a rotated refresh token): each request's body is built
   * just before it is sent, after the previous answer on its connection was handed to `answered`.
   */
  readonly chain?: {
    readonly body: () => string;
    readonly answered: (status: number, body: string) => void;
  };
  /**
   * Milliseconds to wait between the warm-up and the measured load: the logins a warm-up leaves queued
   * for the hashing threads would otherwise fill HASH_QUEUE_MAX with the measured ones and get 503s.
   */
  readonly settleMs?: number;
  /**
   * The warm-up is this many answers instead of `--warmup` seconds. V8 optimises a request's code after
   * it has run some thousands of times: the other cases get that many requests in a second, a login
   * (one argon2id hash each) gets a few hundred, so a 2 s warm-up measured the login path mostly in
   * V8's first tiers, as a service in its first minute runs it (docs/contributing/benchmarks.md).
   */
  readonly warmupRequests?: number;
  /** Runs before each warm-up (the bare provider's refresh tokens are made right before they are used). */
  readonly prepare?: () => Promise<void>;
  /** The server under load: its CPU time per answer is measured too (robust on a busy machine). */
  readonly server?: {
    cpuMs(): number | null;
    /** The same split by thread priority (bench/thread-cpu.ts): the niced hashing threads and the rest. */
    threadCpuMs?(): { niced: number; rest: number } | null;
  };
}

export interface LoadOptions {
  readonly connections: number;
  /** Seconds. */
  readonly duration: number;
  /** autocannon worker threads (connections are split among them); default: load from this thread. */
  readonly workers?: number;
  /** Stop after this many answers instead of after `duration`. */
  readonly amount?: number;
}

export interface Measured {
  readonly name: string;
  /** Answers with the expected status per second. */
  readonly rps: number;
  /** Latency percentiles of those answers, milliseconds (autocannon's histogram is 1 ms-grained). */
  readonly p50_ms: number;
  readonly p99_ms: number;
  readonly requests: number;
  /** Answers with another status, connection errors and timeouts. */
  readonly unexpected: number;
  readonly statuses: Readonly<Record<string, number>>;
  /** Server CPU time (all threads) per expected answer, µs; null without `server` or /proc. */
  readonly cpu_us_per_req: number | null;
  /** Of that, the niced (hashing) threads' and the other threads' share, µs; null without /proc. */
  readonly cpu_split_us_per_req: { readonly niced: number; readonly rest: number } | null;
  /** CPU time of this process (the load generator, when it runs on this thread) per expected answer, µs. */
  readonly client_cpu_us_per_req: number;
}

/** Starts a load and returns a handle: `result` settles when `duration` is over. */
export function startLoad(load: LoadCase, options: LoadOptions): { result: Promise<Measured> } {
  const { rotateAuthorization: tokens, chain } = load;
  const cpuBefore = load.server?.cpuMs() ?? null;
  const threadsBefore = load.server?.threadCpuMs?.() ?? null;
  const clientBefore = process.cpuUsage();
  const instance = autocannon({
    url: load.url,
    connections: options.connections,
    duration: options.duration,
    ...(options.amount === undefined ? {} : { amount: options.amount }),
    // Worker threads cannot run the rotating setupRequest function (autocannon wants a file path).
    ...(options.workers && options.workers > 1 && !tokens && !chain ? { workers: options.workers } : {}),
    method: load.method ?? 'GET',
    headers: load.headers ?? {},
    ...(load.body === undefined ? {} : { body: load.body }),
    timeout: 30,
    ...(tokens && tokens.length > 0
      ? {
          requests: [
            {
              setupRequest: (request: RequestParams) => ({
                ...request,
                headers: {
                  ...request.headers,
                  authorization: tokens[Math.floor(Math.random() * tokens.length)]!,
                },
              }),
            },
          ],
        }
      : {}),
    ...(chain
      ? {
          requests: [
            {
              setupRequest: (request: RequestParams) => ({ ...request, body: chain.body() }),
              onResponse: (status: number, body: string) => chain.answered(status, body),
            },
          ],
        }
      : {}),
  });
  const result = Promise.resolve(instance).then((raw) => {
    const statuses = Object.fromEntries(
      Object.entries(raw.statusCodeStats).map(([status, stat]) => [status, stat.count]),
    );
    const expected = statuses[String(load.expectStatus ?? 200)] ?? 0;
    const answered = Object.values(statuses).reduce((sum, n) => sum + n, 0);
    const cpuAfter = load.server?.cpuMs() ?? null;
    const threadsAfter = load.server?.threadCpuMs?.() ?? null;
    const client = process.cpuUsage(clientBefore);
    const perAnswer = (ms: number) => round((ms * 1000) / expected, 1);
    return {
      name: load.name,
      rps: round(expected / raw.duration, 1),
      p50_ms: raw.latency.p50,
      p99_ms: raw.latency.p99,
      requests: expected,
      unexpected: answered - expected + raw.errors + raw.timeouts,
      statuses,
      cpu_us_per_req:
        cpuBefore === null || cpuAfter === null || expected === 0 ? null : perAnswer(cpuAfter - cpuBefore),
      cpu_split_us_per_req:
        threadsBefore === null || threadsAfter === null || expected === 0
          ? null
          : {
              niced: perAnswer(threadsAfter.niced - threadsBefore.niced),
              rest: perAnswer(threadsAfter.rest - threadsBefore.rest),
            },
      client_cpu_us_per_req: expected === 0 ? 0 : round((client.user + client.system) / expected, 1),
    } satisfies Measured;
  });
  return { result };
}

export function runLoad(load: LoadCase, options: LoadOptions): Promise<Measured> {
  return startLoad(load, options).result;
}

/** measureAnswered's longest window, as a multiple of the duration asked for. */
export const LONGEST_WINDOW = 4;

/**
 * `runLoad`, again for twice as long (up to LONGEST_WINDOW times the duration) while a window brought no answer
 * back: such a window measures nothing (a cold server on a busy machine, as in the CI's one-second smoke
 * run while other suites hold both cores), and its rate of 0 would make a ratio of Infinity. The result
 * may still have no answer; the caller decides what that means.
 */
export async function measureAnswered(
  load: LoadCase,
  options: LoadOptions,
  log: (line: string) => void,
): Promise<Measured> {
  for (let duration = options.duration; ; duration *= 2) {
    const measured = await runLoad(load, { ...options, duration });
    if (measured.requests > 0 || measured.unexpected > 0 || duration >= options.duration * LONGEST_WINDOW)
      return measured;
    log(`  ${load.name}: no answer within ${duration} s, measuring again for ${duration * 2} s`);
    await behindTheQueue(load);
  }
}

/**
 * One request made as the case makes them, answered (whatever its status). autocannon ends a window by
 * closing its connections, but the server still works through the requests it had accepted — logins
 * waiting for a hashing thread, in order (the semaphore serves the longest waiter first) — so this one
 * is answered once those are. A window measured again at once stacked its logins on the last window's:
 * the CI's smoke run had both windows' 50 waiting at once, past HASH_QUEUE_MAX (64), and got 503s.
 */
async function behindTheQueue(load: LoadCase): Promise<void> {
  const headers = { ...load.headers };
  const tokens = load.rotateAuthorization;
  if (tokens && tokens.length > 0) headers['authorization'] = tokens[0]!;
  const response = await fetch(load.url, {
    method: load.method ?? 'GET',
    headers,
    body: load.chain ? load.chain.body() : load.body,
    signal: AbortSignal.timeout(120_000),
  });
  const body = await response.text();
  load.chain?.answered(response.status, body);
}

export function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
