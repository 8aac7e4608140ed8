import type { JsonSchema } from '../../lib/validation.ts';
import type { Op } from '../openapi/operation.ts';
import { ref } from '../openapi/schemas.ts';

const tag = 'Login providers';
const message = (description: string) => ({ description, json: ref('Message') });
const redirect = (description: string) => ({ description, headers: { Location: 'Where the browser goes.' } });
const unknown = message('No provider of that name in LOGIN_PROVIDERS.');
const rememberParam = {
  name: 'remember',
  description: '`1`: "Remember me" for the sign-in that follows.',
  schema: { type: 'string', enum: ['1'] },
};

const linkedAccount: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    provider: { type: 'string', description: 'The name in LOGIN_PROVIDERS.' },
    label: { type: 'string', description: 'Its button text (NAME_LABEL).' },
    email: { type: ['string', 'null'], description: 'The address the provider gave at the last sign-in.' },
    email_verified: { type: 'boolean', description: 'Whether the provider said it verified that address.' },
    created_at: { type: 'string', format: 'date-time' },
    last_used_at: { type: ['string', 'null'], format: 'date-time' },
  },
  required: ['id', 'provider', 'label', 'email', 'email_verified', 'created_at', 'last_used_at'],
  additionalProperties: false,
};

/**
 * docs/guides/login-providers.md: the sign-in with another provider (browser redirects, described for
 * completeness: a JSON client cannot follow a provider's login page) and the account's linked identities.
 */
export const identityPaths: Record<string, Record<string, Op>> = {
  '/auth/{provider}': {
    get: {
      tag,
      access: 'public',
      summary: 'Start a sign-in (or, signed in, a link) at a provider',
      description:
        'Redirects to the provider with `state`, `nonce` and a PKCE S256 challenge, bound to this browser and this provider by a sealed HttpOnly cookie that lives 10 minutes. With `link=1` the web session is required (a verified address, and a recent password confirmation when the account has a password).',
      query: [
        rememberParam,
        {
          name: 'link',
          description: '`1`: link the identity to the signed-in user instead of signing in.',
          schema: { type: 'string', enum: ['1'] },
        },
      ],
      responses: {
        302: redirect(
          'To the provider; or, when it cannot be reached, to `/login?sign_in_error=unavailable&provider=<name>`.',
        ),
        401: message('`link=1` without a web session.'),
        403: message('`link=1` with an address that is not verified.'),
        404: unknown,
        423: message('`link=1` needs a recent password confirmation.'),
      },
    },
  },
  '/auth/{provider}/callback': {
    get: {
      tag,
      access: 'public',
      summary: 'The provider’s redirect back (register it as the callback URL)',
      description:
        'Checks the attempt cookie, `state`, the RFC 9207 `iss` when sent, the ID token (signature, iss, aud, exp, nonce) and exchanges the code with the PKCE verifier; then the linking rules. Query: the provider’s `code`, `state`, `iss` (or `error`).',
      responses: {
        302: redirect(
          'Signed in (the intended URL or LOGIN_REDIRECT, or `/two-factor-challenge`); linked (`/profile/security#linked-accounts`); or refused: `/login?sign_in_error=<reason>&provider=<name>`, reason one of denied, failed, unavailable, no_email, link_first, provider_taken, refused, no_account.',
        ),
        404: unknown,
      },
    },
  },
  '/user/linked-accounts': {
    get: {
      tag,
      access: 'session',
      summary: 'The identities at other providers linked to the account',
      responses: { 200: { description: 'Oldest first.', json: { type: 'array', items: linkedAccount } } },
    },
  },
  '/user/linked-accounts/{id}': {
    delete: {
      tag,
      access: 'session',
      summary: 'Unlink an identity (a notice mail goes to the user)',
      responses: {
        204: { description: 'Unlinked.' },
        404: message('Not one of your linked identities.'),
        422: {
          description:
            'The account’s last way to sign in (no password, no passkey, no other linked identity), on `id`.',
          json: ref('ValidationError'),
        },
      },
    },
  },
};
