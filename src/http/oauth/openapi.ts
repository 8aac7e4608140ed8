import type { JsonSchema } from '../../lib/validation.ts';
import type { Op } from '../openapi/operation.ts';

/**
 * The provider's endpoints in /openapi.json (docs/guides/oidc-provider.md). Their errors are RFC
 * 6749's (`{"error", "error_description"}`), not Gatehouse's: `errors: 'oauth'`. Relying parties find
 * these endpoints through discovery; the paths below are its defaults.
 */
export const string = { type: 'string' } as const;
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const oauthError = (description: string) => ({ description, json: ref('OAuthError') });

export const OAUTH_SCHEMAS = {
  OAuthError: {
    type: 'object',
    properties: {
      error: { ...string, description: 'RFC 6749 §5.2 / §4.1.2.1 error code, e.g. invalid_grant.' },
      error_description: string,
      scope: string,
    },
    required: ['error'],
    additionalProperties: false,
  },
  TokenResponse: {
    type: 'object',
    properties: {
      access_token: { ...string, description: 'An RFC 9068 JWT (`typ: at+jwt`).' },
      token_type: { const: 'Bearer' },
      expires_in: { type: 'integer' },
      scope: string,
      refresh_token: { ...string, description: 'With offline_access only; rotated on every use.' },
      id_token: string,
    },
    required: ['access_token', 'token_type', 'expires_in'],
    additionalProperties: false,
  },
  Introspection: {
    type: 'object',
    properties: { active: { type: 'boolean' } },
    required: ['active'],
    additionalProperties: true,
  },
  UserinfoClaims: {
    type: 'object',
    properties: {
      sub: string,
      name: string,
      updated_at: { type: 'integer' },
      email: string,
      email_verified: { type: 'boolean' },
    },
    required: ['sub'],
    additionalProperties: true,
  },
  ProviderMetadata: {
    type: 'object',
    properties: { issuer: string },
    required: ['issuer'],
    additionalProperties: true,
  },
} satisfies Record<string, JsonSchema>;

export const tag = 'OpenID Connect';

const discovery: Op = {
  tag,
  access: 'public',
  errors: 'oauth',
  summary: 'Provider metadata (OpenID Connect Discovery, RFC 8414)',
  responses: { 200: { description: 'Every endpoint and supported value.', json: ref('ProviderMetadata') } },
};

const redirects = (what: string): Op['responses'] => ({
  303: { description: what, headers: { Location: 'Where the browser goes next.' } },
  400: oauthError(
    'An unknown client or an unregistered redirect_uri: answered at Gatehouse (a page for browsers, this JSON for JSON clients), never with a redirect.',
  ),
});

const userinfo: Op = {
  tag,
  access: 'oauthToken',
  errors: 'oauth',
  summary: 'The claims of the access token’s user, by its scopes',
  responses: {
    200: { description: 'Claims.', json: ref('UserinfoClaims') },
    401: oauthError('No, an invalid, expired or revoked access token (`WWW-Authenticate: Bearer …`).'),
    403: oauthError('The token lacks the openid scope.'),
  },
};

export const clientAuthenticated = (summary: string, ok: Op['responses'][number]): Op => ({
  tag,
  access: 'client',
  errors: 'oauth',
  summary,
  form: true,
  responses: {
    200: ok,
    400: oauthError('A malformed request.'),
    401: oauthError('invalid_client (`WWW-Authenticate: Basic`).'),
  },
});

export const oauthPaths: Record<string, Record<string, Op>> = {
  '/.well-known/openid-configuration': { get: discovery },
  '/.well-known/oauth-authorization-server': { get: discovery },
  '/oauth/jwks': {
    get: {
      tag,
      access: 'public',
      errors: 'oauth',
      summary: 'The public signing keys (JWKS)',
      responses: { 200: { description: 'A JWK Set.', text: 'application/jwk-set+json' } },
    },
  },
  '/oauth/authorize': {
    get: {
      tag,
      access: 'public',
      errors: 'oauth',
      summary: 'Authorization request (code flow, PKCE S256 required)',
      description:
        'Answers with a redirect to the client (`code` or `error`, `state`, `iss`), to the login or consent page, or with an error page at Gatehouse.',
      responses: redirects('To the client, or to an interaction page.'),
    },
    post: {
      tag,
      access: 'public',
      errors: 'oauth',
      summary: 'Authorization request by form post',
      description: 'Answered with a 303 to the same request as a GET.',
      responses: { 303: { description: 'The same request as a GET.' } },
    },
  },
  '/oauth/authorize/{uid}': {
    get: {
      tag,
      access: 'public',
      errors: 'oauth',
      summary: 'Resumes an authorization after its interaction',
      responses: {
        ...redirects('To the client.'),
        // A path the router cannot read (bad percent-encoding, an id past 200 characters) is refused
        // before the provider sees it, in Gatehouse's own shape (docs/reference/errors.md).
        400: {
          description: 'An expired or unknown interaction; a path the router cannot read.',
          json: { anyOf: [ref('OAuthError'), ref('Message')] },
        },
        404: { description: 'An interaction id past 200 characters.', json: ref('Message') },
      },
    },
  },
  '/oauth/token': {
    post: clientAuthenticated(
      'Token request (authorization_code, refresh_token, client_credentials, device_code)',
      {
        description: 'Tokens.',
        json: ref('TokenResponse'),
      },
    ),
  },
  '/oauth/userinfo': { get: userinfo, post: userinfo },
  '/oauth/introspect': {
    post: clientAuthenticated('Token introspection (RFC 7662): a client learns about its own tokens only', {
      description: '`{"active": false}` for anything expired, revoked, foreign or unknown.',
      json: ref('Introspection'),
    }),
  },
  '/oauth/revoke': {
    post: clientAuthenticated('Token revocation (RFC 7009); revoking a refresh token ends its grant', {
      description: 'Always, whatever the token was.',
    }),
  },
  '/oauth/logout': {
    get: {
      tag,
      access: 'public',
      errors: 'oauth',
      summary: 'RP-initiated logout',
      description: 'A confirmation page; only a registered post_logout_redirect_uri is followed, exactly.',
      responses: {
        200: { description: 'The confirmation page.', text: 'text/html' },
        400: oauthError(
          'A malformed request, an unregistered post_logout_redirect_uri (a page for browsers).',
        ),
      },
    },
    post: {
      tag,
      access: 'public',
      errors: 'oauth',
      summary: 'RP-initiated logout by form post',
      responses: { 303: { description: 'The same request as a GET.' } },
    },
  },
  '/oauth/logout/confirm': {
    post: {
      tag,
      access: 'public',
      errors: 'oauth',
      summary: 'The confirmation form of RP-initiated logout',
      responses: {
        303: { description: 'To the post_logout_redirect_uri (with state), or the done page.' },
        400: oauthError('The form expired or was not ours (a page for browsers).'),
      },
    },
  },
  '/oauth/logout/success': {
    get: {
      tag,
      access: 'public',
      errors: 'oauth',
      summary: 'Signed out',
      responses: {
        200: { description: 'The done page.', text: 'text/html' },
        400: oauthError('An unknown client_id (a page for browsers).'),
      },
    },
  },
};
