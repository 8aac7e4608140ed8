import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

/**
 * A cookie jar over app.inject(), so HTTP tests can act like a browser: cookies persist between
 * requests and the CSRF token is scraped from the last form page.
 */
export class Browser {
  readonly cookies = new Map<string, string>();
  csrf: string | null = null;

  constructor(
    readonly app: FastifyInstance,
    readonly headers: Record<string, string> = {},
  ) {}

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  absorb(response: LightMyRequestResponse): LightMyRequestResponse {
    for (const cookie of response.cookies) {
      const expired =
        cookie.maxAge === 0 ||
        (cookie.expires !== undefined && new Date(cookie.expires).getTime() <= Date.now());
      if (expired || cookie.value === '') this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
    const token = /name="_token" value="([^"]+)"/.exec(response.body)?.[1];
    if (token) this.csrf = token;
    return response;
  }

  async get(url: string, headers: Record<string, string> = {}) {
    return this.absorb(
      await this.app.inject({
        method: 'GET',
        url,
        headers: { ...this.headers, cookie: this.cookieHeader(), ...headers },
      }),
    );
  }

  /** A JSON request as an SPA or fetch() would send it: X-CSRF-TOKEN header, Accept: application/json. */
  async postJson(url: string, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    return this.absorb(
      await this.app.inject({
        method: 'POST',
        url,
        payload: body,
        headers: {
          ...this.headers,
          accept: 'application/json',
          cookie: this.cookieHeader(),
          ...(this.csrf ? { 'x-csrf-token': this.csrf } : {}),
          ...headers,
        },
      }),
    );
  }

  /** Submits a form (urlencoded) with the current CSRF token unless `_token` is given. */
  async post(url: string, form: Record<string, string> = {}, headers: Record<string, string> = {}) {
    const body = new URLSearchParams({ ...(this.csrf ? { _token: this.csrf } : {}), ...form }).toString();
    return this.absorb(
      await this.app.inject({
        method: 'POST',
        url,
        payload: body,
        headers: {
          ...this.headers,
          'content-type': 'application/x-www-form-urlencoded',
          cookie: this.cookieHeader(),
          ...headers,
        },
      }),
    );
  }
}

/**
 * A browser signed into the web guard through the login form (optionally remembered), holding the
 * CSRF token of its new session (read from /dashboard), ready for further form posts.
 */
export async function webLogin(
  app: FastifyInstance,
  user: { readonly email: string; readonly password: string },
  options: { readonly remember?: boolean; readonly headers?: Record<string, string> } = {},
): Promise<Browser> {
  const browser = new Browser(app, options.headers);
  await browser.get('/login');
  const login = await browser.post('/login', {
    email: user.email,
    password: user.password,
    ...(options.remember ? { remember: '1' } : {}),
  });
  if (login.statusCode !== 302) throw new Error(`login failed: ${login.statusCode} ${login.body}`);
  await browser.get('/dashboard');
  return browser;
}
