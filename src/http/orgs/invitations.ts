import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { validate, validationError } from '../../lib/validation.ts';
import { invitationSchema } from '../../orgs/org-forms.ts';
import { ForbiddenError, NotFoundError } from '../errors.ts';
import { formRoute } from '../form-methods.ts';
import { expectsJson } from '../negotiation.ts';
import { refuseForm, sendPage, validateForm } from '../pages.ts';
import { auditContext } from '../request-context.ts';
import type { FormState } from '../views/forms.ts';
import { invitationJson } from './json.ts';
import { done, idParam, mayAttempt, ORG_GUARDS, refuse, slugParam } from './support.ts';
import { orgView } from './view-context.ts';
import { invitationsPage } from './views/invitations.ts';

/**
 * GET/POST /orgs/{slug}/invitations and DELETE /orgs/{slug}/invitations/{id} (docs/guides/organizations.md):
 * owners and admins invite (the mail with its signed link is queued in the same transaction) and cancel.
 */
export async function invitationRoutes(app: FastifyInstance) {
  const { orgs, clock } = app.services;
  const web = app.requireAuth(ORG_GUARDS);

  /** The organization for this page: 404 for a non-member, 403 for a member who does not manage it. */
  const managed = async (request: FastifyRequest) => {
    const org = await orgs.detail(slugParam(request), request.identity!.user.id, clock.now());
    if (org === null) throw new NotFoundError();
    if (!org.manages) throw new ForbiddenError();
    return org;
  };
  const page = async (request: FastifyRequest, state?: FormState) =>
    invitationsPage(await orgView(request), await managed(request), orgs.roles.names, state);

  app.get('/orgs/:slug/invitations', { preHandler: [web] }, async (request, reply) => {
    if (expectsJson(request)) return { data: (await managed(request)).invitations.map(invitationJson) };
    return sendPage(reply, await page(request));
  });

  const inviting = [web, mayAttempt('manage')];
  formRoute(app, 'POST', '/orgs/:slug/invitations', inviting, async (request, reply: FastifyReply) => {
    const slug = slugParam(request);
    const render = (state: FormState) => page(request, state);
    const validated = await validateForm(
      request,
      reply,
      () => validate<{ email: string; role: string }>(request.body, invitationSchema(orgs.roles), request.t),
      render,
    );
    if (!validated.ok) return validated.reply;
    const result = await orgs.invite(
      slug,
      request.identity!.user.id,
      { ...validated.value, locale: request.locale },
      auditContext(request),
    );
    if (result.status === 'already_member' || result.status === 'already_invited') {
      const message = request.t(`orgs.${result.status}`);
      return refuseForm(request, reply, validationError({ email: [message] }, request.t), render);
    }
    if (result.status !== 'invited') return refuse(request, reply, result.status, 'role', async () => null);
    if (expectsJson(request)) return reply.code(201).send(invitationJson(result.invitation));
    return done(request, reply, `/orgs/${slug}/invitations`, request.t('orgs.invitation_sent'));
  });

  formRoute(app, 'DELETE', '/orgs/:slug/invitations/:id', [web], async (request, reply) => {
    const slug = slugParam(request);
    const id = idParam(request);
    const result = await orgs.cancelInvitation(slug, request.identity!.user.id, id, auditContext(request));
    if (result !== 'cancelled') return refuse(request, reply, result, 'invitation', async () => null);
    return done(request, reply, `/orgs/${slug}/invitations`, request.t('orgs.invitation_cancelled'));
  });
}
