import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';

export interface VirtualHostResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

interface StoredCookie {
  readonly name: string;
  readonly value: string;
  /** `Domain=` (the host and its subdomains), or null: the setting host only. */
  readonly domain: string | null;
  readonly host: string;
}

/**
 * A browser-like HTTP client for names that resolve nowhere (app.gatehouse.test, …): every request
 * goes to 127.0.0.1:`port` with the URL's host in the Host header, as `curl --resolve` would send
 * it. Cookies are kept per domain as a browser keeps them (a `Domain=gatehouse.test` cookie goes to
 * every subdomain, a host-only one to its host), redirects are not followed, and the CSRF token of the
 * last form seen is sent with the next form.
 */
export class VirtualHostClient {
  readonly #cookies = new Map<string, StoredCookie>();
  csrf: string | null = null;

  constructor(private readonly port: number) {}

  /** The cookies this client would send to `url`'s host, `name=value; …`. */
  cookieHeaderFor(url: string): string {
    const host = new URL(url).hostname;
    return [...this.#cookies.values()]
      .filter((c) =>
        c.domain === null ? c.host === host : host === c.domain || host.endsWith(`.${c.domain}`),
      )
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  async request(
    method: string,
    url: string,
    options: { headers?: Record<string, string>; form?: Record<string, string>; body?: string } = {},
  ): Promise<VirtualHostResponse> {
    const target = new URL(url);
    const headers: Record<string, string> = { host: target.host, ...options.headers };
    const cookie = this.cookieHeaderFor(url);
    if (cookie) headers['cookie'] = cookie;
    let body = options.body;
    if (options.form) {
      body = new URLSearchParams({ ...(this.csrf ? { _token: this.csrf } : {}), ...options.form }).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const response = await new Promise<VirtualHostResponse>((resolve, reject) => {
      const outgoing = httpRequest(
        { host: '127.0.0.1', port: this.port, method, path: target.pathname + target.search, headers },
        (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.on('end', () =>
            resolve({
              status: incoming.statusCode ?? 0,
              headers: incoming.headers,
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          incoming.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
    for (const line of response.headers['set-cookie'] ?? []) this.#absorb(line, target.hostname);
    const token = /name="_token" value="([^"]+)"/.exec(response.body)?.[1];
    if (token) this.csrf = token;
    return response;
  }

  get(url: string, headers: Record<string, string> = {}) {
    return this.request('GET', url, { headers });
  }

  post(url: string, form: Record<string, string>, headers: Record<string, string> = {}) {
    return this.request('POST', url, { form, headers });
  }

  #absorb(line: string, host: string): void {
    const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    const attribute = (key: string) =>
      attributes.find((a) => a.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
    const domain = attribute('domain')?.replace(/^\./, '').toLowerCase() ?? null;
    const key = `${name}@${domain ?? host}`;
    const maxAge = attribute('max-age');
    if (value === '' || (maxAge !== undefined && Number(maxAge) <= 0)) this.#cookies.delete(key);
    else this.#cookies.set(key, { name, value, domain, host });
  }
}
