import type { Identity } from '../auth/guards/guards.ts';
import { ABILITY_PATTERN, can } from '../auth/tokens/abilities.ts';
import { type OrgMembership, remoteGroups } from '../orgs/memberships.ts';
import type { User } from '../users/user.ts';

/** What the proxy asks for besides a signed-in user (the query of /auth/request and /auth/forward). */
export interface ForwardRequirements {
  /** `?verified=1`: the user's e-mail address must be verified. */
  readonly verified: boolean;
  /** `?ability=x:y`: a bearer token must hold it (sessions hold every ability, docs/guides/api-tokens.md). */
  readonly ability: string | null;
}

export type ForwardDecision =
  | { readonly status: 'allowed'; readonly user: User }
  | { readonly status: 'guest' }
  | { readonly status: 'unverified' }
  | { readonly status: 'missing-ability' };

/** The requirements, or the name of the parameter that is malformed (a proxy configuration error). */
export function parseRequirements(
  query: Readonly<Record<string, unknown>>,
): ForwardRequirements | { readonly invalid: 'verified' | 'ability' } {
  const verified = query['verified'];
  const ability = query['ability'];
  if (verified !== undefined && !(typeof verified === 'string' && /^(0|1|true|false)?$/.test(verified))) {
    return { invalid: 'verified' };
  }
  if (ability !== undefined && !(typeof ability === 'string' && ABILITY_PATTERN.test(ability))) {
    return { invalid: 'ability' };
  }
  return {
    verified: verified === '1' || verified === 'true',
    ability: (ability as string | undefined) ?? null,
  };
}

/** The user headers as a CGI or PHP app names them: $_SERVER['HTTP_X_AUTH_USER_ID'], … */
const CGI_NAMES = new Set(['id', 'email', 'name', 'verified'].map((part) => `x_auth_user_${part}`));

/**
 * Whether a client sent one of the user headers under another spelling: `X_Auth_User_Id`,
 * `x.auth.user.id`, `X-Auth_User-Id` (`rawHeaders`: name, value, name, … as received). A CGI or PHP app
 * reads each as the X-Auth-User-Id the proxy sets, and the last one wins; the proxies replace only the
 * spelling with hyphens. nginx drops such names by itself and the Caddyfile removes them, but Traefik
 * cannot name them all: docs/integrations/forward-auth.md has the check refuse the request (the proxy
 * hands the refusal to the client, and the app is never asked).
 */
export function forgesUserHeaders(rawHeaders: readonly string[]): boolean {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    // On the forward-auth hot path: only a name of the right length starting with x is looked at, and
    // only one with `_` or `.` can be another spelling (the hyphen one is replaced by the proxy).
    if (name.length < 14 || name.length > 20 || (name.charCodeAt(0) | 32) !== 120) continue;
    if (!name.includes('_') && !name.includes('.')) continue;
    if (CGI_NAMES.has(name.toLowerCase().replace(/[-.]/g, '_'))) return true;
  }
  return false;
}

/** The answer for one identity (null: no session and no token) under the proxy's requirements. */
export function decide(identity: Identity | null, requirements: ForwardRequirements): ForwardDecision {
  if (identity === null) return { status: 'guest' };
  if (requirements.verified && identity.user.emailVerifiedAt === null) return { status: 'unverified' };
  if (
    requirements.ability !== null &&
    identity.token &&
    !can(identity.token.abilities, requirements.ability)
  ) {
    return { status: 'missing-ability' };
  }
  return { status: 'allowed', user: identity.user };
}

/**
 * The user headers of an allowed request, in the form every proxy copies as-is. HTTP header values
 * are bytes: a name like "Zoë 李" is sent as its UTF-8 bytes (what Go, nginx and most frameworks read
 * back as UTF-8), and control characters are dropped, so an imported name with a line break can
 * never inject a header into the proxied request.
 */
export function userHeaders(user: User, memberships: readonly OrgMembership[]): Record<string, string> {
  return {
    'x-auth-user-id': String(user.id),
    'x-auth-user-email': headerBytes(user.email),
    'x-auth-user-name': headerBytes(user.name),
    'x-auth-user-verified': user.emailVerifiedAt === null ? 'false' : 'true',
    // docs/guides/organizations.md: `org:<slug>:<role>` per membership, comma-separated (slugs and roles are
    // ASCII by their rules). Sent even when empty, so a proxy that copies it replaces a client's own.
    'remote-groups': remoteGroups(memberships),
  };
}

/** UTF-8 bytes as the latin1 string Node writes byte for byte (Node refuses other characters). */
function headerBytes(text: string): string {
  const clean = text.replace(/\p{Cc}/gu, '');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is "anything beyond ASCII"
  return /^[\u0000-\u007f]*$/.test(clean) ? clean : Buffer.from(clean, 'utf8').toString('latin1');
}
