import type { JsonSchema } from '../../../lib/validation.ts';
import type { Op } from '../operation.ts';
import { ref } from '../schemas.ts';

const message = (description: string) => ({ description, json: ref('Message') });

const requirements = [
  {
    name: 'verified',
    description: '`1`: an unverified user gets 403.',
    schema: { enum: ['0', '1', 'true', 'false'] },
  },
  {
    name: 'ability',
    description: 'A token without this ability gets 403.',
    schema: { type: 'string' } as JsonSchema,
  },
];

/** One forward-auth endpoint (docs/integrations/forward-auth.md): the proxy asks about each request of the app it guards. */
function forwardAuth(summary: string, guest: Record<number, { description: string; json?: JsonSchema }>): Op {
  return {
    tag: 'Forward authentication',
    access: 'api',
    summary,
    description: 'Never cached (`Cache-Control: no-store`); no write per request.',
    query: requirements,
    responses: {
      200: {
        description: 'Allowed; the user in headers for the app behind the proxy.',
        headers: {
          'X-Auth-User-Id': 'The user id.',
          'X-Auth-User-Email': 'The e-mail address.',
          'X-Auth-User-Name': 'The name (UTF-8, control characters dropped).',
          'X-Auth-User-Verified': '`true` or `false`.',
        },
      },
      400: message(
        'The request carries an X-Auth-User-* header in another spelling (`X_Auth_User_Id`, `X.Auth.User.Id`): only the proxy sets those.',
      ),
      403: message('Unverified (with `verified=1`) or the token lacks the ability.'),
      422: {
        description: 'A malformed `verified` or `ability` (a proxy configuration error).',
        json: ref('ValidationError'),
      },
      ...guest,
    },
  };
}

/** docs/guides/operations.md, docs/integrations/forward-auth.md, docs/guides/webhooks.md: health, readiness, metrics, this document, forward authentication. */
export const opsPaths: Record<string, Record<string, Op>> = {
  '/health': {
    get: {
      tag: 'Operations',
      access: 'public',
      summary: 'The process serves',
      responses: { 200: { description: 'Always, while it serves.', json: ref('Health') } },
    },
  },
  '/ready': {
    get: {
      tag: 'Operations',
      access: 'public',
      summary: 'The database (and Redis, when configured) answer',
      responses: {
        200: { description: 'Ready.', json: ref('Readiness') },
        503: { description: 'A backing service does not answer.', json: ref('Readiness') },
      },
    },
  },
  '/metrics': {
    get: {
      tag: 'Operations',
      access: 'public',
      summary: 'Prometheus metrics',
      description:
        "Only when `METRICS_TOKEN` is set, and only with `Authorization: Bearer <METRICS_TOKEN>` (not a user's API token). Never cached.",
      responses: {
        200: { description: 'The metrics, Prometheus text format.', text: 'text/plain; version=0.0.4' },
        401: message('No or another token (`WWW-Authenticate: Bearer realm="<APP_NAME>"`).'),
        404: message('`METRICS_TOKEN` is not set.'),
      },
    },
  },
  '/openapi.json': {
    get: {
      tag: 'Operations',
      access: 'public',
      summary: 'This document (OpenAPI 3.1)',
      responses: {
        200: {
          description: 'The document.',
          json: {
            type: 'object',
            properties: { openapi: { const: '3.1.0' }, paths: { type: 'object' } },
            required: ['openapi', 'paths'],
          },
        },
      },
    },
  },
  '/auth/request': {
    get: forwardAuth('For nginx `auth_request`', {
      401: {
        description: 'A guest; `Location` holds the login URL for `error_page 401`.',
        json: ref('Message'),
      },
    }),
  },
  '/auth/forward': {
    get: forwardAuth('For Traefik `ForwardAuth` and Caddy `forward_auth`', {
      302: { description: 'A guest asking for a page: to `{APP_URL}/login?redirect=<original URL>`.' },
      401: message('A guest that does not ask for a page.'),
    }),
  },
};
