import type { FastifyInstance, FastifyRequest } from 'fastify';
import { expectsJson } from '../../negotiation.ts';
import { sendPage } from '../../pages.ts';
import { markPasswordConfirmed, passwordConfirmed } from '../../password-confirmation.ts';
import { passwordCheckContext, safeLocalPath } from '../../request-context.ts';
import { confirmPasswordPage } from '../../views/account/confirm-password.ts';
import type { FormState } from '../../views/forms.ts';
import { ACCOUNT_GUARDS, refusePassword, validatePasswordForm } from './support.ts';

/**
 * GET/POST /user/confirm-password and GET /user/confirmed-password-status (docs/guides/account.md). Success
 * stamps the session for PASSWORD_TIMEOUT seconds and returns to the intended URL (JSON 204); a
 * wrong password is 422 on `password` and counts toward the login throttle.
 */
export async function confirmPasswordRoutes(app: FastifyInstance) {
  const { account } = app.services;
  const guard = app.requireAuth(ACCOUNT_GUARDS);

  const render = (request: FastifyRequest, state: FormState) => {
    const session = request.sessionOf('web');
    return confirmPasswordPage(request, state, {
      name: request.identity!.user.name,
      csrfToken: session.csrfToken(),
    });
  };

  app.get('/user/confirm-password', { preHandler: [guard] }, async (request, reply) =>
    sendPage(reply, render(request, {})),
  );

  // The per-IP auth budget (docs/security.md) before the password is hashed.
  const throttledForm = {
    message: 'auth.throttle_confirm',
    busy: 'auth.busy_password',
    field: 'password',
    render,
  };
  app.post(
    '/user/confirm-password',
    { preHandler: [guard, app.authBudget], config: { throttledForm } },
    async (request, reply) => {
      const validated = await validatePasswordForm(request, reply, (state) => render(request, state));
      if (!validated.ok) return validated.reply;
      const user = request.identity!.user;
      const check = await account.confirmPassword(
        user.id,
        validated.value.password,
        passwordCheckContext(request),
      );
      if (check.status !== 'ok') {
        const message = request.t('account.password_incorrect');
        return refusePassword(request, reply, check, 'password', message, (state) => render(request, state));
      }
      await markPasswordConfirmed(request);
      if (expectsJson(request)) return reply.code(204).send();
      return reply.redirect(safeLocalPath(request.intendedUrl('web').take(reply, user.id), '/profile'));
    },
  );

  app.get('/user/confirmed-password-status', { preHandler: [guard] }, async (request) => ({
    confirmed: await passwordConfirmed(request),
  }));
}
