import type { FastifyInstance } from 'fastify';
import { profileSchema } from '../../../account/email-change.ts';
import { validate, validationError } from '../../../lib/validation.ts';
import { normaliseEmail } from '../../../users/user.ts';
import { ForbiddenError, TooManyRequestsError } from '../../errors.ts';
import { formRoute } from '../../form-methods.ts';
import { expectsJson } from '../../negotiation.ts';
import { emailTaken, refuseForm, sendPage, validateForm } from '../../pages.ts';
import { auditContext, formBody } from '../../request-context.ts';
import { RESEND_LIMIT, resendKey } from '../../verification-notice.ts';
import { formState } from '../../views/forms.ts';
import { ACCOUNT_GUARDS, accountDone, accountForm } from './support.ts';

/**
 * PUT /user/profile-information (name at once; a new address pending until its link is opened),
 * DELETE /user/pending-email (cancel that), GET /email/change/{id}/{hash} (the link). docs/guides/account.md.
 */
export async function profileInformationRoutes(app: FastifyInstance) {
  const { account } = app.services;
  const web = app.requireAuth(ACCOUNT_GUARDS);
  const section = 'profile-information';

  formRoute(app, 'PUT', '/user/profile-information', [web], async (request, reply) => {
    const t = request.t;
    const render = accountForm(request, section);
    const validated = await validateForm(
      request,
      reply,
      () => validate<{ name: string; email: string }>(request.body, profileSchema, t),
      render,
    );
    if (!validated.ok) return validated.reply;
    const user = request.identity!.user;
    // Correcting an unverified address mails a verification link at once: it draws on the resend
    // button's budget, so the notice's form cannot send a link to address after address.
    if (user.emailVerifiedAt === null && normaliseEmail(validated.value.email) !== user.email) {
      const attempt = await app.services.limiter.attempt(resendKey(user.id), RESEND_LIMIT);
      if (!attempt.allowed) {
        const seconds = attempt.retryAfterSeconds;
        reply.header('retry-after', String(seconds));
        if (expectsJson(request)) throw new TooManyRequestsError(seconds);
        const error = validationError({ email: [t('verification.wait', { count: seconds })] }, t);
        return sendPage(reply, await render(formState(formBody(request), error.errors)), 429);
      }
    }
    const result = await account.updateProfile(
      user.id,
      validated.value,
      request.locale,
      auditContext(request),
    );
    if (result.status === 'email_taken') return refuseForm(request, reply, emailTaken(t), render);
    if (result.status === 'link_sent') {
      // An unverified address is corrected at once (account/email-change.ts): the new link went there.
      const key =
        user.emailVerifiedAt === null ? 'verification.address_corrected' : 'account.email_link_sent';
      return accountDone(request, reply, 'email', t(key, { email: result.email }), true);
    }
    return accountDone(request, reply, section, t('account.profile_saved'));
  });

  formRoute(app, 'DELETE', '/user/pending-email', [web], async (request, reply) => {
    await account.cancelEmailChange(request.identity!.user.id, auditContext(request));
    return accountDone(request, reply, 'email', request.t('account.email_change_cancelled'));
  });

  app.get<{ Params: { id: string; hash: string }; Querystring: { expires?: unknown; signature?: unknown } }>(
    '/email/change/:id/:hash',
    { preHandler: [web] },
    async (request, reply) => {
      // The link's signature is a secret for as long as it lives: no Referer may carry it onwards.
      reply.header('referrer-policy', 'no-referrer');
      const { id, hash } = request.params;
      const { expires, signature } = request.query;
      const user = request.identity!.user;
      const result = await account.confirmEmailChange(
        user.id,
        { id, hash, expires, signature },
        auditContext(request),
      );
      const t = request.t;
      if (result === 'email_taken') {
        const message = t('validation.unique', { attribute: t('validation.attributes.email') });
        if (expectsJson(request)) return reply.code(422).send({ message, errors: { email: [message] } });
        const session = await request.sessionOf('web').load();
        session.flash('status', message);
        return reply.redirect('/profile#email');
      }
      if (result !== 'changed') throw new ForbiddenError('verification.invalid_signature');
      return accountDone(request, reply, 'email', t('account.email_changed'), true);
    },
  );
}
