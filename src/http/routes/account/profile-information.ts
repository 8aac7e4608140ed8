import type { FastifyInstance } from 'fastify';
import { profileSchema } from '../../../account/email-change.ts';
import { validate } from '../../../lib/validation.ts';
import { ForbiddenError } from '../../errors.ts';
import { formRoute } from '../../form-methods.ts';
import { expectsJson } from '../../negotiation.ts';
import { emailTaken, refuseForm, validateForm } from '../../pages.ts';
import { auditContext } from '../../request-context.ts';
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
    const result = await account.updateProfile(
      user.id,
      validated.value,
      request.locale,
      auditContext(request),
    );
    if (result.status === 'email_taken') return refuseForm(request, reply, emailTaken(t), render);
    if (result.status === 'link_sent') {
      const message = t('account.email_link_sent', { email: result.email });
      return accountDone(request, reply, 'email', message, true);
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
