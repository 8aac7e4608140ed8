import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Configuration } from 'oidc-provider';

/** Who signs in at the stand-in next (what its login screen would have asked for). */
export interface UpstreamAccount {
  readonly sub: string;
  readonly email?: string;
  readonly email_verified?: boolean;
  readonly name?: string;
}

export interface UpstreamClient {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly redirectUri: string;
}

export interface UpstreamOidc {
  /** http://127.0.0.1:<port> — the issuer identifier. */
  readonly issuer: string;
  readonly provider: Provider;
  /** Sets the account the next authorization signs in as (and which consents to everything asked). */
  signInAs(account: UpstreamAccount): void;
  /** The next authorization is refused by the person (`error=access_denied`). */
  denyNext(): void;
  /** Authorization requests seen, newest last (their query parameters). */
  readonly requests: URLSearchParams[];
  /** How many requests reached the token endpoint. */
  tokenRequests(): number;
  stop(): Promise<void>;
  /** Stops answering (connections refused) until start() again on the same port. */
  pause(): Promise<void>;
  resume(): Promise<void>;
}

/**
 * A real OpenID provider — panva's oidc-provider, the certified OP library — on a free loopback port,
 * run by the test itself (docs/guides/login-providers.md tests): discovery, JWKS, authorization with
 * PKCE and RFC 9207 `iss`, the token endpoint with client_secret_basic, signed ID tokens, userinfo.
 * Only the person is simulated: the interaction (login and consent screens) signs in as `signInAs`.
 */
export async function startUpstreamOidc(clients: readonly UpstreamClient[]): Promise<UpstreamOidc> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;
  const accounts = new Map<string, UpstreamAccount>();
  let next: UpstreamAccount = { sub: 'nobody' };
  let deny = false;
  const requests: URLSearchParams[] = [];
  let tokenCalls = 0;

  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const configuration: Configuration = {
    clients: clients.map((client) => ({
      client_id: client.clientId,
      client_secret: client.clientSecret,
      redirect_uris: [client.redirectUri],
      grant_types: ['authorization_code'],
      response_types: ['code'],
    })),
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test-key', use: 'sig', alg: 'RS256' }] },
    cookies: { keys: ['upstream-test-cookie-key'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      Grant: 600,
      IdToken: 600,
      Interaction: 600,
      Session: 600,
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, id) => {
      const account = accounts.get(id);
      if (account === undefined) return undefined;
      return { accountId: id, claims: () => ({ ...account }) };
    },
  };
  const provider = new Provider(issuer, configuration);
  provider.on('server_error', (_ctx, error) => {
    process.stderr.write(`upstream oidc-provider server_error: ${error}\n`);
  });
  const callback = provider.callback();

  server.on('request', (req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    if (url.pathname === '/auth') requests.push(url.searchParams);
    if (url.pathname === '/token') tokenCalls++;
    if (!url.pathname.startsWith('/interaction/')) return callback(req, res);
    // The login and consent screens: the person signs in as `next` and allows what was asked.
    void (async () => {
      try {
        const details = await provider.interactionDetails(req, res);
        if (deny) {
          deny = false;
          await provider.interactionFinished(
            req,
            res,
            { error: 'access_denied' },
            { mergeWithLastSubmission: false },
          );
          return;
        }
        const account = next;
        accounts.set(account.sub, account);
        const grant = new provider.Grant({
          accountId: account.sub,
          clientId: String(details.params['client_id']),
        });
        grant.addOIDCScope(String(details.params['scope']));
        const grantId = await grant.save();
        await provider.interactionFinished(
          req,
          res,
          { login: { accountId: account.sub }, consent: { grantId } },
          { mergeWithLastSubmission: false },
        );
      } catch (error) {
        res.statusCode = 500;
        res.end(String(error));
      }
    })();
  });

  let listening = true;
  return {
    issuer,
    provider,
    requests,
    tokenRequests: () => tokenCalls,
    signInAs(account) {
      next = account;
    },
    denyNext() {
      deny = true;
    },
    async stop() {
      if (!listening) return;
      listening = false;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    async pause() {
      listening = false;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    async resume() {
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
      listening = true;
    },
  };
}

/**
 * The person's browser at the provider: follows redirects from an authorization URL (keeping the
 * provider's cookies) until one leads back to `appUrl`, and returns that callback URL unopened.
 */
export async function throughProvider(authorizationUrl: string, appUrl: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = new URL(authorizationUrl);
  for (let hops = 0; hops < 20; hops++) {
    const response = await fetch(url, {
      redirect: 'manual',
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      jar.set(pair!.slice(0, at).trim(), pair!.slice(at + 1).trim());
    }
    const location = response.headers.get('location');
    if (location === null)
      throw new Error(
        `the provider answered ${response.status} at ${url.pathname}: ${(await response.text()).slice(0, 300)}`,
      );
    url = new URL(location, url);
    if (url.href.startsWith(appUrl)) return url;
  }
  throw new Error('too many redirects at the provider');
}
