import { postSchema } from '../../routes/api/posts.ts';
import { deleteByNameSchema, issueSchema } from '../../routes/api/tokens.ts';
import { bodySchema, fieldSchema } from '../bodies.ts';
import type { Op } from '../operation.ts';
import { ref } from '../schemas.ts';

const tag = 'API tokens';
const forbidden = {
  description:
    'The token lacks the ability (`WWW-Authenticate: Bearer realm="<APP_NAME>", error="insufficient_scope"`).',
  json: ref('Message'),
};

/** docs/guides/api-tokens.md: bearer tokens and the routes they protect. */
export const apiPaths: Record<string, Record<string, Op>> = {
  '/api/tokens': {
    post: {
      tag,
      access: 'public',
      summary: 'Exchange credentials for a bearer token',
      description:
        'Abilities default to `["*"]`; `expires_in` (seconds) shortens the lifetime. For an account with two-factor on, send `code` or `recovery_code` too.',
      body: bodySchema(issueSchema),
      responses: {
        200: { description: 'The token, shown this once.', json: ref('IssuedToken') },
        401: { description: '"The provided credentials are incorrect."', json: ref('Message') },
        422: {
          description: 'Validation failed, or the second factor is missing or wrong (`two_factor: true`).',
          json: ref('ValidationError'),
        },
        503: { description: 'Too many password checks are waiting; `Retry-After`.', json: ref('Message') },
      },
    },
    get: {
      tag,
      access: 'api',
      summary: "The caller's tokens (never a secret)",
      responses: { 200: { description: 'Newest first.', json: ref('TokenList') } },
    },
    delete: {
      tag,
      access: 'api',
      summary: 'Revoke every token of the caller, or those with a name',
      query: [
        {
          name: 'name',
          description: 'Only the tokens with this name.',
          schema: fieldSchema(deleteByNameSchema, 'name'),
        },
      ],
      responses: {
        204: { description: 'Revoked.' },
        422: {
          description: 'An unknown query parameter (never "all" by mistake).',
          json: ref('ValidationError'),
        },
      },
    },
  },
  '/api/tokens/current': {
    delete: {
      tag,
      access: 'api',
      summary: 'Revoke the token of this request',
      responses: { 204: { description: 'It stops working at once, on every instance.' } },
    },
  },
  '/api/tokens/{id}': {
    delete: {
      tag,
      access: 'api',
      summary: "Revoke one of the caller's tokens",
      responses: {
        204: { description: 'Revoked.' },
        404: { description: "Not one of the caller's tokens.", json: ref('Message') },
      },
    },
  },
  '/api/user': {
    get: {
      tag: 'API',
      access: 'api',
      summary: 'The authenticated user',
      responses: { 200: { description: 'Never a password hash or a remember token.', json: ref('User') } },
    },
  },
  '/api/posts': {
    get: {
      tag: 'API',
      access: 'api',
      summary: "The user's posts, newest first (ability posts:read)",
      responses: {
        200: {
          description: 'The posts.',
          json: {
            type: 'object',
            properties: { data: { type: 'array', items: ref('Post') } },
            required: ['data'],
            additionalProperties: false,
          },
        },
        403: forbidden,
      },
    },
    post: {
      tag: 'API',
      access: 'api',
      summary: 'Write a post (ability posts:write)',
      body: bodySchema(postSchema),
      responses: {
        201: {
          description: 'The new post.',
          json: {
            type: 'object',
            properties: { data: ref('Post') },
            required: ['data'],
            additionalProperties: false,
          },
        },
        403: forbidden,
      },
    },
  },
};
