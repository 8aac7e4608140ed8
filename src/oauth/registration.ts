import type { AuditContext } from '../audit/audit.ts';
import type { ClientProblem } from './client-rules.ts';
import type { Clients } from './clients.ts';

/** RFC 7591 §3.2.2's error codes: a redirect URI we refuse, or anything else about the metadata. */
export type RegistrationError = 'invalid_redirect_uri' | 'invalid_client_metadata';

export type RegistrationResult =
  | { readonly ok: true; readonly client: Record<string, unknown> }
  | { readonly ok: false; readonly error: RegistrationError; readonly description: string };

/** What a self-registered client may do: sign people in (code flow or device flow), refresh. */
const PUBLIC_GRANTS = new Set([
  'authorization_code',
  'refresh_token',
  'urn:ietf:params:oauth:grant-type:device_code',
]);
const DEFAULT_NAME = 'Unnamed application';

/**
 * Dynamic client registration (RFC 7591; docs/guides/oidc-provider.md "Dynamic registration"):
 * public clients only — a client registering itself has nowhere safe to keep a secret — never
 * trusted, checked by the same rules as `clients:create` (client-rules.ts) and registered through
 * the same use case, so it is audited as `oauth.client.created` like any other.
 */
export async function registerPublicClient(
  clients: Clients,
  metadata: unknown,
  audit: AuditContext,
): Promise<RegistrationResult> {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    return refused('invalid_client_metadata', 'the body must be a JSON object of client metadata');
  }
  const m = metadata as Record<string, unknown>;
  // Left out, the method is client_secret_basic (RFC 7591 §2): a request for a confidential client,
  // refused like any other. Registering it as public would answer with something else than asked for.
  if (m['token_endpoint_auth_method'] !== 'none') {
    return refused(
      'invalid_client_metadata',
      'only public clients may register: send token_endpoint_auth_method: "none"',
    );
  }
  // Left out, none: a device-flow client redirects nowhere (RFC 8628); the code flow's need for one is
  // the client rules' (redirect_uris: required), as for clients:create.
  const redirectUris = stringList(m['redirect_uris'] ?? []);
  // Where RP-initiated logout may send the person back (OIDC RP-Initiated Logout §3.1), by the same rules
  // as clients:create. A back-channel logout URI is not taken from a self-registering client: Gatehouse
  // would POST to whatever address an anonymous request named (server-side request forgery).
  const postLogoutRedirectUris = stringList(m['post_logout_redirect_uris'] ?? []);
  const grantTypes = stringList(m['grant_types'] ?? ['authorization_code']);
  const responseTypes = stringList(m['response_types'] ?? ['code']);
  if (redirectUris === null) return refused('invalid_redirect_uri', 'redirect_uris must be a list of URIs');
  if (postLogoutRedirectUris === null) {
    return refused('invalid_client_metadata', 'post_logout_redirect_uris must be a list of URIs');
  }
  if (grantTypes === null || grantTypes.some((grant) => !PUBLIC_GRANTS.has(grant))) {
    return refused('invalid_client_metadata', `grant_types: only ${[...PUBLIC_GRANTS].join(', ')}`);
  }
  if (responseTypes === null || responseTypes.some((type) => type !== 'code')) {
    return refused('invalid_client_metadata', 'response_types: only code');
  }
  const name = m['client_name'] ?? DEFAULT_NAME;
  const scope = m['scope'];
  if (typeof name !== 'string' || (scope !== undefined && typeof scope !== 'string')) {
    return refused('invalid_client_metadata', 'client_name and scope must be strings');
  }
  const result = await clients.create(
    {
      name,
      redirectUris,
      postLogoutRedirectUris,
      backchannelLogoutUri: null,
      grantTypes,
      scope: scope ?? null,
      public: true,
      trusted: false,
    },
    audit,
  );
  if (!result.ok) return problemsError(result.problems);
  const { client } = result;
  return {
    ok: true,
    client: {
      client_id: client.clientId,
      client_id_issued_at: Math.floor(client.createdAt / 1000),
      client_name: client.name,
      redirect_uris: client.redirectUris,
      post_logout_redirect_uris: client.postLogoutRedirectUris,
      grant_types: client.grantTypes,
      response_types: client.grantTypes.includes('authorization_code') ? ['code'] : [],
      token_endpoint_auth_method: 'none',
      scope: client.scope,
    },
  };
}

function refused(error: RegistrationError, description: string): RegistrationResult {
  return { ok: false, error, description };
}

function problemsError(problems: readonly ClientProblem[]): RegistrationResult {
  const uri = problems.find((problem) => problem.field === 'redirect_uris');
  const first = uri ?? problems[0]!;
  const value = 'value' in first ? ` (${first.value})` : '';
  return refused(
    uri ? 'invalid_redirect_uri' : 'invalid_client_metadata',
    `${first.field}: ${first.problem}${value}`,
  );
}

function stringList(value: unknown): string[] | null {
  return Array.isArray(value) && value.length <= 20 && value.every((item) => typeof item === 'string')
    ? value
    : null;
}
