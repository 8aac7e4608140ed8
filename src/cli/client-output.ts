import type { Translate } from '../i18n/i18n.ts';
import type { ClientProblem, OauthClient } from '../oauth/clients.ts';

/** A client in the `--json` shape of every `clients:*` command (snake_case, never the secret's hash). */
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

/** A client for a person: one field a line. */
export function clientText(client: OauthClient): string {
  const list = (values: readonly string[]) => (values.length === 0 ? '-' : values.join(' '));
  return [
    `client_id:                 ${client.clientId}`,
    `name:                      ${client.name}`,
    `type:                      ${client.public ? 'public (no secret, PKCE only)' : 'confidential'}${client.trusted ? ', trusted (no consent screen)' : ''}`,
    `redirect_uris:             ${list(client.redirectUris)}`,
    `post_logout_redirect_uris: ${list(client.postLogoutRedirectUris)}`,
    `backchannel_logout_uri:    ${client.backchannelLogoutUri ?? '-'}`,
    `grant_types:               ${list(client.grantTypes)}`,
    `scope:                     ${client.scope}`,
  ].join('\n');
}

/** The problems of a refused registration, in one line (the CLI reports failures on one line). */
export function problemsLine(t: Translate, problems: readonly ClientProblem[]): string {
  return problems
    .map((problem) =>
      t(`oauth.client_problems.${problem.problem}`, {
        field: problem.field,
        value: 'value' in problem ? problem.value : '',
      }),
    )
    .join(' ');
}
