import type { JsonSchema } from '../../lib/validation.ts';
import type { Op } from '../openapi/operation.ts';
import { clientAuthenticated, oauthError, ref, string, tag } from './openapi.ts';

/**
 * The provider's endpoints for devices and self-registering clients in /openapi.json
 * (docs/guides/oidc-provider.md "Device flow", "Dynamic registration"); the rest is openapi.ts.
 */
export const MACHINE_SCHEMAS = {
  DeviceAuthorization: {
    type: 'object',
    properties: {
      device_code: { ...string, description: 'The secret the device polls the token endpoint with.' },
      user_code: { ...string, pattern: '^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$' },
      verification_uri: string,
      verification_uri_complete: string,
      expires_in: { type: 'integer' },
      interval: { type: 'integer' },
    },
    required: ['device_code', 'user_code', 'verification_uri', 'expires_in', 'interval'],
    additionalProperties: false,
  },
  RegisteredClient: {
    type: 'object',
    properties: {
      client_id: string,
      client_id_issued_at: { type: 'integer' },
      client_name: string,
      redirect_uris: { type: 'array', items: string },
      post_logout_redirect_uris: { type: 'array', items: string },
      grant_types: { type: 'array', items: string },
      response_types: { type: 'array', items: string },
      token_endpoint_auth_method: { const: 'none' },
      scope: string,
    },
    required: [
      'client_id',
      'client_id_issued_at',
      'redirect_uris',
      'grant_types',
      'token_endpoint_auth_method',
    ],
    additionalProperties: false,
  },
} satisfies Record<string, JsonSchema>;

/** /device: a guest is sent to log in first (http/oauth/device-gate.ts). */
const devicePage = (summary: string, responses: Op['responses']): Op => ({
  tag,
  access: 'public',
  errors: 'oauth',
  summary,
  responses: {
    302: { description: 'A guest is sent to log in first.', headers: { Location: 'The login page.' } },
    ...responses,
  },
});

export const machinePaths: Record<string, Record<string, Op>> = {
  '/oauth/device/auth': {
    post: clientAuthenticated('Device authorization request (RFC 8628): a code for the person to type', {
      description: 'The codes, where to type them, how long they live and how often to poll.',
      json: ref('DeviceAuthorization'),
    }),
  },
  '/oauth/register': {
    post: {
      tag,
      access: 'public',
      errors: 'oauth',
      summary: 'Dynamic client registration (RFC 7591), public clients only',
      description:
        'Only with OIDC_DYNAMIC_REGISTRATION=true (otherwise 404). 20 registrations an hour per address.',
      body: {
        type: 'object',
        properties: {
          redirect_uris: { type: 'array', items: string },
          post_logout_redirect_uris: { type: 'array', items: string },
          client_name: string,
          grant_types: { type: 'array', items: string },
          response_types: { type: 'array', items: string },
          token_endpoint_auth_method: { const: 'none' },
          scope: string,
        },
        // Left out, it means client_secret_basic (RFC 7591 §2), which is refused.
        required: ['token_endpoint_auth_method'],
      },
      responses: {
        201: { description: 'The registered client (no secret).', json: ref('RegisteredClient') },
        400: oauthError('invalid_redirect_uri or invalid_client_metadata (RFC 7591 §3.2.2).'),
        404: { description: 'Dynamic registration is off.', json: ref('Message') },
        429: oauthError('Too many registrations from this address (`Retry-After`).'),
      },
    },
  },
  '/device': {
    get: devicePage('The page where a signed-in person types a device’s code (RFC 8628 §3.3)', {
      200: { description: 'The code form (with `user_code`: posted on by itself).', text: 'text/html' },
      400: { description: 'A malformed request (a page).', text: 'text/html' },
    }),
    post: devicePage('A typed code: confirmed, then on to the consent page', {
      200: { description: 'The confirmation, or the form again with what was wrong.', text: 'text/html' },
      303: { description: 'To the consent page.', headers: { Location: 'The interaction page.' } },
      400: { description: 'The form was not ours or has expired.', text: 'text/html' },
      429: {
        description: 'Too many codes typed (10 a minute per person and per address).',
        text: 'text/html',
      },
    }),
  },
  '/device/{uid}': {
    get: devicePage('Finishes the device flow after the consent', {
      200: { description: 'Done (or declined): the person goes back to the device.', text: 'text/html' },
      // A path the router cannot read (bad percent-encoding, an id past 200 characters) is refused
      // before the provider sees it, in Gatehouse's own shape (docs/reference/errors.md).
      400: {
        description: 'An expired or unknown interaction (a page); a path the router cannot read.',
        json: ref('Message'),
      },
      404: { description: 'An interaction id past 200 characters.', json: ref('Message') },
    }),
  },
};
