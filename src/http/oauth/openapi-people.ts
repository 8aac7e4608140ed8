import type { JsonSchema } from '../../lib/validation.ts';
import type { Op } from '../openapi/operation.ts';
import { ref } from '../openapi/schemas.ts';

const message = (description: string) => ({ description, json: ref('Message') });
const tag = 'Administration panel';
const access = 'admin';
const form = true;
const uris = { type: 'array', items: { type: 'string' }, maxItems: 20 } as const;
const string = { type: 'string' } as const;
const uriFields = {
  name: { type: 'string', maxLength: 100 },
  redirect_uris: { ...uris, description: 'In a form: one URI a line.' },
  post_logout_redirect_uris: uris,
  backchannel_logout_uri: string,
};
const client: JsonSchema = {
  type: 'object',
  description: 'The `--json` shape of the clients:* commands.',
  properties: {
    client_id: string,
    client_secret: { type: ['string', 'null'], description: 'Only when just created: shown once.' },
    name: string,
    public: { type: 'boolean' },
    trusted: { type: 'boolean' },
    redirect_uris: uris,
    post_logout_redirect_uris: uris,
    backchannel_logout_uri: { type: ['string', 'null'] },
    grant_types: { type: 'array', items: string },
    scope: string,
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
  required: ['client_id', 'name', 'public', 'trusted', 'redirect_uris', 'grant_types', 'scope'],
  additionalProperties: false,
};
const unknownClient = message('No such client.');
const done = (description: string, extra: Record<string, JsonSchema> = {}) => ({
  description,
  json: {
    type: 'object',
    properties: { message: string, ...extra },
    required: ['message', ...Object.keys(extra)],
    additionalProperties: false,
  } as JsonSchema,
});

/**
 * What people and administrators do with the OpenID Connect provider in /openapi.json
 * (docs/guides/oidc-provider.md "Connected apps"): the account's connected apps, and the panel's
 * clients (docs/guides/admin-panel.md "OpenID Connect clients"), checked by the CLI's rules (422).
 */
export const oauthPeoplePaths: Record<string, Record<string, Op>> = {
  '/user/connected-apps/{clientId}': {
    delete: {
      tag: 'Account',
      access: 'session',
      summary: 'Disconnect an application (OpenID Connect client) you allowed',
      description:
        'Removes the consent and revokes every grant of this client for you, with its refresh tokens; its JWT access tokens are refused at once by /api/* and /oauth/userinfo. A form may POST with `_method=DELETE` (303 back to the account page).',
      responses: {
        204: { description: 'Disconnected.' },
        404: message('Not an application you allowed.'),
      },
    },
  },
  '/admin/clients': {
    post: {
      tag,
      access,
      summary: 'Register an OpenID Connect client (as clients:create)',
      body: {
        type: 'object',
        properties: {
          ...uriFields,
          grant_types: { type: 'array', items: string },
          scope: string,
          client_type: { enum: ['confidential', 'public'] },
          trusted: { type: 'boolean' },
        },
        required: ['name'],
      },
      form,
      responses: { 201: { description: 'Registered; the secret shown this once.', json: client } },
    },
  },
  '/admin/clients/{clientId}': {
    get: {
      tag,
      access,
      summary: 'One client (as clients:show --json); a page for browsers',
      responses: { 200: { description: 'The client.', json: client }, 404: unknownClient },
    },
    post: {
      tag,
      access,
      summary: 'Change its name and URIs (audited oauth.client.updated)',
      body: { type: 'object', properties: uriFields, required: ['name'] },
      form,
      responses: { 200: done('Saved.'), 404: unknownClient },
    },
  },
  '/admin/clients/{clientId}/rotate-secret': {
    post: {
      tag,
      access,
      summary: 'A new secret (the old one stops working at once), shown this once',
      responses: {
        200: done('Rotated.', { client_secret: string }),
        404: unknownClient,
        409: message('A public client has no secret.'),
      },
    },
  },
  '/admin/clients/{clientId}/delete': {
    post: {
      tag,
      access,
      summary: 'Delete the client and everything issued to it',
      responses: { 200: done('Deleted.'), 404: unknownClient },
    },
  },
};
