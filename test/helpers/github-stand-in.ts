import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GithubAccount {
  readonly id: number;
  readonly login: string;
  readonly name?: string | null;
  /** GET /user/emails: the person's addresses as GitHub lists them. */
  readonly emails: readonly { email: string; primary: boolean; verified: boolean }[];
}

export interface GithubStandIn {
  /** GITHUB_URL: http://127.0.0.1:<port> (the API at /api/v3, as GitHub Enterprise Server). */
  readonly url: string;
  signInAs(account: GithubAccount): void;
  denyNext(): void;
  /** Authorization requests seen (their query parameters), newest last. */
  readonly requests: URLSearchParams[];
  /** Token requests seen (their form bodies), newest last: a code sent here that GitHub never issued shows. */
  readonly tokenRequests: URLSearchParams[];
  stop(): Promise<void>;
}

interface Grant {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly challenge: string | null;
  readonly account: GithubAccount;
}

/**
 * GitHub as its documentation describes the OAuth web flow and the REST API, on a loopback port, for the
 * parts a sign-in uses (docs.github.com: "Authorizing OAuth apps", "REST API endpoints for users" and
 * "… for emails"): GET /login/oauth/authorize (with PKCE S256), POST /login/oauth/access_token — which
 * answers errors with status 200 and an `error` field, as GitHub does — and GET /api/v3/user,
 * /api/v3/user/emails with the token.
 */
export async function startGithubStandIn(client: {
  clientId: string;
  clientSecret: string;
}): Promise<GithubStandIn> {
  const codes = new Map<string, Grant>();
  const tokens = new Map<string, GithubAccount>();
  const requests: URLSearchParams[] = [];
  const tokenRequests: URLSearchParams[] = [];
  let next: GithubAccount = { id: 1, login: 'octocat', emails: [] };
  let deny = false;

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  };
  const redirect = (res: ServerResponse, to: string) => {
    res.writeHead(302, { location: to });
    res.end();
  };

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => json(res, 500, { message: String(error) }));
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://github.test');
    if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') {
      const q = url.searchParams;
      requests.push(q);
      const redirectUri = q.get('redirect_uri') ?? '';
      const back = new URL(redirectUri);
      if (q.get('client_id') !== client.clientId) return json(res, 404, { message: 'Not Found' });
      const state = q.get('state');
      if (deny) {
        deny = false;
        back.searchParams.set('error', 'access_denied');
        back.searchParams.set('error_description', 'The user has denied your application access.');
        if (state !== null) back.searchParams.set('state', state);
        return redirect(res, back.href);
      }
      const method = q.get('code_challenge_method');
      if (q.get('code_challenge') !== null && method !== 'S256')
        return json(res, 400, { message: 'bad method' });
      const code = randomBytes(10).toString('hex');
      codes.set(code, {
        clientId: client.clientId,
        redirectUri,
        challenge: q.get('code_challenge'),
        account: next,
      });
      back.searchParams.set('code', code);
      if (state !== null) back.searchParams.set('state', state);
      return redirect(res, back.href);
    }
    if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
      const form = new URLSearchParams(await body(req));
      tokenRequests.push(form);
      const grant = codes.get(form.get('code') ?? '');
      const error = (code: string) => json(res, 200, { error: code, error_description: code });
      if (form.get('client_id') !== client.clientId || form.get('client_secret') !== client.clientSecret)
        return error('incorrect_client_credentials');
      if (grant === undefined) return error('bad_verification_code');
      codes.delete(form.get('code')!);
      if (form.get('redirect_uri') !== null && form.get('redirect_uri') !== grant.redirectUri)
        return error('redirect_uri_mismatch');
      if (grant.challenge !== null) {
        const verifier = form.get('code_verifier') ?? '';
        const expected = createHash('sha256').update(verifier).digest('base64url');
        if (expected !== grant.challenge) return error('bad_verification_code');
      }
      const token = `gho_${randomBytes(18).toString('hex')}`;
      tokens.set(token, grant.account);
      return json(res, 200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
    }
    const account = tokens.get((req.headers.authorization ?? '').replace(/^(Bearer|token) /i, ''));
    if (req.method === 'GET' && url.pathname.startsWith('/api/v3/')) {
      if (account === undefined) return json(res, 401, { message: 'Requires authentication' });
      if (url.pathname === '/api/v3/user') {
        const primary = account.emails.find((e) => e.primary);
        return json(res, 200, {
          id: account.id,
          login: account.login,
          name: account.name ?? null,
          email: primary?.email ?? null,
        });
      }
      if (url.pathname === '/api/v3/user/emails')
        return json(
          res,
          200,
          account.emails.map((e) => ({ ...e, visibility: e.primary ? 'public' : null })),
        );
    }
    return json(res, 404, { message: 'Not Found' });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    tokenRequests,
    signInAs(account) {
      next = account;
    },
    denyNext() {
      deny = true;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      data += chunk;
    });
    req.on('end', () => resolve(data));
    req.on('error', reject);
  });
}
