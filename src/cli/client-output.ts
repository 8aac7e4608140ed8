import type { Translate } from '../i18n/i18n.ts';
import type { ClientProblem, OauthClient } from '../oauth/clients.ts';

export { clientJson } from '../oauth/client-json.ts';

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
