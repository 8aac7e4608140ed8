import type { JsonSchema } from '../../../lib/validation.ts';
import { passkeyCreateSchema, passkeyRenameSchema } from '../../routes/account/passkeys.ts';
import { passkeyLoginSchema } from '../../routes/web/passkey-login.ts';
import { bodySchema } from '../bodies.ts';
import type { Op } from '../operation.ts';
import { ref } from '../schemas.ts';

const tag = 'Passkeys';
const form = true;
const message = (description: string) => ({ description, json: ref('Message') });
const notFound = message('Not one of your passkeys.');

/** What @simplewebauthn/browser takes and gives (WebAuthn Level 3 JSON forms), checked by the server. */
const webAuthnJson = (name: string): JsonSchema => ({
  type: 'object',
  description: `A WebAuthn ${name} (JSON form, as \`@simplewebauthn/browser\` makes it).`,
  properties: {
    id: { type: 'string', description: 'The credential id, base64url.' },
    rawId: { type: 'string', description: 'The same id, base64url.' },
    response: { type: 'object', description: "The authenticator's answer (base64url fields)." },
    type: { const: 'public-key' },
  },
  required: ['id', 'rawId', 'response', 'type'],
});
const creationOptions: JsonSchema = {
  type: 'object',
  description: 'PublicKeyCredentialCreationOptionsJSON: rp.id is the hostname of APP_URL.',
  properties: {
    challenge: { type: 'string', description: 'base64url.' },
    rp: { type: 'object', description: 'The relying party: `id` and `name`.' },
    user: { type: 'object', description: 'The account: `id` (base64url), `name`, `displayName`.' },
    pubKeyCredParams: { type: 'array', items: { type: 'object' } },
    excludeCredentials: {
      type: 'array',
      items: { type: 'object' },
      description: 'The passkeys the account has already, so an authenticator does not make a second one.',
    },
    authenticatorSelection: { type: 'object' },
  },
  required: ['challenge', 'rp', 'user', 'pubKeyCredParams', 'excludeCredentials', 'authenticatorSelection'],
};
const requestOptions: JsonSchema = {
  type: 'object',
  description: 'PublicKeyCredentialRequestOptionsJSON: no allowCredentials (discoverable credentials).',
  properties: {
    challenge: { type: 'string', description: 'base64url.' },
    rpId: { type: 'string', description: 'The hostname of APP_URL.' },
  },
  required: ['challenge', 'rpId'],
};
const passkey = (withLastUse: boolean): JsonSchema => {
  const properties: Record<string, JsonSchema> = {
    id: { type: 'integer' },
    name: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    ...(withLastUse ? { last_used_at: { type: ['string', 'null'], format: 'date-time' } } : {}),
  };
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
};

/** docs/guides/passkeys.md: passkeys on the account page (password-confirmed) and the passkey sign-in. */
export const passkeyPaths: Record<string, Record<string, Op>> = {
  '/user/passkeys': {
    get: {
      tag,
      access: 'session',
      confirmed: true,
      summary: 'Your passkeys',
      responses: { 200: { description: 'The passkeys.', json: { type: 'array', items: passkey(true) } } },
    },
    post: {
      tag,
      access: 'session',
      confirmed: true,
      verified: true,
      summary: "Add a passkey: the browser's answer to the options of GET /user/passkeys/options",
      body: bodySchema(passkeyCreateSchema, { credential: webAuthnJson('RegistrationResponseJSON') }),
      form,
      responses: {
        201: { description: 'Added.', json: passkey(false) },
        422: {
          description: 'Invalid name, or a replayed, foreign or unverifiable `credential`.',
          json: ref('ValidationError'),
        },
      },
    },
  },
  '/user/passkeys/options': {
    get: {
      tag,
      access: 'session',
      confirmed: true,
      verified: true,
      summary: "Options for the browser's create() (a single-use challenge, 5 minutes)",
      responses: { 200: { description: 'The options.', json: creationOptions } },
    },
  },
  '/user/passkeys/{id}': {
    put: {
      tag,
      access: 'session',
      confirmed: true,
      summary: 'Rename a passkey',
      body: bodySchema(passkeyRenameSchema),
      form,
      responses: { 204: { description: 'Renamed.' }, 404: notFound },
    },
    delete: {
      tag,
      access: 'session',
      confirmed: true,
      summary: 'Remove a passkey',
      responses: { 204: { description: 'Removed (a mail tells the owner).' }, 404: notFound },
    },
  },
  '/passkeys/login/options': {
    get: {
      tag,
      access: 'public',
      summary: "Options for the browser's get(): a challenge bound to this browser session",
      responses: { 200: { description: 'The options.', json: requestOptions } },
    },
  },
  '/passkeys/login': {
    post: {
      tag,
      access: 'public',
      summary: 'Sign in with a passkey (a fresh session id; a passkey satisfies two-factor)',
      body: bodySchema(passkeyLoginSchema, { credential: webAuthnJson('AuthenticationResponseJSON') }),
      form,
      responses: {
        200: {
          description: 'The authenticator did not verify the person and the account has two-factor on.',
          json: ref('TwoFactorRequired'),
        },
        204: { description: 'Signed in.' },
        422: {
          description: '"These credentials do not match our records." on `credential`.',
          json: ref('ValidationError'),
        },
      },
    },
  },
};
