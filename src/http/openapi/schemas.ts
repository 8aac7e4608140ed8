import type { JsonSchema } from '../../lib/validation.ts';
import { userSchema } from '../routes/api/user.ts';

/**
 * The shapes the JSON answers share, as `components.schemas` of /openapi.json. Where a route already
 * serialises through a schema (GET /api/user), that very schema is used.
 */

const string = { type: 'string' } as const;
const nullableString = { type: ['string', 'null'] } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
const nullableDateTime = { type: ['string', 'null'], format: 'date-time' } as const;

function object(properties: Record<string, JsonSchema>, optional: readonly string[] = []): JsonSchema {
  return {
    type: 'object',
    properties,
    required: Object.keys(properties).filter((key) => !optional.includes(key)),
    additionalProperties: false,
  };
}

/** A reference to one of SCHEMAS (checked: the document test resolves every $ref). */
/** A token's metadata (never its secret); `last_used_at` is left out where a token was just made. */
const tokenFields = {
  id: { type: 'integer' },
  name: string,
  abilities: { type: 'array', items: string },
  last_used_at: nullableDateTime,
  expires_at: nullableDateTime,
  created_at: dateTime,
};
const { last_used_at: _unused, ...newTokenFields } = tokenFields;

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

export const SCHEMAS = {
  Message: object({ message: string }),
  Error: object(
    {
      message: string,
      errors: { type: 'object', additionalProperties: { type: 'array', items: string } },
    },
    ['errors'],
  ),
  ValidationError: object(
    {
      message: { ...string, description: 'The first message, then "(and N more errors)" (Laravel).' },
      errors: {
        type: 'object',
        additionalProperties: { type: 'array', items: string, minItems: 1 },
        description: 'Per field, its messages.',
      },
      two_factor: { const: true, description: 'POST /api/tokens: the account needs its second factor.' },
    },
    ['two_factor'],
  ),
  User: userSchema as unknown as JsonSchema,
  TokenUser: object({ id: { type: 'integer' }, name: string, email: string }),
  IssuedToken: object({
    token: { ...string, description: '`<id>|<secret>`: shown this once; only its SHA-256 is stored.' },
    user: ref('TokenUser'),
  }),
  AccessToken: object(tokenFields),
  TokenList: object({ data: { type: 'array', items: ref('AccessToken') } }),
  CreatedAccessToken: object({
    token: { ...string, description: '`<id>|<secret>`: shown this once.' },
    accessToken: object(newTokenFields),
  }),
  Post: object({
    id: { type: 'integer' },
    user_id: { type: 'integer' },
    title: string,
    body: string,
    created_at: dateTime,
    updated_at: dateTime,
  }),
  BrowserSession: object({
    id: { ...string, description: 'Opaque: neither the cookie nor its hash.' },
    ip_address: nullableString,
    user_agent: nullableString,
    browser: nullableString,
    platform: nullableString,
    last_active_at: dateTime,
    is_current: { type: 'boolean' },
    remembered: { type: 'boolean' },
  }),
  TwoFactorRequired: object({ two_factor: { const: true } }),
  TwoFactorQrCode: object({ svg: string, url: { ...string, pattern: '^otpauth://totp/' } }),
  TwoFactorSecretKey: object({ secretKey: { ...string, pattern: '^[A-Z2-7]+$' } }),
  RecoveryCodes: { type: 'array', items: { ...string, pattern: '^[a-z0-9]{10}-[a-z0-9]{10}$' } },
  ConfirmedPasswordStatus: object({ confirmed: { type: 'boolean' } }),
  Health: object({ status: { const: 'ok' } }),
  Readiness: object({
    status: { enum: ['ok', 'unavailable'] },
    checks: { type: 'object', additionalProperties: { enum: ['ok', 'fail'] } },
  }),
} satisfies Record<string, JsonSchema>;
