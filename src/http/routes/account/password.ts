import type { FastifyInstance } from 'fastify';
import { passwordChangeSchema } from '../../../account/password-change.ts';
import { withPasswordFacts } from '../../../auth/passwords/password-policy.ts';
import { validate } from '../../../lib/validation.ts';
import { formRoute } from '../../form-methods.ts';
import { validateForm } from '../../pages.ts';
import { passwordCheckContext } from '../../request-context.ts';
import { ACCOUNT_GUARDS, accountDone, accountForm, refusePassword } from './support.ts';

/**
 * PUT /user/password (docs/guides/account.md). The use case ends every session and remember-me token of the
 * user; this browser is then signed in again under a fresh id (BrowserSession.login), keeping a
 * remember-me cookie only if it had one — a new one, since the old token is gone.
 */
export async function passwordRoutes(app: FastifyInstance) {
  const { account } = app.services;
  const section = 'password';

  // A password check like any other: inside the per-IP auth budget (docs/security.md).
  const preHandler = [app.requireAuth(ACCOUNT_GUARDS), app.authBudget];
  formRoute(app, 'PUT', '/user/password', preHandler, async (request, reply) => {
    const t = request.t;
    const render = accountForm(request, section);
    const user = request.identity!.user;
    // The new password is judged against this account's address and name too (docs/security.md).
    const facts = { appName: app.services.config.appName, email: user.email, name: user.name };
    const validated = await validateForm(
      request,
      reply,
      () =>
        validate<{ current_password: string; password: string }>(
          withPasswordFacts(request.body, facts),
          passwordChangeSchema,
          t,
        ),
      render,
    );
    if (!validated.ok) return validated.reply;
    const session = await request.sessionOf('web').load();
    const result = await account.changePassword(
      user.id,
      validated.value,
      request.locale,
      passwordCheckContext(request),
    );
    if (result.status !== 'ok') {
      const message = t('account.current_password_incorrect');
      return refusePassword(request, reply, result, 'current_password', message, render);
    }
    await session.login(user.id, session.remembered);
    return accountDone(request, reply, section, t('account.password_changed'));
  });
}
