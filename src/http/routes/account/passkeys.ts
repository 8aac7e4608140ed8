import type { FastifyInstance } from 'fastify';
import { field, rules, validate, validationError } from '../../../lib/validation.ts';
import { PASSKEY_NAME_MAX } from '../../../passkeys/passkey-deps.ts';
import type { PasskeySummary } from '../../../passkeys/passkeys.repository.ts';
import { NotFoundError } from '../../errors.ts';
import { formRoute } from '../../form-methods.ts';
import { passkeyBinding } from '../../login/passkey-session.ts';
import { expectsJson } from '../../negotiation.ts';
import { refuseForm, validateForm } from '../../pages.ts';
import { requirePasswordConfirmation } from '../../password-confirmation.ts';
import { auditContext } from '../../request-context.ts';
import { requireVerifiedEmail } from '../../verified-email.ts';
import { renameSection } from '../../views/account/sections/passkeys.ts';
import { ACCOUNT_GUARDS, accountDone, accountForm, idParam } from './support.ts';

const nameRule = field.required(rules.line(), rules.max(PASSKEY_NAME_MAX));
export const passkeyCreateSchema = {
  name: nameRule,
  // Checked by the domain (passkeys/responses.ts): missing or malformed is "could not be verified".
  credential: field.optional(),
};
export const passkeyRenameSchema = { name: nameRule };

/** docs/guides/passkeys.md's JSON shape of one passkey. */
export function passkeyJson(passkey: PasskeySummary) {
  return {
    id: passkey.id,
    name: passkey.name,
    created_at: isoTime(passkey.created_at),
    last_used_at: passkey.last_used_at === null ? null : isoTime(passkey.last_used_at),
  };
}

const isoTime = (ms: number) => new Date(ms).toISOString();

/**
 * GET /user/passkeys, GET /user/passkeys/options, POST /user/passkeys, PUT /user/passkeys/{id} (a new
 * name, as Jetstream's PUT /user/api-tokens/{id}), DELETE /user/passkeys/{id} (docs/guides/passkeys.md). All need
 * the web session and a password confirmation younger than PASSWORD_TIMEOUT: a session left open on a
 * shared computer must not be able to plant a passkey, which would outlive a password change. Whatever
 * the two-factor setting: a passkey is not gated on it (Authelia #13066).
 */
export async function passkeyRoutes(app: FastifyInstance) {
  const { passkeys, clock } = app.services;
  const confirmed = [app.requireAuth(ACCOUNT_GUARDS), requirePasswordConfirmation];
  // Registering one needs a verified address (docs/security.md), asked before the password confirmation.
  const enrolling = [app.requireAuth(ACCOUNT_GUARDS), requireVerifiedEmail, requirePasswordConfirmation];
  const section = 'passkeys';

  app.get('/user/passkeys', { preHandler: confirmed }, async (request) =>
    (await passkeys.list(request.identity!.user.id)).map(passkeyJson),
  );

  app.get('/user/passkeys/options', { preHandler: enrolling }, async (request) => {
    return passkeys.registrationOptions(request.identity!.user, passkeyBinding(request), clock.now());
  });

  formRoute(app, 'POST', '/user/passkeys', enrolling, async (request, reply) => {
    const t = request.t;
    const validated = await validateForm(
      request,
      reply,
      () => validate<{ name: string; credential?: unknown }>(request.body, passkeyCreateSchema, t),
      accountForm(request, section),
    );
    if (!validated.ok) return validated.reply;
    const { name, credential } = validated.value;
    const result = await passkeys.register(
      request.identity!.user,
      { name, credential },
      passkeyBinding(request),
      auditContext(request),
    );
    if (result.status === 'invalid') {
      const error = validationError({ credential: [t('passkeys.registration_failed')] }, t);
      return refuseForm(request, reply, error, accountForm(request, section));
    }
    if (expectsJson(request)) {
      const { id, createdAt } = result.passkey;
      return reply.code(201).send({ id, name, created_at: isoTime(createdAt) });
    }
    return accountDone(request, reply, section, t('passkeys.status_added'));
  });

  formRoute(app, 'PUT', '/user/passkeys/:id', confirmed, async (request, reply) => {
    const id = idParam(request);
    const validated = await validateForm(
      request,
      reply,
      () => validate<{ name: string }>(request.body, passkeyRenameSchema, request.t),
      accountForm(request, renameSection(id)),
    );
    if (!validated.ok) return validated.reply;
    const result = await passkeys.rename(
      request.identity!.user.id,
      id,
      validated.value.name,
      auditContext(request),
    );
    if (result === 'not_found') throw new NotFoundError();
    return accountDone(request, reply, section, request.t('passkeys.status_renamed'));
  });

  formRoute(app, 'DELETE', '/user/passkeys/:id', confirmed, async (request, reply) => {
    const id = idParam(request);
    const result = await passkeys.delete(request.identity!.user, id, auditContext(request));
    if (result === 'not_found') throw new NotFoundError();
    return accountDone(request, reply, section, request.t('passkeys.status_deleted'));
  });
}
