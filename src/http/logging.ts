import type { FastifyBaseLogger } from 'fastify';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildLoggerOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;
/** Paths that carry a secret (the reset token; the verification link's hash), and what stays of them. */
const SECRET_PATHS: readonly (readonly [RegExp, string])[] = [
  [/^\/reset-password\/.+/is, '/reset-password/[redacted]'],
  [/^\/email\/verify\/([^/]*)\/.+/is, '/email/verify/$1/[redacted]'],
];

/**
 * URLs are the one request part we log, and some carry secrets: the reset token in the path, the
 * e-mail, signature and token in query strings. They are replaced before anything is written.
 */
export function redactUrl(url: string): string {
  const [path = '', query] = url.split('?', 2);
  const safePath = redactPath(path);
  if (query === undefined) return safePath;
  const params = query
    .split('&')
    .map((pair) => {
      const name = pair.split('=', 1)[0] ?? '';
      return /^(lang|page|q|sort|user|verified)$/i.test(name) ? pair : `${name}=[redacted]`;
    })
    .join('&');
  return `${safePath}?${params}`;
}

/**
 * The router decodes a path before matching it, so `/%72eset-password/<token>` reaches the reset
 * page with a live token (docs/security.md): the path is compared decoded (ASCII escapes, to a fixed
 * point, so double encoding cannot hide it either) and, when secret-bearing, logged decoded with the
 * secret replaced. Other paths are logged as sent.
 */
function redactPath(path: string): string {
  let decoded = path;
  for (let round = 0; round < 3 && decoded.includes('%'); round++) {
    const next = decoded.replace(/%([0-7][0-9a-f])/gi, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
    if (next === decoded) break;
    decoded = next;
  }
  for (const [pattern, replacement] of SECRET_PATHS) {
    if (pattern.test(decoded)) return decoded.replace(pattern, replacement);
  }
  return path;
}

export function loggerOptions(level: string) {
  return {
    level,
    // Request and response serialisers list what may be logged; headers (cookies, Authorization) never are.
    serializers: {
      req: (request: { method: string; url: string; ip: string }) => ({
        method: request.method,
        url: redactUrl(request.url),
        ip: request.ip,
      }),
      res: (reply: { statusCode: number }) => ({ statusCode: reply.statusCode }),
    },
    redact: {
      paths: [
        'password',
        '*.password',
        'token',
        '*.token',
        'authorization',
        '*.authorization',
        'cookie',
        '*.cookie',
      ],
      censor: '[redacted]',
    },
  };
}

type LogMethod = 'info' | 'error' | 'debug' | 'fatal' | 'warn' | 'trace' | 'silent';

/**
 * Fastify gives every request a child logger bound to its id. pino's child() copies bindings,
 * serialisers and redaction (~1.2 µs): measurable on a request that takes 20 µs and, at the default
 * level, usually logs nothing. This stand-in makes the real child on the first log call. Kept because
 * the benchmark needs it: without it bearer GET /api/user spent ~1.3 µs more server CPU per request.
 */
class LazyChildLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  get #logger(): FastifyBaseLogger {
    this.#child ??= this.parent.child(this.bindings, this.options);
    return this.#child;
  }

  get level(): string {
    return this.#child?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.#logger.level = level;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#logger.child(bindings, options);
  }

  info(...args: unknown[]): void {
    this.#log('info', args);
  }
  error(...args: unknown[]): void {
    this.#log('error', args);
  }
  debug(...args: unknown[]): void {
    this.#log('debug', args);
  }
  fatal(...args: unknown[]): void {
    this.#log('fatal', args);
  }
  warn(...args: unknown[]): void {
    this.#log('warn', args);
  }
  trace(...args: unknown[]): void {
    this.#log('trace', args);
  }
  silent(): void {}

  #log(method: LogMethod, args: unknown[]): void {
    (this.#logger[method] as (...a: unknown[]) => void)(...args);
  }
}

export function lazyChildLoggerFactory(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  // The methods take what pino's overloaded LogFn takes and pass it on unchanged.
  return new LazyChildLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}
