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
