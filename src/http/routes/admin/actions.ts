import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccountActionResult } from '../../../admin/user-actions.ts';
import { NotFoundError } from '../../errors.ts';
import { auditContext } from '../../request-context.ts';
import { finishAction, idParam, refuseWithoutAdminPassword } from './support.ts';

type Params = Record<string, unknown>;

/**
 * The panel's state changes. Each is a POST behind requireAuth(['admin']) and the CSRF check (the admin
 * guard owns /admin, so its session's token is asked for), calls one domain function in src/admin that
 * writes the change and its audit row together, and redirects back to the user's page with a message.
 */
export async function adminActionRoutes(app: FastifyInstance) {
  const { admin } = app.services;
  const preHandler = app.requireAuth(['admin']);

  /** The target user (404 if none) and its page, where every action returns. */
  async function target(request: FastifyRequest) {
    const id = idParam((request.params as Params)['id']);
    const row = await admin.findUser(id);
    if (row === undefined) throw new NotFoundError();
    return {
      id,
      email: row.email,
      name: row.name,
      locale: row.locale,
      emailVerifiedAt: row.email_verified_at,
      back: `/admin/users/${id}`,
    };
  }

  function account(
    path: string,
    run: (id: number, request: FastifyRequest) => Promise<AccountActionResult>,
    messages: { ok: string; unchanged: string; self?: string; owner?: string },
  ) {
    app.post(`/admin/users/:id/${path}`, { preHandler }, async (request, reply: FastifyReply) => {
      const user = await target(request);
      const result = await run(user.id, request);
      if (result === 'not_found') throw new NotFoundError();
      const t = request.t;
      const params = { email: user.email };
      if (result === 'self' || result === 'owner') {
        // 403 for JSON clients, a flash error on the page (finishAction).
        return finishAction(request, reply, user.back, {
          kind: 'error',
          text: t((result === 'self' ? messages.self : messages.owner) ?? '', params),
        });
      }
      const key = result === 'ok' ? messages.ok : messages.unchanged;
      return finishAction(request, reply, user.back, { kind: 'ok', text: t(key, params) });
    });
  }

  // Someone who lost their phone and their recovery codes: an admin turns two-factor off (audited with
  // the admin as actor, and the owner is mailed, so a rogue reset does not go unnoticed). Never the
  // owner's (admin/owner.ts), and only with the acting admin's own password (docs/security.md).
  app.post('/admin/users/:id/two-factor/disable', { preHandler }, async (request, reply) => {
    const user = await target(request);
    const { services } = app;
    if (await services.admin.protectsOwnersSecondFactors(user.id, request.identity!.user.id)) {
      const text = request.t('admin.flash.owner_two_factor');
      return finishAction(request, reply, user.back, { kind: 'error', text });
    }
    const refused = await refuseWithoutAdminPassword(request, reply, user.back);
    if (refused !== null) return refused;
    const done = await services.auth.twoFactor.disable(user, 'admin', auditContext(request));
    const key = done ? 'two_factor.admin.disabled' : 'two_factor.admin.already_off';
    return finishAction(request, reply, user.back, {
      kind: 'ok',
      text: request.t(key, { email: user.email }),
    });
  });

  // A lost or suspect passkey (docs/guides/admin-panel.md): removed with the acting admin's own password,
  // audited with the admin as actor, the user mailed; never the owner's (admin/owner.ts).
  app.post('/admin/users/:id/passkeys/:passkey/delete', { preHandler }, async (request, reply) => {
    const user = await target(request);
    const passkeyId = idParam((request.params as Params)['passkey']);
    const back = `${user.back}#passkeys`;
    if (await admin.protectsOwnersSecondFactors(user.id, request.identity!.user.id)) {
      const text = request.t('admin.flash.owner_passkey');
      return finishAction(request, reply, back, { kind: 'error', text });
    }
    const refused = await refuseWithoutAdminPassword(request, reply, back);
    if (refused !== null) return refused;
    const result = await app.services.passkeys.delete(user, passkeyId, auditContext(request), 'admin');
    if (result === 'not_found') throw new NotFoundError();
    return finishAction(request, reply, back, {
      kind: 'ok',
      text: request.t('admin.flash.passkey_removed', { email: user.email }),
    });
  });

  account('verify', (id, r) => admin.verifyEmail(id, auditContext(r)), {
    ok: 'admin.flash.verified',
    unchanged: 'admin.flash.already_verified',
  });
  account('disable', (id, r) => admin.disable(id, auditContext(r)), {
    ok: 'admin.flash.disabled',
    unchanged: 'admin.flash.already_disabled',
    self: 'admin.flash.self_disable',
    owner: 'admin.flash.owner_disable',
  });
  account('enable', (id, r) => admin.enable(id, auditContext(r)), {
    ok: 'admin.flash.enabled',
    unchanged: 'admin.flash.already_enabled',
  });
  account('panel-access/grant', (id, r) => admin.setPanelAccess(id, true, auditContext(r)), {
    ok: 'admin.flash.panel_granted',
    unchanged: 'admin.flash.panel_already_granted',
    self: 'admin.flash.self_panel',
  });
  account('panel-access/withdraw', (id, r) => admin.setPanelAccess(id, false, auditContext(r)), {
    ok: 'admin.flash.panel_revoked',
    unchanged: 'admin.flash.panel_already_revoked',
    self: 'admin.flash.self_panel',
    owner: 'admin.flash.owner_panel',
  });

  app.post('/admin/users/:id/tokens/:token/revoke', { preHandler }, async (request, reply) => {
    const user = await target(request);
    const tokenId = idParam((request.params as Params)['token']);
    const count = await admin.revokeToken(user.id, tokenId, auditContext(request));
    if (count === 0) throw new NotFoundError();
    return finishAction(request, reply, `${user.back}#tokens`, {
      kind: 'ok',
      text: request.t('admin.flash.token_revoked', { email: user.email }),
    });
  });

  app.post('/admin/users/:id/tokens/revoke-all', { preHandler }, async (request, reply) => {
    const user = await target(request);
    const count = await admin.revokeAllTokens(user.id, auditContext(request));
    return finishAction(request, reply, `${user.back}#tokens`, {
      kind: 'ok',
      text: request.t('admin.flash.tokens_revoked', { count, email: user.email }),
    });
  });

  app.post('/admin/users/:id/sessions/:session/end', { preHandler }, async (request, reply) => {
    const user = await target(request);
    const key = (request.params as Params)['session'];
    if (typeof key !== 'string' || !/^[0-9a-f]{64}$/.test(key)) throw new NotFoundError();
    if ((await admin.endSession(user.id, key, auditContext(request))) === 0) throw new NotFoundError();
    return finishAction(request, reply, `${user.back}#sessions`, {
      kind: 'ok',
      text: request.t('admin.flash.session_ended', { email: user.email }),
    });
  });

  app.post('/admin/users/:id/sessions/end-all', { preHandler }, async (request, reply) => {
    const user = await target(request);
    const count = await admin.endAllSessions(user.id, auditContext(request));
    return finishAction(request, reply, `${user.back}#sessions`, {
      kind: 'ok',
      text: request.t('admin.flash.sessions_ended', { count, email: user.email }),
    });
  });
}
