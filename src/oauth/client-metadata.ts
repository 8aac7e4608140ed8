import type { Client, ClientMetadata } from 'oidc-provider';
import type { OauthClient } from './clients.ts';
import { isNativeRedirect } from './redirect-uris.ts';

/**
 * A registered client as oidc-provider's client metadata (RFC 7591 names). A confidential client's
 * `client_secret` is the SHA-256 of its secret (provider-host.ts compares against it); only
 * client_secret_basic and client_secret_post can use it.
 */
export function clientMetadata(client: OauthClient): ClientMetadata {
  return {
    client_id: client.clientId,
    client_name: client.name,
    ...(client.secretHash === null
      ? { token_endpoint_auth_method: 'none' }
      : { client_secret: client.secretHash, token_endpoint_auth_method: 'client_secret_basic' }),
    // A native app's redirect URIs (loopback http, a private-use scheme) make a native client: its
    // loopback port may vary (RFC 8252 §7.3), and the library asks it for consent every time (§8.6).
    application_type: client.redirectUris.some(isNativeRedirect) ? 'native' : 'web',
    redirect_uris: [...client.redirectUris],
    post_logout_redirect_uris: [...client.postLogoutRedirectUris],
    grant_types: [...client.grantTypes],
    response_types: client.grantTypes.includes('authorization_code') ? ['code'] : [],
    scope: client.scope,
    ...(client.backchannelLogoutUri === null
      ? {}
      : { backchannel_logout_uri: client.backchannelLogoutUri, backchannel_logout_session_required: true }),
    gatehouse_trusted: client.trusted,
  };
}

/**
 * A resource server: a first-party service registered `--trusted --grant client_credentials` and no
 * other grant. It may introspect every access token (RFC 7662 §2.1 leaves who may to the server);
 * any other client learns about its own tokens only (docs/guides/oidc-provider.md "Introspection").
 */
export function isResourceServerClient(
  client: Pick<OauthClient, 'trusted' | 'public' | 'grantTypes'>,
): boolean {
  const grants = client.grantTypes;
  return client.trusted && !client.public && grants.length === 1 && grants[0] === 'client_credentials';
}

/** The same rule on the library's view of a client (clientMetadata above made it). */
export function isResourceServer(client: Client): boolean {
  return isResourceServerClient({
    trusted: client['gatehouse_trusted'] === true,
    public: client.tokenEndpointAuthMethod === 'none',
    grantTypes: client.grantTypes ?? [],
  });
}
