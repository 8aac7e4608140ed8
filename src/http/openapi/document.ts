import type { JsonSchema } from '../../lib/validation.ts';
import type { OrgRoles } from '../../orgs/roles.ts';
import { identityPaths } from '../identities/openapi.ts';
import { OAUTH_SCHEMAS, oauthPaths } from '../oauth/openapi.ts';
import { MACHINE_SCHEMAS, machinePaths } from '../oauth/openapi-machines.ts';
import { oauthPeoplePaths } from '../oauth/openapi-people.ts';
import { orgPaths } from '../orgs/openapi.ts';
import { type Op, operation } from './operation.ts';
import { accountPaths } from './paths/account.ts';
import { adminPaths } from './paths/admin.ts';
import { apiPaths } from './paths/api.ts';
import { browserPaths } from './paths/browser.ts';
import { opsPaths } from './paths/ops.ts';
import { passkeyPaths } from './paths/passkeys.ts';
import { SCHEMAS } from './schemas.ts';

export interface DocumentSettings {
  readonly appName: string;
  readonly appUrl: string;
  readonly version: string;
  /** The session cookies' names as configured (`__Host-` on https). */
  readonly sessionCookie: string;
  readonly adminSessionCookie: string;
  /** TOKEN_ABILITIES: what the account page's tokens may hold. */
  readonly abilityCatalogue: readonly string[];
  /** The roles of organizations (owner, admin, member and ORG_ROLES). */
  readonly orgRoles: OrgRoles;
}

/**
 * GET /openapi.json (docs/reference/http-api.md): every JSON route, its request body (read off the validation rules
 * the route runs) and its answers. The HTTP test suite checks every JSON answer it receives against
 * this document (test/helpers/openapi.ts), so a route that drifts from it fails a test.
 */
export function openApiDocument(settings: DocumentSettings): JsonSchema {
  const areas: Record<string, Record<string, Op>>[] = [
    apiPaths,
    browserPaths,
    accountPaths(settings.abilityCatalogue),
    passkeyPaths,
    orgPaths(settings.orgRoles),
    adminPaths,
    opsPaths,
    oauthPaths,
    machinePaths,
    oauthPeoplePaths,
    identityPaths,
  ];
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const area of areas) {
    for (const [path, methods] of Object.entries(area)) {
      for (const [method, op] of Object.entries(methods)) {
        paths[path] = { ...paths[path], [method]: operation(path, method, op) };
      }
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: settings.appName,
      version: settings.version,
      description:
        "Gatehouse: browser sessions, Sanctum-style API tokens, two-factor, forward authentication. Errors follow Laravel's JSON shapes.",
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: settings.appUrl }],
    paths,
    components: {
      schemas: { ...SCHEMAS, ...OAUTH_SCHEMAS, ...MACHINE_SCHEMAS },
      securitySchemes: {
        bearerToken: {
          type: 'http',
          scheme: 'bearer',
          description: '`<id>|<secret>` from POST /api/tokens or the account page.',
        },
        sessionCookie: { type: 'apiKey', in: 'cookie', name: settings.sessionCookie },
        adminSessionCookie: { type: 'apiKey', in: 'cookie', name: settings.adminSessionCookie },
        clientSecretBasic: {
          type: 'http',
          scheme: 'basic',
          description:
            'An OpenID Connect client: client_id and client_secret (or the same as client_secret_post form fields; a public client sends client_id only).',
        },
        oauthAccessToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'An access token from POST /oauth/token (RFC 9068).',
        },
        xsrfHeader: {
          type: 'apiKey',
          in: 'header',
          name: 'X-XSRF-TOKEN',
          description: "The XSRF-TOKEN cookie (or the page's `_token`, as X-CSRF-TOKEN), on state changes.",
        },
      },
    },
  };
}
