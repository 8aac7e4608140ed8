import { ConfigError, type Reader } from './parsers.ts';

/**
 * One provider people may sign in with (docs/guides/login-providers.md): `github` speaks GitHub's OAuth
 * web flow and REST API; every other name is an OpenID provider read from its discovery document.
 */
export type LoginProviderConfig = GithubProviderConfig | OpenIdProviderConfig;

interface ProviderBase {
  /** The name in LOGIN_PROVIDERS, lower-case: `/auth/{name}`, and the prefix of its variables. */
  readonly name: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** NAME_LABEL: the button text (`Continue with …`). */
  readonly label: string;
  readonly scopes: readonly string[];
  /**
   * NAME_TRUST_EMAIL: whether the provider's *verified* address may link an existing account
   * (docs/guides/login-providers.md). Microsoft's `email` claim is not proof of ownership ("nOAuth").
   */
  readonly trustEmail: boolean;
}

export interface GithubProviderConfig extends ProviderBase {
  readonly kind: 'github';
  /** GITHUB_URL: the web origin (authorize, access token). */
  readonly webUrl: string;
  /** The REST API: https://api.github.com for github.com, `GITHUB_URL/api/v3` for GitHub Enterprise. */
  readonly apiUrl: string;
}

export interface OpenIdProviderConfig extends ProviderBase {
  readonly kind: 'openid';
  /** NAME_ISSUER, or the built-in default of google and microsoft. */
  readonly issuer: string;
}

const GITHUB_DOT_COM = 'https://github.com';
const KNOWN_LABELS: Readonly<Record<string, string>> = {
  github: 'GitHub',
  google: 'Google',
  microsoft: 'Microsoft',
};
/** Whose verified address links an existing account unless NAME_TRUST_EMAIL says otherwise. */
const TRUSTED_BY_DEFAULT = new Set(['github', 'google']);
/**
 * Names that cannot be providers: `/auth/request` and `/auth/forward` are forward auth's routes
 * (docs/integrations/forward-auth.md), which a provider's `/auth/{name}` would never reach.
 */
const RESERVED = new Set(['request', 'forward']);

/**
 * LOGIN_PROVIDERS and each provider's NAME_* variables. A missing client id or secret, an issuer that
 * is not https (plain http only on loopback), or a name that cannot be one stops the start with one
 * line naming the variable.
 */
export function loginProviders(read: Reader): readonly LoginProviderConfig[] {
  const names = (read('LOGIN_PROVIDERS') ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  const seen = new Set<string>();
  return names.map((name) => {
    if (!/^[a-z][a-z0-9_]{0,31}$/.test(name) || RESERVED.has(name)) {
      throw new ConfigError(
        'LOGIN_PROVIDERS',
        `names letters, digits and _ (starting with a letter, at most 32), not "request" or "forward" (got "${name}")`,
      );
    }
    if (seen.has(name)) throw new ConfigError('LOGIN_PROVIDERS', `names "${name}" twice`);
    seen.add(name);
    return provider(read, name);
  });
}

function provider(read: Reader, name: string): LoginProviderConfig {
  const prefix = name.toUpperCase();
  // Every per-provider variable is read through this one function (test/unit/docs-configuration.test.ts
  // finds them by it and expects docs/configuration.md to list them as NAME_…).
  const perProvider = (suffix: string) => ({
    variable: `${prefix}_${suffix}`,
    value: read(`${prefix}_${suffix}`),
  });
  const required = (setting: { variable: string; value: string | undefined }) => {
    if (setting.value === undefined)
      throw new ConfigError(setting.variable, `is required for the ${name} login provider`);
    return setting.value;
  };
  const clientId = required(perProvider('CLIENT_ID'));
  const clientSecret = required(perProvider('CLIENT_SECRET'));
  const trust = perProvider('TRUST_EMAIL');
  const base = {
    name,
    clientId,
    clientSecret,
    label: perProvider('LABEL').value ?? KNOWN_LABELS[name] ?? name.charAt(0).toUpperCase() + name.slice(1),
    trustEmail: trust.value === undefined ? TRUSTED_BY_DEFAULT.has(name) : flag(trust.variable, trust.value),
  };
  const scopes = perProvider('SCOPES');
  const issuer = perProvider('ISSUER');
  if (name === 'github') {
    const webUrl = secureUrl('GITHUB_URL', read('GITHUB_URL') ?? GITHUB_DOT_COM).replace(/\/+$/, '');
    return {
      ...base,
      kind: 'github',
      // read:user for the profile, user:email for /user/emails (the primary verified address).
      scopes: scopeList(scopes.value ?? 'read:user user:email'),
      webUrl,
      apiUrl: webUrl === GITHUB_DOT_COM ? 'https://api.github.com' : `${webUrl}/api/v3`,
    };
  }
  const fallback = defaultIssuer(read, name);
  if (issuer.value === undefined && fallback === null)
    throw new ConfigError(
      issuer.variable,
      `is required for the ${name} login provider (its OpenID issuer URL)`,
    );
  const list = scopeList(scopes.value ?? 'openid email profile');
  return {
    ...base,
    kind: 'openid',
    // Without `openid` there is no ID token, and the ID token is what proves who signed in.
    scopes: list.includes('openid') ? list : ['openid', ...list],
    issuer: secureUrl(issuer.variable, issuer.value ?? fallback!),
  };
}

function defaultIssuer(read: Reader, name: string): string | null {
  if (name === 'google') return 'https://accounts.google.com';
  if (name !== 'microsoft') return null;
  const tenant = read('MICROSOFT_TENANT') ?? 'common';
  if (!/^[A-Za-z0-9.-]{1,128}$/.test(tenant))
    throw new ConfigError(
      'MICROSOFT_TENANT',
      `must be common, organizations, consumers, a tenant id or domain (got "${tenant}")`,
    );
  return `https://login.microsoftonline.com/${tenant}/v2.0`;
}

function flag(variable: string, raw: string): boolean {
  const value = raw.toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(value)) return true;
  if (['false', '0', 'no', 'off'].includes(value)) return false;
  throw new ConfigError(variable, `must be true or false (got "${raw}")`);
}

function scopeList(raw: string): string[] {
  return [...new Set(raw.split(/[\s,]+/).filter(Boolean))];
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * An issuer or GitHub URL: https, or http on loopback only (a provider run beside Gatehouse for a test
 * or a demo). Anything else would send the authorization code and the client secret in the clear.
 * Taken as written: an issuer identifier is compared character for character with the discovery
 * document's and the ID token's `iss` (some providers' end in a slash).
 */
function secureUrl(variable: string, raw: string): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(variable, `must be an absolute https URL (got "${raw}")`);
  }
  const loopbackHttp = parsed.protocol === 'http:' && LOOPBACK.has(parsed.hostname);
  if ((parsed.protocol !== 'https:' && !loopbackHttp) || parsed.search !== '' || parsed.hash !== '') {
    throw new ConfigError(
      variable,
      `must be an https URL without query or fragment (http only on localhost, 127.0.0.1 or [::1]; got "${raw}")`,
    );
  }
  if (parsed.username !== '' || parsed.password !== '')
    throw new ConfigError(variable, 'must not hold credentials');
  return raw;
}
