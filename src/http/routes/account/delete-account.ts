import type { FastifyInstance } from 'fastify';
import { validationError } from '../../../lib/validation.ts';
import { formRoute } from '../../form-methods.ts';
import { expectsJson } from '../../negotiation.ts';
import { refuseForm } from '../../pages.ts';
import { passwordCheckContext } from '../../request-context.ts';
import { ACCOUNT_ERROR } from '../../views/account/sections/delete-account.ts';
import { ACCOUNT_GUARDS, accountForm, refusePassword, validatePasswordForm } from './support.ts';

/**
 * DELETE /user (docs/guides/account.md), also as a form POST with `_method=DELETE`: the password (422 when
 * wrong, counted like a login attempt), then everything of the account goes in one transaction
 * (account/account-deletion.ts). This browser is signed out with it: its session and remember-me rows
 * went in that transaction, and the cookies are replaced here. 302 / with a goodbye line (JSON 204).
 */
export async function deleteAccountRoutes(app: FastifyInstance) {
  const { account } = app.services;
  const section = 'delete-account';

  // A password check like any other: inside the per-IP auth budget (docs/security.md).
  const preHandler = [app.requireAuth(ACCOUNT_GUARDS), app.authBudget];
  formRoute(app, 'DELETE', '/user', preHandler, async (request, reply) => {
    const t = request.t;
    const render = accountForm(request, section);
    const validated = await validatePasswordForm(request, reply, render);
    if (!validated.ok) return validated.reply;
    const result = await account.deleteAccount(
      request.identity!.user.id,
      validated.value.password,
      request.locale,
      passwordCheckContext(request),
    );
    if (result.status === 'failed' || result.status === 'throttled' || result.status === 'no_password') {
      return refusePassword(request, reply, result, 'password', t('account.password_incorrect'), render);
    }
    if (result.status === 'owner' || result.status === 'last_admin') {
      const message = t(result.status === 'owner' ? 'account.owner_account' : 'account.last_admin');
      return refuseForm(request, reply, validationError({ [ACCOUNT_ERROR]: [message] }, t), render);
    }
    // 'deleted', or 'not_found': a concurrent request deleted it first. Gone either way.
    const session = await request.sessionOf('web').load();
    await session.forget();
    if (expectsJson(request)) return reply.code(204).send();
    session.flash('status', t('account.account_deleted'));
    return reply.redirect('/');
  });
}
