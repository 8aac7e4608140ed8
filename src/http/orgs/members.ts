import type { FastifyInstance, FastifyRequest } from 'fastify';
import { validate } from '../../lib/validation.ts';
import { memberRoleSchema } from '../../orgs/org-forms.ts';
import { NotFoundError } from '../errors.ts';
import { formRoute } from '../form-methods.ts';
import { validateForm } from '../pages.ts';
import { auditContext } from '../request-context.ts';
import type { FormState } from '../views/forms.ts';
import { done, mayAttempt, memberParam, ORG_GUARDS, refuse, slugParam } from './support.ts';
import { orgView } from './view-context.ts';
import { membersPage } from './views/members.ts';

/**
 * PUT /orgs/{slug}/members/{user} (a new role) and DELETE /orgs/{slug}/members/{user} (remove; `me`
 * leaves), docs/guides/organizations.md. The last owner can neither leave nor be demoted: 422.
 */
export async function memberRoutes(app: FastifyInstance) {
  const { orgs, clock } = app.services;
  const web = app.requireAuth(ORG_GUARDS);

  const page = async (request: FastifyRequest, options: { state?: FormState; error?: string }) => {
    const org = await orgs.detail(slugParam(request), request.identity!.user.id, clock.now());
    return org === null ? null : membersPage(await orgView(request), org, orgs.roles.names, options);
  };

  const changing = [web, mayAttempt('manage', { member: true })];
  formRoute(app, 'PUT', '/orgs/:slug/members/:user', changing, async (request, reply) => {
    const slug = slugParam(request);
    const member = memberParam(request);
    const validated = await validateForm(
      request,
      reply,
      () => validate<{ role: string }>(request.body, memberRoleSchema(orgs.roles), request.t),
      async (state) => {
        const shown = await page(request, { error: state.errors?.['role']?.[0] });
        if (shown === null) throw new NotFoundError();
        return shown;
      },
    );
    if (!validated.ok) return validated.reply;
    const user = request.identity!.user;
    const result = await orgs.changeRole(slug, user.id, member, validated.value.role, auditContext(request));
    if (result !== 'changed')
      return refuse(request, reply, result, 'role', (error) => page(request, { error }));
    return done(request, reply, `/orgs/${slug}`, request.t('orgs.role_changed'));
  });

  formRoute(app, 'DELETE', '/orgs/:slug/members/:user', [web], async (request, reply) => {
    const slug = slugParam(request);
    const member = memberParam(request);
    const user = request.identity!.user;
    const result = await orgs.removeMember(slug, user.id, member, auditContext(request));
    if (result !== 'removed')
      return refuse(request, reply, result, 'user', (error) => page(request, { error }));
    const left = member === 'me' || member === user.id;
    return done(
      request,
      reply,
      left ? '/orgs' : `/orgs/${slug}`,
      request.t(left ? 'orgs.left' : 'orgs.member_removed'),
    );
  });
}
