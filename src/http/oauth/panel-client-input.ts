import type { Translate } from '../../i18n/i18n.ts';
import type { Errors } from '../../lib/validation.ts';
import type { ClientChanges, ClientInput, ClientProblem } from '../../oauth/clients.ts';

/**
 * The panel's client forms (and their JSON twins) read into the domain's input, shape only: every rule
 * about names, URIs, grants and scopes is the one the CLI meets (oauth/client-rules.ts,
 * docs/guides/oidc-provider.md "Clients"). A list comes as one URI a line (a textarea) or as a JSON
 * array; anything that is not text becomes an empty value, which the rules then refuse by name.
 */
export function clientInput(body: Readonly<Record<string, unknown>>): ClientInput {
  const scope = text(body['scope']).trim();
  return {
    name: text(body['name']),
    redirectUris: list(body['redirect_uris']),
    postLogoutRedirectUris: list(body['post_logout_redirect_uris']),
    backchannelLogoutUri: optional(body['backchannel_logout_uri']),
    grantTypes: values(body['grant_types']),
    scope: scope === '' ? null : scope,
    public: body['client_type'] === 'public' || body['public'] === true,
    trusted: flag(body['trusted']),
  };
}

/** The edit form: name and URIs (grant types, type and scope are fixed at registration). */
export function clientChanges(body: Readonly<Record<string, unknown>>): ClientChanges {
  return {
    name: text(body['name']),
    redirectUris: list(body['redirect_uris']),
    postLogoutRedirectUris: list(body['post_logout_redirect_uris']),
    backchannelLogoutUri: optional(body['backchannel_logout_uri']),
  };
}

/** Each problem as a message at its field, in the admin's language. */
export function problemErrors(t: Translate, problems: readonly ClientProblem[]): Errors {
  const errors: Record<string, string[]> = {};
  for (const problem of problems) {
    const message = t(`oauth.client_problems.${problem.problem}`, {
      field: t(`oauth.panel.fields.${problem.field}`),
      value: 'value' in problem ? problem.value : '',
    });
    errors[problem.field] = [...(errors[problem.field] ?? []), message];
  }
  return errors;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function optional(value: unknown): string | null {
  const trimmed = text(value).trim();
  return trimmed === '' ? null : trimmed;
}

function flag(value: unknown): boolean {
  return value === true || value === '1' || value === 'on' || value === 'true';
}

/** A textarea's lines, or a JSON array's strings (a non-string item becomes "", which is refused). */
function list(value: unknown): string[] {
  if (Array.isArray(value)) return value.map((item) => (typeof item === 'string' ? item.trim() : ''));
  return text(value)
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
}

/** Checkboxes of one name: absent, one value, or several. */
function values(value: unknown): string[] {
  if (Array.isArray(value)) return value.map((item) => (typeof item === 'string' ? item : ''));
  return typeof value === 'string' && value !== '' ? [value] : [];
}
