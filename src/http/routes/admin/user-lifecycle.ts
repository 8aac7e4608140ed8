import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { inviteSchema } from '../../../admin/user-lifecycle.ts';
import { validate } from '../../../lib/validation.ts';
import { NotFoundError } from '../../errors.ts';
import { expectsJson } from '../../negotiation.ts';
import { emailTaken, refuseForm, sendPage, validateForm } from '../../pages.ts';
import { auditContext } from '../../request-context.ts';
import { inviteUserPage } from '../../views/admin/user-invite.ts';
import type { FormState } from '../../views/forms.ts';
import { finishAction, idParam, refuseWithoutAdminPassword } from './support.ts';

/** Wrong confirmation passwords an admin may type per minute before the panel stops checking them. */

/**
 * The panel's account lifecycle (Filament-like): invite a new user, mail a user a password reset or
 * a verification link, delete a user (with the admin's own password). Every one is a POST behind
 * the admin guard and the admin session's CSRF token, runs one use case (services.admin, wired in
 * services.ts) that audits in its transaction, and ends with a translated message.
 */
export async function adminLifecycleRoutes(app: FastifyInstance) {
  const { services } = app;
  const preHandler = app.requireAuth(['admin']);

  const render = (request: FastifyRequest, state: FormState) =>
    inviteUserPage(request, state, request.sessionOf('admin').csrfToken());

  app.get('/admin/users/new', { preHandler }, async (request, reply) => sendPage(reply, render(request, {})));

  app.post('/admin/users', { preHandler }, async (request, reply) => {
    const t = request.t;
    const validated = await validateForm(
      request,
      reply,
      () => validate<{ name: string; email: string }>(request.body, inviteSchema, t),
      (state) => render(request, state),
    );
    if (!validated.ok) return validated.reply;
    // The invitation is written in the language the admin is using; the user can switch later.
    const result = await services.admin.invite(
      { ...validated.value, locale: request.locale },
      auditContext(request),
    );
    if (result.status === 'email_taken') {
      return refuseForm(request, reply, emailTaken(t), (state) => render(request, state));
    }
    if (expectsJson(request)) {
      return reply
        .code(201)
        .send({ message: t('admin.flash.invited', { email: result.user.email }), id: result.user.id });
    }
    return finishAction(request, reply, `/admin/users/${result.user.id}`, {
      kind: 'ok',
      text: t('admin.flash.invited', { email: result.user.email }),
    });
  });

  /** The target user (404 if none). */
  async function target(request: FastifyRequest) {
    const id = idParam((request.params as Record<string, unknown>)['id']);
    const row = await services.admin.findUser(id);
    if (row === undefined) throw new NotFoundError();
    return { row, back: `/admin/users/${id}` };
  }

  app.post('/admin/users/:id/password-reset-link', { preHandler }, async (request, reply) => {
    const { row, back } = await target(request);
    const t = request.t;
    if (row.disabled_at !== null) {
      return finishAction(
        request,
        reply,
        back,
        { kind: 'error', text: t('admin.flash.reset_disabled') },
        409,
      );
    }
    // The user's own language: they read the mail, not the admin. Audited as password.reset_requested
    // with this admin as the actor; at most one mail a minute per address, as for the public form.
    const sent = await services.auth.passwordReset.request(row.email, row.locale, auditContext(request));
    const flash = sent
      ? { kind: 'ok' as const, text: t('admin.flash.reset_sent', { email: row.email }) }
      : { kind: 'error' as const, text: t('admin.flash.reset_throttled', { email: row.email }) };
    return finishAction(request, reply, back, flash, 429);
  });

  app.post('/admin/users/:id/verification-link', { preHandler }, async (request, reply) => {
    const { row, back } = await target(request);
    const t = request.t;
    const result = await services.admin.sendVerificationLink(row.id, auditContext(request));
    if (result === 'not_found') throw new NotFoundError();
    const flash =
      result === 'sent'
        ? { kind: 'ok' as const, text: t('admin.flash.verification_sent', { email: row.email }) }
        : { kind: 'ok' as const, text: t('admin.flash.already_verified', { email: row.email }) };
    return finishAction(request, reply, back, flash);
  });

  app.post('/admin/users/:id/delete', { preHandler }, async (request, reply: FastifyReply) => {
    const { row, back } = await target(request);
    const t = request.t;
    const refuse = (text: string, status: number) =>
      finishAction(request, reply, back, { kind: 'error', text }, status);
    // Destroying an account needs the admin's own password, now (support.ts).
    const refused = await refuseWithoutAdminPassword(request, reply, back);
    if (refused !== null) return refused;
    const result = await services.admin.deleteUser(row.id, auditContext(request));
    if (result === 'not_found') throw new NotFoundError();
    if (result === 'self') return refuse(t('admin.flash.self_delete'), 403);
    if (result === 'owner') return refuse(t('admin.flash.owner_delete'), 403);
    if (result === 'last_admin') return refuse(t('admin.flash.last_admin_delete'), 403);
    return finishAction(request, reply, '/admin/users', {
      kind: 'ok',
      text: t('admin.flash.deleted', { email: row.email }),
    });
  });
}
