/**
 * URLs are the one request part we log, and some carry secrets: the reset token in the path, the
 * e-mail, signature and token in query strings. They are replaced before anything is written.
 */
export function redactUrl(url: string): string {
  const [path = '', query] = url.split('?', 2);
  const safePath = path.replace(/^\/reset-password\/[^/]+/, '/reset-password/[redacted]');
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
