import type { KoaContextWithOIDC, default as Provider } from 'oidc-provider';
import { sha256Matches } from '../lib/crypto.ts';
import { addAccessTokenHash } from './id-token-hashes.ts';
import type { KeyRing } from './key-ring.ts';
import type { OidcLibrary } from './library.ts';
import { type ProviderPolicy, providerConfiguration } from './provider-config.ts';
import { checkResourceBeforeConsume } from './resource-before-consume.ts';

/** What the HTTP layer and the tests hear from the provider. */
export interface ProviderEvents {
  /** An error the library answered with server_error: logged, never shown. */
  onServerError(ctx: KoaContextWithOIDC, error: Error): void;
  /** Extra middleware (Koa), run around every provider request: headers, hooks. */
  readonly middleware: readonly ((ctx: KoaContextWithOIDC, next: () => Promise<void>) => Promise<void>)[];
}

/**
 * The oidc-provider instance for the current signing keys. The library takes its keys when it is
 * built, so a new key set (a rotation, seen by the key ring) means a new instance; requests already
 * in flight finish on the old one. Everything else it holds lives in the database.
 */
export class ProviderHost {
  #built: { version: string; provider: Provider; callback: ReturnType<Provider['callback']> } | null = null;

  constructor(
    private readonly library: OidcLibrary,
    private readonly keyRing: KeyRing,
    private readonly policy: ProviderPolicy,
    private readonly events: ProviderEvents,
  ) {}

  /** The provider and its request handler for the current keys. */
  async current(): Promise<{ provider: Provider; callback: ReturnType<Provider['callback']> }> {
    const keys = await this.keyRing.current();
    if (this.#built?.version !== keys.version) {
      const provider = this.#build(keys.privateJwks);
      this.#built = { version: keys.version, provider, callback: provider.callback() };
    }
    return this.#built;
  }

  #build(keys: Parameters<typeof providerConfiguration>[2]): Provider {
    const { Provider } = this.library;
    const provider = new Provider(
      this.policy.oidc.issuer,
      providerConfiguration(this.library, this.policy, keys),
    );
    // Client secrets are stored as SHA-256 digests (oauth/clients.ts): the presented secret is hashed
    // and compared in constant time; the library's own comparison would need the secret itself.
    provider.Client.prototype.compareClientSecret = function compareClientSecret(actual: string) {
      return typeof this.clientSecret === 'string' && sha256Matches(actual, this.clientSecret);
    };
    // `sid` in every ID token (docs/guides/oidc-provider.md "Tokens"), not only for clients with
    // back-channel logout: a relying party matches a later logout to the session it signed in with.
    provider.Client.prototype.includeSid = () => true;
    // A post-logout URI is followed only when registered exactly (RP-Initiated Logout §3). The library
    // lets a native client's loopback URI change port there too, as RFC 8252 §7.3 allows for the
    // redirect_uri only: another program on the machine could listen on any other port.
    provider.Client.prototype.postLogoutRedirectUriAllowed = function exactPostLogoutUri(value: string) {
      return this.postLogoutRedirectUris?.includes(value) === true;
    };
    addAccessTokenHash(provider);
    checkResourceBeforeConsume(this.library, provider, this.policy.audience);
    // The forwarded headers are rewritten by the HTTP layer from what Fastify decided (TRUST_PROXY):
    // the library reads the client's address and scheme from them and nothing else.
    provider.proxy = true;
    provider.on('server_error', (ctx: KoaContextWithOIDC, error: Error) =>
      this.events.onServerError(ctx, error),
    );
    for (const middleware of this.events.middleware) provider.use(middleware);
    return provider;
  }
}
