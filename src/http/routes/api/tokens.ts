import type { FastifyInstance } from 'fastify';
import { ABILITY_PATTERN } from '../../../auth/tokens/abilities.ts';
import { parseId } from '../../../db/ids.ts';
import { field, rules, validate, validationError } from '../../../lib/validation.ts';
import type { Proof } from '../../../two-factor/two-factor.ts';
import { HttpError, NotFoundError, TooManyRequestsError } from '../../errors.ts';
import { auditContext } from '../../request-context.ts';
import { tokenJson } from '../../token-json.ts';
import { apiAuth, apiThrottle, requireJson } from './support.ts';

const MAX_EXPIRES_IN = 10 * 365 * 24 * 3600;

export const issueSchema = {
  email: field.required(rules.string(), rules.email(), rules.max(255)),
  password: field.required(rules.string(), rules.max(4096)),
  device_name: field.required(rules.line(), rules.max(255)),
  abilities: field.optional(
    rules.array(),
    rules.max(100),
    // Bounded in length too: 100 abilities of any size would let one login store a megabyte per token.
    rules.custom(
      (v) =>
        (v as unknown[]).every((a) => typeof a === 'string' && a.length <= 255 && ABILITY_PATTERN.test(a))
          ? undefined
          : { key: 'validation.format' },
      { items: { type: 'string', maxLength: 255, pattern: ABILITY_PATTERN.source } },
    ),
  ),
  expires_in: field.optional(rules.integer(1, MAX_EXPIRES_IN)),
  // The second factor (docs/guides/two-factor.md), read only for a user with two-factor on.
  code: field.optional(rules.string(), rules.max(64)),
  recovery_code: field.optional(rules.string(), rules.max(64)),
};

export const deleteByNameSchema = { name: field.required(rules.line(), rules.max(255)) };

interface IssueInput {
  email: string;
  password: string;
  device_name: string;
  abilities?: string[];
  expires_in?: number;
  code?: string;
  recovery_code?: string;
}

/** The code, or else the recovery code, a client sent with its credentials. */
function secondFactor(input: IssueInput): Proof | undefined {
  if (input.code !== undefined) return { code: input.code };
  if (input.recovery_code !== undefined) return { recoveryCode: input.recovery_code };
  return undefined;
}

/** POST /api/tokens (credentials → token), GET /api/tokens, and the revocations (docs/guides/api-tokens.md). */
export async function tokenRoutes(app: FastifyInstance) {
  const { tokens } = app.services.auth;
  const throttle = apiThrottle(app);
  const authenticated = apiAuth(app);

  app.post(
    '/api/tokens',
    {
      preHandler: throttle ? [throttle, app.authBudget, requireJson] : [app.authBudget, requireJson],
      config: { loginGuard: 'api' },
    },
    async (request, reply) => {
      const input = validate<IssueInput>(request.body, issueSchema, request.t);
      const result = await tokens.issueWithPassword(
        {
          email: input.email,
          password: input.password,
          deviceName: input.device_name,
          abilities: input.abilities ? [...new Set(input.abilities)] : ['*'],
          expiresInSeconds: input.expires_in ?? null,
          proof: secondFactor(input),
        },
        auditContext(request),
      );
      if (result.status === 'throttled') {
        throw new TooManyRequestsError(result.retryAfterSeconds, 'auth.throttle', {
          seconds: result.retryAfterSeconds,
        });
      }
      if (result.status === 'failed') throw new HttpError(401, 'GH_BAD_CREDENTIALS', 'auth.token_failed');
      if (result.status === 'two_factor_required' || result.status === 'two_factor_invalid') {
        const [field, key] =
          result.status === 'two_factor_required'
            ? ['code', 'two_factor.code_required']
            : [result.field, `two_factor.${result.field}_invalid`];
        const error = validationError({ [field]: [request.t(key)] }, request.t);
        // `two_factor: true` tells a client (Fortify's SPA convention) to ask the user for a code.
        return reply.code(422).send({ message: error.summary, errors: error.errors, two_factor: true });
      }
      const { id, name, email } = result.user;
      return reply.send({ token: result.plainText, user: { id, name, email } });
    },
  );

  app.get('/api/tokens', { preHandler: authenticated }, async (request) => ({
    data: (await tokens.list(request.identity!.user.id)).map(tokenJson),
  }));

  app.delete('/api/tokens/current', { preHandler: authenticated }, async (request, reply) => {
    const { user, token } = request.identity!;
    // A session-authenticated SPA request has no token to revoke (Sanctum's TransientToken).
    if (token) await tokens.revoke(user.id, { id: token.id }, auditContext(request));
    return reply.code(204).send();
  });

  app.delete<{ Params: { id: string } }>(
    '/api/tokens/:id',
    { preHandler: authenticated },
    async (request, reply) => {
      const id = parseId(request.params.id);
      if (id === null) throw new NotFoundError();
      const count = await tokens.revoke(request.identity!.user.id, { id }, auditContext(request));
      if (count === 0) throw new NotFoundError();
      return reply.code(204).send();
    },
  );

  app.delete('/api/tokens', { preHandler: authenticated }, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const user = request.identity!.user;
    // "Log out everywhere" must be asked for exactly: a misspelt or bracketed parameter (nmae=, name[]=)
    // is refused rather than falling through to deleting every token.
    const unexpected = Object.keys(query).filter((key) => key !== 'name' && key !== 'lang');
    if (unexpected.length > 0) {
      const errors = unexpected.map((key) => [key, [request.t('validation.prohibited', { attribute: key })]]);
      throw validationError(Object.fromEntries(errors), request.t);
    }
    if (query['name'] !== undefined) {
      // The rules of device_name: a name with control characters (NUL would make PostgreSQL fail
      // the query) cannot match any token, so it is refused like any other malformed value.
      const { name } = validate<{ name: string }>(query, deleteByNameSchema, request.t);
      await tokens.revoke(user.id, { name }, auditContext(request));
    } else {
      await tokens.revoke(user.id, { all: true }, auditContext(request));
    }
    return reply.code(204).send();
  });
}
