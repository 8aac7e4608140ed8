import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError, TooManyRequestsError } from '../../errors.ts';
import { expectsJson } from '../../negotiation.ts';
import { sendPage } from '../../pages.ts';
import { auditContext } from '../../request-context.ts';
import { RESEND_LIMIT, resendKey, verificationNoticeHtml } from '../../verification-notice.ts';
import { verificationLinkPage } from '../../views/pages/verify-email.ts';

/**
 * GET /email/verify (notice), POST /email/verification-notification (resend), and the link itself,
 * GET /email/verify/{id}/{hash}?expires=&signature= (docs/guides/sessions-and-spas.md). All need the web session: a guest
 * opening a link is sent to log in and brought back to it (the intended URL).
 */
export async function emailVerificationRoutes(app: FastifyInstance) {
  const { services } = app;
  const { verification } = services.auth;
  const web = app.requireAuth(['web']);
  // Nothing left to verify: Breeze sends the browser on to the dashboard.
  const alreadyVerified = (request: FastifyRequest, reply: FastifyReply) =>
    expectsJson(request)
      ? reply.send({ message: request.t('verification.already_verified') })
      : reply.redirect(services.config.loginRedirect);

  app.get('/email/verify', { preHandler: web }, async (request, reply) => {
    const user = request.identity!.user;
    const t = request.t;
    if (user.emailVerifiedAt !== null) return alreadyVerified(request, reply);
    if (expectsJson(request)) return reply.send({ message: t('verification.notice') });
    return sendPage(reply, await verificationNoticeHtml(request));
  });

  app.post('/email/verification-notification', { preHandler: web }, async (request, reply) => {
    const user = request.identity!.user;
    const t = request.t;
    if (user.emailVerifiedAt !== null) return alreadyVerified(request, reply);
    const attempt = await services.limiter.attempt(resendKey(user.id), RESEND_LIMIT);
    if (!attempt.allowed) {
      if (expectsJson(request)) throw new TooManyRequestsError(attempt.retryAfterSeconds);
      // A person gets the notice again, saying when to try, instead of a bare "Too Many Attempts".
      reply.header('retry-after', String(attempt.retryAfterSeconds));
      const page = await verificationNoticeHtml(request, { waitSeconds: attempt.retryAfterSeconds });
      return sendPage(reply, page, 429);
    }
    await verification.resend(user, request.locale, services.clock.now());
    if (expectsJson(request)) return reply.send({ message: t('verification.sent') });
    request.sessionOf('web').flash('status', t('verification.sent'));
    return reply.redirect('/email/verify');
  });

  app.get<{ Params: { id: string; hash: string }; Querystring: Record<string, unknown> }>(
    '/email/verify/:id/:hash',
    { preHandler: web },
    async (request, reply) => {
      const user = request.identity!.user;
      const check = verification.check(
        user,
        { ...request.params, expires: request.query['expires'], signature: request.query['signature'] },
        services.clock.now(),
      );
      // Laravel's two refusals: a bad or expired signature, or a valid link of someone else. JSON
      // clients get Laravel's 403; a person gets what happened in plain words and the way on.
      if (check !== 'valid') {
        if (expectsJson(request)) {
          throw check === 'other-user'
            ? new ForbiddenError()
            : new ForbiddenError('verification.invalid_signature');
        }
        const page = verificationLinkPage(request, {
          user,
          csrfToken: request.sessionOf('web').csrfToken(),
          problem: check,
          expireMinutes: services.config.verificationExpireMinutes,
        });
        return sendPage(reply, page, 403);
      }
      await verification.markVerified(user.id, auditContext(request));
      if (expectsJson(request)) return reply.code(204).send();
      return reply.redirect('/dashboard?verified=1');
    },
  );
}
