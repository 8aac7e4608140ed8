import * as client from 'openid-client';
import type { GithubProviderConfig } from '../../config/login-providers.ts';
import type { UpstreamAttempt } from '../attempt.ts';
import { type UpstreamProfile, upstreamProfile } from '../profile.ts';
import { UpstreamFailure } from '../upstream-failure.ts';
import { PROVIDER_TIMEOUT_SECONDS, type UpstreamProvider, upstreamFailure } from './upstream-provider.ts';

/** GitHub's documented REST API version (docs.github.com, "API Versions"). */
const API_VERSION = '2022-11-28';

/**
 * GitHub (or GitHub Enterprise Server at GITHUB_URL) through its OAuth web flow and REST API
 * (docs/guides/login-providers.md). GitHub is not an OpenID provider: there is no ID token, so who
 * signed in is asked of the API with the access token — `GET /user` for the stable numeric id (the
 * subject; the login name can be changed and then taken by someone else) and `GET /user/emails` for
 * the primary address and whether GitHub verified it. The code exchange (state, PKCE S256, the `iss`
 * parameter if one is sent) is openid-client's, over GitHub's documented endpoints.
 */
export class GithubProvider implements UpstreamProvider {
  readonly name: string;
  readonly label: string;
  readonly trustEmail: boolean;
  /** Nothing to discover: GitHub's endpoints are fixed. */
  readonly ready = true;
  readonly #configuration: client.Configuration;

  constructor(private readonly config: GithubProviderConfig) {
    this.name = config.name;
    this.label = config.label;
    this.trustEmail = config.trustEmail;
    this.#configuration = new client.Configuration(
      {
        issuer: config.webUrl,
        authorization_endpoint: `${config.webUrl}/login/oauth/authorize`,
        token_endpoint: `${config.webUrl}/login/oauth/access_token`,
      },
      config.clientId,
      config.clientSecret,
      // GitHub documents client_id and client_secret as parameters of the token request.
      client.ClientSecretPost(config.clientSecret),
    );
    this.#configuration.timeout = PROVIDER_TIMEOUT_SECONDS;
    // Plain http only on loopback (config/login-providers.ts refuses any other).
    if (new URL(config.webUrl).protocol === 'http:') client.allowInsecureRequests(this.#configuration);
  }

  prepare(): Promise<boolean> {
    return Promise.resolve(true);
  }

  async authorizationUrl(redirectUri: string, attempt: UpstreamAttempt): Promise<URL> {
    return client.buildAuthorizationUrl(this.#configuration, {
      redirect_uri: redirectUri,
      scope: this.config.scopes.join(' '),
      state: attempt.state,
      code_challenge: await client.calculatePKCECodeChallenge(attempt.codeVerifier),
      code_challenge_method: 'S256',
      // The account chooser instead of silently reusing the browser's GitHub session.
      prompt: 'select_account',
    });
  }

  async complete(callbackUrl: URL, attempt: UpstreamAttempt): Promise<UpstreamProfile> {
    try {
      const tokens = await client.authorizationCodeGrant(this.#configuration, callbackUrl, {
        expectedState: attempt.state,
        pkceCodeVerifier: attempt.codeVerifier,
      });
      const user = await this.#get(tokens.access_token, '/user');
      const emails = await this.#get(tokens.access_token, '/user/emails').catch((error: unknown) => {
        // Without user:email (a narrowed NAME_SCOPES) there is no list: the public address, unverified.
        if (error instanceof UpstreamFailure && error.reason === 'failed') return [];
        throw error;
      });
      const chosen = primaryAddress(emails) ?? {
        email: (user as Record<string, unknown>)['email'],
        verified: false,
      };
      const profile = upstreamProfile(this.name, {
        subject: (user as Record<string, unknown>)['id'],
        email: chosen.email,
        emailVerified: chosen.verified,
        name: (user as Record<string, unknown>)['name'] || (user as Record<string, unknown>)['login'],
      });
      if (profile === null) throw new UpstreamFailure('failed', 'GET /user gave no id');
      return profile;
    } catch (error) {
      throw upstreamFailure(error);
    }
  }

  async #get(accessToken: string, path: string): Promise<unknown> {
    const headers = new Headers({
      accept: 'application/vnd.github+json',
      'x-github-api-version': API_VERSION,
      // GitHub refuses API requests without a User-Agent.
      'user-agent': 'Gatehouse',
    });
    const response = await client.fetchProtectedResource(
      this.#configuration,
      accessToken,
      new URL(`${this.config.apiUrl}${path}`),
      'GET',
      undefined,
      headers,
    );
    if (response.status >= 500) throw new UpstreamFailure('unavailable', `GET ${path}: ${response.status}`);
    if (response.status !== 200) throw new UpstreamFailure('failed', `GET ${path}: ${response.status}`);
    return response.json();
  }
}

/** The primary address with GitHub's word on it, from GET /user/emails (null when none is primary). */
function primaryAddress(emails: unknown): { email: unknown; verified: boolean } | null {
  if (!Array.isArray(emails)) return null;
  const primary = emails.find(
    (entry): entry is Record<string, unknown> =>
      typeof entry === 'object' && entry !== null && (entry as Record<string, unknown>)['primary'] === true,
  );
  return primary === undefined ? null : { email: primary['email'], verified: primary['verified'] === true };
}
