import type { JsonSchema } from '../../lib/validation.ts';
import { ref } from './schemas.ts';

/**
 * How a route is reached, which decides its security requirement and the refusals it can answer with:
 * - public: anyone;
 * - bearer: `Authorization: Bearer <token>` only;
 * - api: a bearer token, or the web session of an SPA on a stateful domain (docs/guides/sessions-and-spas.md);
 * - session / admin: the web (or panel) session cookie, plus the CSRF token on state changes;
 * - client: an OAuth client authenticates (client_secret_basic or _post, or none for a public client);
 * - oauthToken: a JWT access token of the OpenID Connect provider.
 */
export type Access = 'public' | 'bearer' | 'api' | 'session' | 'admin' | 'client' | 'oauthToken';

export interface Answer {
  readonly description: string;
  /** The JSON body; absent: no body (204, 302). */
  readonly json?: JsonSchema;
  /** A body that is not JSON: its media type (a string, e.g. the Prometheus text format). */
  readonly text?: string;
  readonly headers?: Record<string, string>;
}

export interface Op {
  readonly summary: string;
  readonly description?: string;
  readonly tag: string;
  readonly access: Access;
  /** docs/guides/account.md: needs a recent POST /user/confirm-password (else 423). */
  readonly confirmed?: boolean;
  /** docs/security.md: needs a verified e-mail (else 403 "Your email address is not verified."). */
  readonly verified?: boolean;
  /** The request body (JSON; `form`: also a form, as the pages post it). */
  readonly body?: JsonSchema;
  readonly form?: boolean;
  readonly query?: readonly { name: string; description: string; schema: JsonSchema }[];
  readonly responses: Readonly<Record<number, Answer>>;
  /** The OpenID Connect provider's endpoints: RFC 6749 error bodies, none of the refusals above. */
  readonly errors?: 'oauth';
}

const message = (description: string): Answer => ({ description, json: ref('Message') });

/** The answers every route of its kind can give, unless the route says otherwise. */
function refusals(op: Op, method: string): Record<number, Answer> {
  if (op.errors === 'oauth') return {};
  const changes = method !== 'get';
  const answers: Record<number, Answer> = {};
  if (op.body) {
    answers[400] = message('Malformed JSON.');
    answers[413] = message('The body is larger than the limit (1 MiB by default).');
    answers[415] = message('A body that is not JSON (or, where forms are taken, a form).');
    answers[422] = { description: 'Validation failed.', json: ref('ValidationError') };
  }
  if (op.access !== 'public') {
    answers[401] = {
      description:
        'Not authenticated (`WWW-Authenticate: Bearer realm="<APP_NAME>"`, with `error="invalid_token"` when one was sent).',
      json: ref('Message'),
    };
  }
  if (changes && op.access !== 'bearer')
    answers[419] = message('CSRF token missing or wrong ("CSRF token mismatch.").');
  if (op.verified) answers[403] = message('Your email address is not verified.');
  if (op.confirmed) answers[423] = message('Password confirmation required.');
  answers[429] = message('Too many attempts; `Retry-After` says when to try again.');
  return answers;
}

const SECURITY: Record<Access, Record<string, string[]>[]> = {
  public: [],
  bearer: [{ bearerToken: [] }],
  api: [{ bearerToken: [] }, { sessionCookie: [], xsrfHeader: [] }],
  session: [{ sessionCookie: [], xsrfHeader: [] }],
  admin: [{ adminSessionCookie: [], xsrfHeader: [] }],
  client: [{ clientSecretBasic: [] }, {}],
  oauthToken: [{ oauthAccessToken: [] }],
};

/** One OpenAPI Operation Object. */
export function operation(path: string, method: string, op: Op): JsonSchema {
  const answers = { ...refusals(op, method), ...op.responses };
  const pathParameters = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const parameters = [
    ...pathParameters,
    ...(op.query ?? []).map((q) => ({
      name: q.name,
      in: 'query',
      description: q.description,
      schema: q.schema,
    })),
  ];
  return {
    operationId: `${method}${path.replace(/\{(\w+)\}/g, 'By_$1').replace(/[^A-Za-z0-9]+(.)?/g, (_, c = '') => c.toUpperCase())}`,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [op.tag],
    security: SECURITY[op.access],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(op.body
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: op.body },
              ...(op.form ? { 'application/x-www-form-urlencoded': { schema: op.body } } : {}),
            },
          },
        }
      : {}),
    responses: {
      ...Object.fromEntries(
        Object.entries(answers).map(([status, answer]) => [
          status,
          {
            description: answer.description,
            ...(answer.headers
              ? {
                  headers: Object.fromEntries(
                    Object.entries(answer.headers).map(([name, description]) => [
                      name,
                      { description, schema: { type: 'string' } },
                    ]),
                  ),
                }
              : {}),
            ...(answer.json ? { content: { 'application/json': { schema: answer.json } } } : {}),
            ...(answer.text ? { content: { [answer.text]: { schema: { type: 'string' } } } } : {}),
          },
        ]),
      ),
      default:
        op.errors === 'oauth'
          ? {
              description: 'Any other refusal: an RFC 6749 error.',
              content: { 'application/json': { schema: ref('OAuthError') } },
            }
          : {
              description: "Any other refusal, in docs/reference/errors.md's shape.",
              content: { 'application/json': { schema: ref('Error') } },
            },
    },
  };
}
