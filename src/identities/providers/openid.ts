import * as client from 'openid-client';
import type { OpenIdProviderConfig } from '../../config/login-providers.ts';
import type { UpstreamAttempt } from '../attempt.ts';
import { type UpstreamProfile, upstreamProfile } from '../profile.ts';
import { UpstreamFailure } from '../upstream-failure.ts';
import { PROVIDER_TIMEOUT_SECONDS, type UpstreamProvider, upstreamFailure } from './upstream-provider.ts';

/**
 * An OpenID provider (Google, Microsoft Entra ID, Keycloak, Authentik, any certified OP) through
 * openid-client, the certified relying-party library (docs/guides/login-providers.md). Its discovery
 * document is read before its button is shown; until it is, the provider is not ready and prepare()
 * tries again (the registry does so in the background).
 */
export class OpenIdProvider implements UpstreamProvider {
  readonly name: string;
  readonly label: string;
  readonly trustEmail: boolean;
  #configuration: client.Configuration | null = null;
  #discovering: Promise<boolean> | null = null;
  /** Why the last discovery failed (for the log), null once it succeeded. */
  lastError: string | null = null;

  constructor(private readonly config: OpenIdProviderConfig) {
    this.name = config.name;
    this.label = config.label;
    this.trustEmail = config.trustEmail;
  }

  get ready(): boolean {
    return this.#configuration !== null;
  }

  prepare(): Promise<boolean> {
    if (this.#configuration !== null) return Promise.resolve(true);
    this.#discovering ??= this.#discover().finally(() => {
      this.#discovering = null;
    });
    return this.#discovering;
  }

  async #discover(): Promise<boolean> {
    try {
      this.#configuration = await this.#discovery(client.ClientSecretBasic(this.config.clientSecret));
      // client_secret_basic is the default of OpenID Connect (Discovery §3); a provider that lists only
      // client_secret_post gets that instead.
      const methods = this.#configuration.serverMetadata().token_endpoint_auth_methods_supported;
      if (methods && !methods.includes('client_secret_basic') && methods.includes('client_secret_post'))
        this.#configuration = await this.#discovery(client.ClientSecretPost(this.config.clientSecret));
      this.lastError = null;
      return true;
    } catch (error) {
      this.lastError = upstreamFailure(error).detail;
      return false;
    }
  }

  #discovery(auth: client.ClientAuth): Promise<client.Configuration> {
    const issuer = new URL(this.config.issuer);
    // The ID token's signature is checked against the provider's JWKS even though it came straight
    // from the token endpoint over TLS (OpenID Connect Core §3.1.3.7 would allow trusting TLS alone).
    const execute = [client.enableNonRepudiationChecks];
    // Plain http only for a loopback issuer (config/login-providers.ts refuses any other).
    if (issuer.protocol === 'http:') execute.push(client.allowInsecureRequests);
    return client.discovery(issuer, this.config.clientId, undefined, auth, {
      execute,
      timeout: PROVIDER_TIMEOUT_SECONDS,
    });
  }

  async #ready(): Promise<client.Configuration> {
    if (!(await this.prepare()) || this.#configuration === null)
      throw new UpstreamFailure(
        'unavailable',
        `discovery of ${this.config.issuer} failed: ${this.lastError}`,
      );
    return this.#configuration;
  }

  async authorizationUrl(redirectUri: string, attempt: UpstreamAttempt): Promise<URL> {
    return client.buildAuthorizationUrl(await this.#ready(), {
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: this.config.scopes.join(' '),
      state: attempt.state,
      nonce: attempt.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(attempt.codeVerifier),
      code_challenge_method: 'S256',
    });
  }

  async complete(callbackUrl: URL, attempt: UpstreamAttempt): Promise<UpstreamProfile> {
    const configuration = await this.#ready();
    try {
      const tokens = await client.authorizationCodeGrant(configuration, callbackUrl, {
        expectedState: attempt.state,
        expectedNonce: attempt.nonce,
        pkceCodeVerifier: attempt.codeVerifier,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (claims === undefined) throw new UpstreamFailure('failed', 'no ID token');
      // Some providers put the address in userinfo only; it is asked for the same subject.
      const info: Record<string, unknown> =
        typeof claims['email'] === 'string' || configuration.serverMetadata().userinfo_endpoint === undefined
          ? claims
          : { ...(await client.fetchUserInfo(configuration, tokens.access_token, claims.sub)), ...claims };
      const profile = upstreamProfile(this.name, {
        subject: claims.sub,
        email: info['email'],
        emailVerified: info['email_verified'],
        name:
          info['name'] ?? joinNames(info['given_name'], info['family_name']) ?? info['preferred_username'],
      });
      if (profile === null) throw new UpstreamFailure('failed', 'the ID token names no usable subject');
      return profile;
    } catch (error) {
      throw upstreamFailure(error);
    }
  }
}

function joinNames(given: unknown, family: unknown): string | undefined {
  const parts = [given, family].filter((part): part is string => typeof part === 'string' && part !== '');
  return parts.length === 0 ? undefined : parts.join(' ');
}
