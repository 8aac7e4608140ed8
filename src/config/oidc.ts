import { boolean, ConfigError, integer, type Reader } from './parsers.ts';

/** The OpenID Connect provider (docs/guides/oidc-provider.md). */
export interface OidcConfig {
  /** OIDC_ISSUER: the issuer identifier, no trailing slash; APP_URL unless set. */
  readonly issuer: string;
  /** OIDC_ACCESS_TOKEN_TTL: seconds a JWT access token lives. */
  readonly accessTokenTtlSeconds: number;
  /** OIDC_REFRESH_TOKEN_TTL: seconds a refresh token chain lives, counted from the first one (absolute). */
  readonly refreshTokenTtlSeconds: number;
  /** OIDC_DYNAMIC_REGISTRATION: POST /oauth/register (RFC 7591) for public clients; off by default. */
  readonly dynamicRegistration: boolean;
}

export function oidcConfig(read: Reader, appUrl: string): OidcConfig {
  return {
    issuer: issuer(read('OIDC_ISSUER') ?? appUrl),
    accessTokenTtlSeconds: integer(read, 'OIDC_ACCESS_TOKEN_TTL', 600, 60, 86_400),
    refreshTokenTtlSeconds: integer(read, 'OIDC_REFRESH_TOKEN_TTL', 2_592_000, 300, 31_536_000),
    dynamicRegistration: boolean(read, 'OIDC_DYNAMIC_REGISTRATION', false),
  };
}

/**
 * An issuer identifier is compared character for character by every relying party (OpenID Connect
 * Discovery §4.3), so it is taken exactly as written minus a trailing slash, and anything a client
 * could not reproduce — a query, a fragment, another scheme — is refused rather than silently dropped.
 */
function issuer(raw: string): string {
  const fail = () =>
    new ConfigError(
      'OIDC_ISSUER',
      `must be an absolute http(s) URL without query or fragment (got "${raw}")`,
    );
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw fail();
  }
  if (
    (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') ||
    parsed.search !== '' ||
    parsed.hash !== '' ||
    raw.includes('?') ||
    raw.includes('#') ||
    parsed.username !== '' ||
    parsed.password !== ''
  ) {
    throw fail();
  }
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}
