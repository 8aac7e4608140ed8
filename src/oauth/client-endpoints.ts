import { OAUTH_ROUTES } from './provider-config.ts';

/**
 * The endpoints programs call (relying parties, resource servers, devices), as opposed to the pages a
 * browser visits: their errors are RFC 6749's JSON (`{"error", "error_description"}`) whatever the
 * request's Accept header says, a wrong method included (http/plugins/errors.ts).
 */
export const OAUTH_CLIENT_ENDPOINTS: ReadonlySet<string> = new Set([
  '/.well-known/openid-configuration',
  '/.well-known/oauth-authorization-server',
  OAUTH_ROUTES.jwks,
  OAUTH_ROUTES.token,
  OAUTH_ROUTES.userinfo,
  OAUTH_ROUTES.introspection,
  OAUTH_ROUTES.revocation,
  OAUTH_ROUTES.device_authorization,
  OAUTH_ROUTES.registration,
]);
