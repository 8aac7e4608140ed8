import {
  isHttpsLoopback,
  isNativeRedirect,
  type UriProblem,
  type UriUse,
  uriProblem,
} from './redirect-uris.ts';
import { type ScopeCatalogue, scopeProblem } from './scopes.ts';

/** The grant types a client may be registered with (the CLI's --grant values). */
export const GRANT_TYPES = [
  'authorization_code',
  'refresh_token',
  'client_credentials',
  'urn:ietf:params:oauth:grant-type:device_code',
] as const;

/** Grant types this version issues tokens for (all of them now; kept for the next one). */
const AVAILABLE_GRANTS = new Set<string>(GRANT_TYPES);
/** The grants a person signs in with, which a refresh token can follow. */
const PERSON_GRANTS = ['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code'];

export type ClientField =
  | 'name'
  | 'redirect_uris'
  | 'post_logout_redirect_uris'
  | 'backchannel_logout_uri'
  | 'grant_types'
  | 'scope';

export type ClientProblem =
  | { readonly field: ClientField; readonly problem: UriProblem; readonly value: string }
  | { readonly field: ClientField; readonly problem: 'required' | 'too_long' | 'too_many' | 'mixed_loopback' }
  | {
      readonly field: 'grant_types';
      readonly problem:
        | 'unknown_grant'
        | 'grant_not_available'
        | 'refresh_without_code'
        | 'confidential_only';
      readonly value: string;
    }
  | { readonly field: 'scope'; readonly problem: 'unknown_scope'; readonly value: string };

const MAX_URIS = 20;
const MAX_NAME = 100;

/** The URIs a client is registered with (docs/guides/oidc-provider.md "Clients"). */
export interface ClientUris {
  readonly redirectUris: readonly string[];
  readonly postLogoutRedirectUris: readonly string[];
  readonly backchannelLogoutUri: string | null;
}

/**
 * Everything wrong with a client's registration, each with its field: the one place the CLI, the
 * panel and the edit form check a name, URIs, grant types and scopes (docs/guides/oidc-provider.md
 * "Clients"). `scope` null: the scope is not being changed.
 */
export function registrationProblems(
  input: ClientUris & {
    readonly name: string;
    readonly grantTypes: readonly string[];
    readonly public: boolean;
  },
  scope: { readonly value: string; readonly catalogue: ScopeCatalogue } | null,
): ClientProblem[] {
  return [
    ...nameProblems(input.name),
    ...uriListProblems(input),
    ...grantProblems(input.grantTypes, input.redirectUris.length, input.public),
    ...(scope === null ? [] : scopeProblems(scope.catalogue, scope.value)),
  ];
}

export function normaliseScope(scope: string): string {
  return [...new Set(scope.split(' ').filter(Boolean))].join(' ');
}

function nameProblems(name: string): ClientProblem[] {
  const trimmed = name.trim();
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (trimmed === '' || /[\x00-\x1f\x7f]/.test(trimmed)) return [{ field: 'name', problem: 'required' }];
  return trimmed.length > MAX_NAME ? [{ field: 'name', problem: 'too_long' }] : [];
}

function uriListProblems(uris: ClientUris): ClientProblem[] {
  const redirects = uris.redirectUris;
  const postLogout = uris.postLogoutRedirectUris;
  const problems: ClientProblem[] = [];
  const check = (field: ClientField, values: readonly string[], use: UriUse) => {
    if (values.length > MAX_URIS) problems.push({ field, problem: 'too_many' });
    for (const value of values) {
      const problem = uriProblem(value, use);
      if (problem !== null) problems.push({ field, problem, value });
    }
  };
  check('redirect_uris', redirects, 'redirect');
  check('post_logout_redirect_uris', postLogout, 'post_logout');
  if (uris.backchannelLogoutUri !== null) {
    check('backchannel_logout_uri', [uris.backchannelLogoutUri], 'backchannel');
  }
  // A client with a native app's redirect URIs is registered as one (its loopback port may vary);
  // OpenID Connect then refuses https on a loopback host beside them.
  // The problem is filed at the list that holds the https loopback URI.
  if (redirects.some(isNativeRedirect)) {
    if (redirects.some(isHttpsLoopback)) problems.push({ field: 'redirect_uris', problem: 'mixed_loopback' });
    if (postLogout.some(isHttpsLoopback)) {
      problems.push({ field: 'post_logout_redirect_uris', problem: 'mixed_loopback' });
    }
  }
  return problems;
}

function grantProblems(grantTypes: readonly string[], redirectCount: number, isPublic: boolean) {
  const problems: ClientProblem[] = [];
  // A client acting as itself must prove who it is: client_credentials needs a secret.
  if (isPublic && grantTypes.includes('client_credentials'))
    problems.push({ field: 'grant_types', problem: 'confidential_only', value: 'client_credentials' });
  for (const grant of grantTypes) {
    if (!(GRANT_TYPES as readonly string[]).includes(grant)) {
      problems.push({ field: 'grant_types', problem: 'unknown_grant', value: grant });
    } else if (!AVAILABLE_GRANTS.has(grant)) {
      problems.push({ field: 'grant_types', problem: 'grant_not_available', value: grant });
    }
  }
  if (grantTypes.includes('refresh_token') && !PERSON_GRANTS.some((grant) => grantTypes.includes(grant))) {
    problems.push({ field: 'grant_types', problem: 'refresh_without_code', value: 'refresh_token' });
  }
  if (grantTypes.includes('authorization_code') && redirectCount === 0) {
    problems.push({ field: 'redirect_uris', problem: 'required' });
  }
  return problems;
}

function scopeProblems(catalogue: ScopeCatalogue, scope: string): ClientProblem[] {
  return scope
    .split(' ')
    .filter(Boolean)
    .filter((value) => scopeProblem(catalogue, value) !== null)
    .map((value) => ({ field: 'scope' as const, problem: 'unknown_scope' as const, value }));
}
