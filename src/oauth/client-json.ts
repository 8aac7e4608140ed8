import type { OauthClient } from './client-records.ts';

/**
 * A client in the `--json` shape of every `clients:*` command and of the panel's JSON answers
 * (docs/reference/cli.md; snake_case, never the secret's hash).
 */
export function clientJson(client: OauthClient, secret?: string | null) {
  return {
    client_id: client.clientId,
    ...(secret === undefined ? {} : { client_secret: secret }),
    name: client.name,
    public: client.public,
    trusted: client.trusted,
    redirect_uris: client.redirectUris,
    post_logout_redirect_uris: client.postLogoutRedirectUris,
    backchannel_logout_uri: client.backchannelLogoutUri,
    grant_types: client.grantTypes,
    scope: client.scope,
    created_at: new Date(client.createdAt).toISOString(),
    updated_at: new Date(client.updatedAt).toISOString(),
  };
}
