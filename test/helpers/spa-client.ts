import type { FastifyInstance } from 'fastify';
import { Browser } from './browser-session.ts';

/**
 * A single-page app over app.inject(), as axios with `withCredentials` + `withXSRFToken` behaves:
 * every request carries the SPA's Origin and the cookie jar, and state-changing ones copy the
 * XSRF-TOKEN cookie into the X-XSRF-TOKEN header (unless `xsrf: false` or another value is given).
 */
export class SpaClient extends Browser {
  constructor(
    app: FastifyInstance,
    readonly origin: string | null,
  ) {
    super(app, origin ? { origin } : {});
  }

  get xsrfToken(): string | undefined {
    return this.cookies.get('XSRF-TOKEN');
  }

  async csrfCookie() {
    return this.get('/sanctum/csrf-cookie');
  }

  async json(
    method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH',
    url: string,
    body?: unknown,
    options: { xsrf?: string | false; headers?: Record<string, string> } = {},
  ) {
    const xsrf = options.xsrf === undefined ? this.xsrfToken : options.xsrf;
    const headers: Record<string, string> = {
      ...this.headers,
      accept: 'application/json',
      cookie: this.cookieHeader(),
      ...(method !== 'GET' && xsrf ? { 'x-xsrf-token': xsrf } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    };
    return this.absorb(
      await this.app.inject({
        method,
        url,
        headers,
        ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      }),
    );
  }

  /** csrf-cookie, then a JSON login: what an SPA does before its first API call. */
  async login(email: string, password: string) {
    await this.csrfCookie();
    const response = await this.json('POST', '/login', { email, password });
    if (response.statusCode !== 204)
      throw new Error(`SPA login failed: ${response.statusCode} ${response.body}`);
    return response;
  }
}
