import type { FastifyInstance } from 'fastify';
import type { BrowserSession } from '../../../account/browser-sessions.ts';
import { NotFoundError } from '../../errors.ts';
import { formRoute } from '../../form-methods.ts';
import { auditContext, passwordCheckContext } from '../../request-context.ts';
import {
  ACCOUNT_GUARDS,
  accountDone,
  accountForm,
  currentBrowser,
  refusePassword,
  validatePasswordForm,
} from './support.ts';

/** docs/guides/account.md's JSON shape of one browser session. */
export function sessionJson(session: BrowserSession) {
  return {
    id: session.id,
    ip_address: session.ipAddress,
    user_agent: session.userAgent,
    browser: session.browser,
    platform: session.platform,
    last_active_at: new Date(session.lastActiveAt).toISOString(),
    is_current: session.isCurrent,
    remembered: session.remembered,
  };
}

/**
 * GET /user/sessions, DELETE /user/sessions/{id}, DELETE /user/other-browser-sessions (docs/guides/account.md).
 * Ids are opaque HMACs (account/browser-sessions.ts): one from another account is simply unknown (404).
 */
export async function browserSessionRoutes(app: FastifyInstance) {
  const { account } = app.services;
  const web = app.requireAuth(ACCOUNT_GUARDS);
  const section = 'browser-sessions';

  app.get('/user/sessions', { preHandler: [web] }, async (request) => {
    const sessions = await account.browserSessions(request.identity!.user.id, await currentBrowser(request));
    return sessions.map(sessionJson);
  });

  formRoute(app, 'DELETE', '/user/sessions/:id', [web], async (request, reply) => {
    const { id } = request.params as { id: string };
    const user = request.identity!.user;
    const result = await account.endBrowserSession(
      user.id,
      id,
      await currentBrowser(request),
      auditContext(request),
    );
    if (result === 'not_found') throw new NotFoundError();
    return accountDone(request, reply, section, request.t('account.session_ended'));
  });

  // A password check like any other: inside the per-IP auth budget (docs/security.md).
  formRoute(app, 'DELETE', '/user/other-browser-sessions', [web, app.authBudget], async (request, reply) => {
    const t = request.t;
    const render = accountForm(request, section);
    const validated = await validatePasswordForm(request, reply, render);
    if (!validated.ok) return validated.reply;
    const user = request.identity!.user;
    const result = await account.endOtherBrowserSessions(
      user.id,
      validated.value.password,
      await currentBrowser(request),
      passwordCheckContext(request),
    );
    if (result.status !== 'ok') {
      return refusePassword(request, reply, result, 'password', t('account.password_incorrect'), render);
    }
    return accountDone(request, reply, section, t('account.other_sessions_ended'));
  });
}
