import type { FastifyInstance, FastifyReply } from 'fastify';
import { abilitiesSchema, chosenAbilities, createTokenSchema } from '../../../account/api-tokens.ts';
import { validate } from '../../../lib/validation.ts';
import { NotFoundError } from '../../errors.ts';
import { formRoute } from '../../form-methods.ts';
import { expectsJson } from '../../negotiation.ts';
import { validateForm } from '../../pages.ts';
import { auditContext } from '../../request-context.ts';
import { tokenJson } from '../../token-json.ts';
import { editAbilitiesForm, NEW_TOKEN_FLASH } from '../../views/account/sections/api-tokens.ts';
import { ACCOUNT_GUARDS, accountDone, accountForm, idParam } from './support.ts';

/**
 * GET/POST /user/api-tokens, PUT/DELETE /user/api-tokens/{id} (docs/guides/account.md): tokens made in the
 * browser with abilities from TOKEN_ABILITIES, so nobody has to send their password to /api/tokens.
 * The plaintext is shown once: JSON gets it in the 201, a browser on the next page view only
 * (flashed, so a reload does not show it again).
 */
export async function apiTokenRoutes(app: FastifyInstance) {
  const { account, auth } = app.services;
  const web = app.requireAuth(ACCOUNT_GUARDS);
  const section = 'api-tokens';
  const catalogue = account.tokenCatalogue;

  app.get('/user/api-tokens', { preHandler: [web] }, async (request) => ({
    data: (await auth.tokens.list(request.identity!.user.id)).map(tokenJson),
  }));

  formRoute(app, 'POST', '/user/api-tokens', [web], async (request, reply: FastifyReply) => {
    const validated = await validateForm(
      request,
      reply,
      () =>
        validate<{ name: string; abilities?: unknown; expires_in?: number | null }>(
          request.body,
          createTokenSchema(catalogue),
          request.t,
        ),
      accountForm(request, section),
    );
    if (!validated.ok) return validated.reply;
    const input = validated.value;
    const { token, plainText } = await account.createToken(
      request.identity!.user.id,
      {
        name: input.name,
        abilities: chosenAbilities(catalogue, input.abilities),
        expiresInSeconds: input.expires_in ?? null,
      },
      auditContext(request),
    );
    if (expectsJson(request)) {
      const { last_used_at: _unused, ...accessToken } = tokenJson(token);
      return reply.code(201).send({ token: plainText, accessToken });
    }
    const session = await request.sessionOf('web').load();
    session.flash(NEW_TOKEN_FLASH, plainText);
    return accountDone(request, reply, section, request.t('account.token_created'));
  });

  formRoute(app, 'PUT', '/user/api-tokens/:id', [web], async (request, reply) => {
    const id = idParam(request);
    const validated = await validateForm(
      request,
      reply,
      () => validate<{ abilities?: unknown }>(request.body, abilitiesSchema(catalogue), request.t),
      accountForm(request, editAbilitiesForm(id)),
    );
    if (!validated.ok) return validated.reply;
    const abilities = chosenAbilities(catalogue, validated.value.abilities);
    const result = await account.updateTokenAbilities(
      request.identity!.user.id,
      id,
      abilities,
      auditContext(request),
    );
    if (result === 'not_found') throw new NotFoundError();
    return accountDone(request, reply, section, request.t('account.token_updated'));
  });

  formRoute(app, 'DELETE', '/user/api-tokens/:id', [web], async (request, reply) => {
    const id = idParam(request);
    const result = await account.revokeToken(request.identity!.user.id, id, auditContext(request));
    if (result === 'not_found') throw new NotFoundError();
    return accountDone(request, reply, section, request.t('account.token_revoked'));
  });
}
