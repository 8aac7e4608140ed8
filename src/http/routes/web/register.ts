import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LOGIN_METHOD_KEY, type LoginMethod } from '../../../auth/login/login-method.ts';
import { withPasswordFacts } from '../../../auth/passwords/password-policy.ts';
import { validate } from '../../../lib/validation.ts';
import { type RegistrationInput, registrationSchema } from '../../../users/registration.ts';
import { expectsJson } from '../../negotiation.ts';
import { emailTaken, refuseForm, sendPage, validateForm } from '../../pages.ts';
import { redirectIfAuthenticated } from '../../plugins/auth.ts';
import { auditContext } from '../../request-context.ts';
import type { FormState } from '../../views/forms.ts';
import { providerButtons } from '../../views/login-providers.ts';
import { registerPage } from '../../views/pages/register.ts';

/** GET/POST /register (docs/guides/sessions-and-spas.md): success logs the new user in and goes to /dashboard. */
export async function registerRoutes(app: FastifyInstance) {
  const { services } = app;
  const render = async (request: FastifyRequest, state: FormState) =>
    registerPage(
      request,
      state,
      (await request.sessionOf('web').load()).csrfToken(),
      providerButtons(request.t, services.identities.providers.available),
    );

  app.get(
    '/register',
    { preHandler: redirectIfAuthenticated('web', services.config.loginRedirect) },
    async (request, reply) => sendPage(reply, await render(request, {})),
  );

  app.post(
    '/register',
    {
      preHandler: app.authBudget,
      config: {
        throttledForm: {
          message: 'auth.throttle_register',
          busy: 'auth.busy_password',
          field: 'email',
          render,
        },
      },
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const t = request.t;
      const validated = await validateForm(
        request,
        reply,
        () =>
          validate<Omit<RegistrationInput, 'locale'>>(
            withPasswordFacts(request.body, { appName: services.config.appName }),
            registrationSchema,
            t,
          ),
        (state) => render(request, state),
      );
      if (!validated.ok) return validated.reply;
      // The verification mail is queued in the registration's transaction (services.ts).
      const result = await services.users.register(
        { ...validated.value, locale: request.locale },
        auditContext(request),
      );
      if (result.status === 'email_taken') {
        return refuseForm(request, reply, emailTaken(t), (state) => render(request, state));
      }
      const session = await request.sessionOf('web').load();
      await session.login(result.user.id, false);
      // Signed in with the password just chosen: the OpenID provider's `amr` and `auth_time` say so.
      const method: LoginMethod = { proof: 'password', secondFactor: false, at: services.clock.now() };
      session.put(LOGIN_METHOD_KEY, method);
      session.flash('status', t('pages.registered_sent', { email: result.user.email }));
      if (expectsJson(request)) return reply.code(204).send();
      return reply.redirect('/dashboard');
    },
  );
}
