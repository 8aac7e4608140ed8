import type { FastifyInstance } from 'fastify';
import { passwordChangeSchema } from '../../../account/password-change.ts';
import { LOGIN_METHOD_KEY } from '../../../auth/login/login-method.ts';
import { withPasswordFacts } from '../../../auth/passwords/password-policy.ts';
import { ValidationError, validate, validationError } from '../../../lib/validation.ts';
import { formRoute } from '../../form-methods.ts';
import { refuseForm } from '../../pages.ts';
import { formBody, passwordCheckContext } from '../../request-context.ts';
import { pageErrors } from '../../views/forms.ts';
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
    const incorrect = t('account.current_password_incorrect');
    let input: { current_password: string; password: string };
    try {
      input = validate(withPasswordFacts(request.body, facts), passwordChangeSchema, t);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      // One pass reports every error: a new password that breaks a rule does not hide a wrong current
      // one. The current one is checked whenever it was given — counted and throttled like any other
      // password check (docs/security.md) — and nothing changes either way.
      const current = formBody(request)['current_password'];
      if (typeof current !== 'string' || current === '' || error.errors['current_password']) {
        return refuseForm(request, reply, error, render, pageErrors);
      }
      const check = await account.checkPassword(user.id, current, 'change', passwordCheckContext(request));
      if (check.status === 'throttled' || check.status === 'no_password') {
        return refusePassword(request, reply, check, 'current_password', incorrect, render);
      }
      const errors =
        check.status === 'ok' ? error.errors : { current_password: [incorrect], ...error.errors };
      return refuseForm(request, reply, validationError(errors, t, error.rules), render, pageErrors);
    }
    const session = await request.sessionOf('web').load();
    const result = await account.changePassword(
      user.id,
      input,
      request.locale,
      passwordCheckContext(request),
    );
    if (result.status !== 'ok') {
      return refusePassword(request, reply, result, 'current_password', incorrect, render);
    }
    // The new session id is against fixation, not a new sign-in: how and when the person signed in
    // (the OpenID provider's `amr` and `auth_time`) carries over.
    const method = session.get(LOGIN_METHOD_KEY);
    await session.login(user.id, session.remembered);
    if (method !== undefined) session.put(LOGIN_METHOD_KEY, method);
    return accountDone(request, reply, section, t('account.password_changed'));
  });
}
