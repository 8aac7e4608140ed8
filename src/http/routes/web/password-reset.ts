import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  forgotPasswordSchema,
  type LinkRefusal,
  type ResetInput,
  resetPasswordSchema,
} from '../../../auth/password-reset/password-reset.ts';
import { withPasswordFacts } from '../../../auth/passwords/password-policy.ts';
import { isEmail, validate, validationError } from '../../../lib/validation.ts';
import { expectsJson } from '../../negotiation.ts';
import { sendPage, validateForm } from '../../pages.ts';
import { auditContext, formBody } from '../../request-context.ts';
import type { ThrottledForm } from '../../throttled-form.ts';
import { type FormState, formState } from '../../views/forms.ts';
import { forgotPasswordPage } from '../../views/pages/forgot-password.ts';
import { resetPasswordPage } from '../../views/pages/reset-password.ts';

/**
 * GET/POST /forgot-password, GET /reset-password/{token}?email=, POST /reset-password (docs/guides/sessions-and-spas.md).
 * The reset token travels in the URL path, so its pages send `Referrer-Policy: no-referrer` (no link
 * or sub-resource on them can leak it) and the request log redacts that path segment.
 */
export async function passwordResetRoutes(app: FastifyInstance) {
  const { passwordReset } = app.services.auth;
  // Reset requests finish after their response (see POST /forgot-password); shutdown waits for them.
  const pending = new Set<Promise<void>>();
  app.addHook('onClose', async () => {
    await Promise.allSettled(pending);
  });

  const renderForgot = async (request: FastifyRequest, state: FormState, status?: unknown) => {
    const session = await request.sessionOf('web').load();
    return forgotPasswordPage(request, state, session.csrfToken(), status ?? session.flashed('status'));
  };

  // ?email= fills the field in (the "send me a new link" button of a dead reset link carries it).
  app.get<{ Querystring: { email?: unknown } }>('/forgot-password', async (request, reply) => {
    const email = typeof request.query.email === 'string' ? request.query.email.slice(0, 255) : '';
    return sendPage(reply, await renderForgot(request, email === '' ? {} : { old: { email } }));
  });

  const forgotForm: ThrottledForm = {
    message: 'auth.throttle_forgot',
    busy: 'auth.busy_password',
    field: 'email',
    render: renderForgot,
  };
  app.post(
    '/forgot-password',
    { preHandler: app.authBudget, config: { throttledForm: forgotForm } },
    async (request, reply) => {
      const validated = await validateForm(
        request,
        reply,
        () => validate<{ email: string }>(request.body, forgotPasswordSchema, request.t),
        (state) => renderForgot(request, state),
      );
      if (!validated.ok) return validated.reply;
      // No user enumeration, by answer or by time: the answer is fixed, and the work that happens only
      // for a known address (token, mail, audit) starts once the response has been sent, so it can
      // neither delay nor shape it. A failure there is logged, never shown.
      const { email } = validated.value;
      const audit = auditContext(request);
      let started = false;
      const start = () => {
        if (started) return;
        started = true;
        const task: Promise<void> = passwordReset
          .request(email, request.locale, audit)
          .then(() => undefined)
          .catch((error: unknown) => request.log.error({ err: error }, 'password reset request failed'))
          .finally(() => pending.delete(task));
        pending.add(task);
      };
      // setImmediate: after the reply's own callbacks, so not even the event loop is shared with it.
      reply.raw.once('finish', () => setImmediate(start));
      reply.raw.once('close', () => setImmediate(start));
      const status = request.t('passwords.sent');
      if (expectsJson(request)) return reply.send({ message: status });
      const session = await request.sessionOf('web').load();
      session.flash('status', status);
      return reply.redirect('/forgot-password');
    },
  );

  const renderReset = async (request: FastifyRequest, state: FormState, token: string, dead = false) => {
    const session = await request.sessionOf('web').load();
    return resetPasswordPage(request, state, session.csrfToken(), token, dead);
  };

  app.get<{ Params: { token: string }; Querystring: { email?: unknown } }>(
    '/reset-password/:token',
    async (request, reply) => {
      reply.header('referrer-policy', 'no-referrer');
      const email = typeof request.query.email === 'string' ? request.query.email : '';
      const { token } = request.params;
      // A link that cannot work (expired, used, or for another address) says so before any typing.
      // (isEmail first: it refuses control characters, which PostgreSQL would refuse as a query.)
      const refusal =
        email === ''
          ? null
          : isEmail(email)
            ? await passwordReset.linkRefusal(email, token, app.services.clock.now())
            : 'unknown_address';
      if (refusal !== null) logRefusal(request, refusal);
      return sendPage(reply, await renderReset(request, { old: { email } }, token, refusal !== null));
    },
  );

  app.post(
    '/reset-password',
    {
      // Before the budget: a refused form (the token in it) is sent without a referrer too.
      onRequest: async (_request, reply) => {
        reply.header('referrer-policy', 'no-referrer');
      },
      preHandler: app.authBudget,
      config: {
        throttledForm: {
          message: 'auth.throttle_reset',
          busy: 'auth.busy_password',
          field: 'email',
          // The link's token stays in the form: trying again needs no new mail.
          render: (request: FastifyRequest, state: FormState) => {
            const token = formBody(request)['token'];
            return renderReset(request, state, typeof token === 'string' ? token : '');
          },
        },
      },
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      reply.header('referrer-policy', 'no-referrer');
      const t = request.t;
      const submitted = formBody(request)['token'];
      const token = typeof submitted === 'string' ? submitted : '';
      const validated = await validateForm(
        request,
        reply,
        // The form's address and APP_NAME here; the account's name once the link is proven (resetPassword).
        () =>
          validate<ResetInput>(
            withPasswordFacts(request.body, { appName: app.services.config.appName }),
            resetPasswordSchema,
            t,
          ),
        (state) => renderReset(request, state, token),
      );
      if (!validated.ok) return validated.reply;
      const result = await passwordReset.reset(validated.value, request.locale, auditContext(request));
      if (result.status === 'invalid') logRefusal(request, result.reason);
      if (result.status !== 'reset') {
        const error =
          result.status === 'weak'
            ? validationError(
                { password: [t(result.failure.key, { attribute: t('validation.attributes.password') })] },
                t,
              )
            : validationError({ email: [t('passwords.token')] }, t);
        if (expectsJson(request)) throw error;
        return sendPage(
          reply,
          await renderReset(request, formState(formBody(request), error.errors), token),
          422,
        );
      }
      const status = t('passwords.reset');
      if (expectsJson(request)) return reply.send({ message: status });
      // Loaded only now: the reset ended this browser's session too, so the flash lands in a new one.
      const session = await request.sessionOf('web').load();
      session.flash('status', status);
      return reply.redirect('/login');
    },
  );
}

/**
 * Why a reset link was refused, in the server's log only (auth/password-reset: LinkRefusal). The answer
 * says "invalid" for every reason, so it cannot tell a caller which addresses have accounts; the log line
 * tells an operator (and a test) why a user's link did not work. It holds no token and no address.
 */
function logRefusal(request: FastifyRequest, reason: LinkRefusal) {
  request.log.info({ reset_link: reason }, 'password reset link refused');
}
