import type { FastifyInstance } from 'fastify';
import { ABILITY_PATTERN } from '../../../auth/abilities.ts';
import { issueAccessToken, listAccessTokens, revokeAccessTokens } from '../../../auth/access-tokens.ts';
import { attemptLogin } from '../../../auth/login.ts';
import { field, rules, validate, validationError } from '../../../lib/validation.ts';
import { iso, toPublicUser } from '../../../users/user.ts';
import { HttpError, NotFoundError, TooManyRequestsError } from '../../errors.ts';
import { apiAuth, apiThrottle, auditContext, requireJson } from './support.ts';

const MAX_EXPIRES_IN = 10 * 365 * 24 * 3600;

const issueSchema = {
  email: field.required(rules.string(), rules.email(), rules.max(255)),
  password: field.required(rules.string(), rules.max(4096)),
  device_name: field.required(rules.line(), rules.max(255)),
  abilities: field.optional(
    rules.array(),
    rules.max(100),
    // Bounded in length too: 100 abilities of any size would let one login store a megabyte per token.
    rules.custom((v) =>
      (v as unknown[]).every((a) => typeof a === 'string' && a.length <= 255 && ABILITY_PATTERN.test(a))
        ? undefined
        : { key: 'validation.format' },
    ),
  ),
  expires_in: field.optional(rules.integer(1, MAX_EXPIRES_IN)),
};

const deleteByNameSchema = { name: field.required(rules.line(), rules.max(255)) };

interface IssueInput {
  email: string;
  password: string;
  device_name: string;
  abilities?: string[];
  expires_in?: number;
}

export async function tokenRoutes(app: FastifyInstance) {
  const { services } = app;
  const throttle = apiThrottle(app);
  const authenticated = apiAuth(app);
  const provider = app.userProviders.get('users')!;

  app.post(
    '/api/tokens',
    { preHandler: throttle ? [throttle, requireJson] : [requireJson] },
    async (request, reply) => {
      const input = validate<IssueInput>(request.body, issueSchema, request.t);
      const audit = auditContext(request);
      const login = await attemptLogin(
        {
          db: services.database.db,
          hasher: services.hasher,
          limiter: services.limiter,
          limit: { max: services.config.loginMaxAttempts, windowSeconds: services.config.loginDecaySeconds },
        },
        provider,
        'api',
        input,
        audit,
      );
      if (login.status === 'throttled') {
        throw new TooManyRequestsError(login.retryAfterSeconds, 'auth.throttle', {
          seconds: login.retryAfterSeconds,
        });
      }
      if (login.status === 'failed') throw new HttpError(401, 'GH_BAD_CREDENTIALS', 'auth.token_failed');
      const { plainText } = await issueAccessToken(
        services.database.db,
        services.tokens,
        {
          userId: login.user.id,
          name: input.device_name,
          abilities: input.abilities ? [...new Set(input.abilities)] : ['*'],
          expiresInSeconds: input.expires_in ?? null,
        },
        { ...audit, actorId: login.user.id },
      );
      const { id, name, email } = toPublicUser(login.user);
      return reply.send({ token: plainText, user: { id, name, email } });
    },
  );

  app.get('/api/tokens', { preHandler: authenticated }, async (request) => {
    const tokens = await listAccessTokens(services.database.db, services.tokens, request.identity!.user.id);
    return {
      data: tokens.map((t) => ({
        id: t.id,
        name: t.name,
        abilities: t.abilities,
        last_used_at: iso(t.lastUsedAt),
        expires_at: iso(t.expiresAt),
        created_at: iso(t.createdAt),
      })),
    };
  });

  app.delete('/api/tokens/current', { preHandler: authenticated }, async (request, reply) => {
    const { user, token } = request.identity!;
    // A session-authenticated SPA request has no token to revoke (Sanctum's TransientToken).
    if (token)
      await revokeAccessTokens(services.database.db, user.id, { id: token.id }, auditContext(request));
    return reply.code(204).send();
  });

  app.delete<{ Params: { id: string } }>(
    '/api/tokens/:id',
    { preHandler: authenticated },
    async (request, reply) => {
      const id = /^[1-9][0-9]{0,9}$/.test(request.params.id) ? Number(request.params.id) : 0;
      const user = request.identity!.user;
      if (id === 0 || id > 2_147_483_647) throw new NotFoundError();
      const count = await revokeAccessTokens(services.database.db, user.id, { id }, auditContext(request));
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
      await revokeAccessTokens(services.database.db, user.id, { name }, auditContext(request));
    } else {
      await revokeAccessTokens(services.database.db, user.id, { all: true }, auditContext(request));
    }
    return reply.code(204).send();
  });
}
