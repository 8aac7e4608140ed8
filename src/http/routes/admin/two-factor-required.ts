import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { html } from '../../../lib/html.ts';
import { ForbiddenError } from '../../errors.ts';
import { expectsJson } from '../../negotiation.ts';
import { sendPage } from '../../pages.ts';
import { resolveIdentity } from '../../plugins/auth.ts';
import { layout } from '../../views/layout.ts';

export const TWO_FACTOR_REQUIRED_PATH = '/admin/two-factor-required';

/** Panel paths an admin without two-factor may still reach: signing in and out, and this notice. */
const OPEN_PATHS = new Set([
  '/admin/login',
  '/admin/logout',
  '/admin/two-factor-challenge',
  TWO_FACTOR_REQUIRED_PATH,
]);

/**
 * ADMIN_REQUIRE_TWO_FACTOR=true: a preHandler hook over every panel route. An admin session whose user
 * has no two-factor on opens no panel page (JSON: 403) but a notice that leads to the account page,
 * where two-factor is set up behind a password confirmation like any user's (one enrolment, not a
 * second, panel-only copy of it). Once it is on, the same admin session goes on; the next panel login
 * passes the challenge.
 */
export function requireAdminTwoFactor(app: FastifyInstance) {
  const { auth } = app.services;
  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    if (OPEN_PATHS.has(request.routeOptions.url ?? '')) return;
    const identity = await resolveIdentity(request, ['admin']);
    // No admin session: the route's own requireAuth answers (login page, 401).
    if (identity === null || (await auth.twoFactor.isOn(identity.user.id))) return;
    if (expectsJson(request)) throw new ForbiddenError('two_factor.admin.required');
    return reply.redirect(TWO_FACTOR_REQUIRED_PATH);
  });
}

/** The notice page itself (a signed-in admin only). */
export async function adminTwoFactorRequiredRoutes(app: FastifyInstance) {
  app.get(TWO_FACTOR_REQUIRED_PATH, { preHandler: app.requireAuth(['admin']) }, async (request, reply) => {
    const t = request.t;
    const csrf = request.sessionOf('admin').csrfToken();
    return sendPage(
      reply,
      layout(request, {
        title: t('two_factor.admin.required_title'),
        variant: 'admin',
        body: html`<section class="card narrow auth-card">
  <h1>${t('two_factor.admin.required_title')}</h1>
  <p class="lead">${t('two_factor.admin.required')}</p>
  <p>${t('two_factor.admin.required_how')}</p>
  <p><a class="button block" href="/user/two-factor">${t('two_factor.set_up')}</a></p>
  <p class="links"><a href="/admin">${t('two_factor.admin.required_back')}</a></p>
  <form method="post" action="/admin/logout" class="links"><input type="hidden" name="_token" value="${csrf}"><button type="submit" class="link-button">${t('pages.log_out')}</button></form>
</section>`,
      }),
    );
  });
}
