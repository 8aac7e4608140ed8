import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { validate, validationError } from '../../lib/validation.ts';
import { createOrganizationSchema, renameOrganizationSchema } from '../../orgs/org-forms.ts';
import { ForbiddenError, NotFoundError } from '../errors.ts';
import { formRoute } from '../form-methods.ts';
import { expectsJson } from '../negotiation.ts';
import { refuseForm, sendPage, validateForm } from '../pages.ts';
import { requirePasswordConfirmation } from '../password-confirmation.ts';
import { auditContext } from '../request-context.ts';
import { requireVerifiedEmail } from '../verified-email.ts';
import type { FormState } from '../views/forms.ts';
import { detailJson } from './json.ts';
import { done, mayAttempt, ORG_GUARDS, refuse, slugParam } from './support.ts';
import { orgView } from './view-context.ts';
import { organizationsPage } from './views/list.ts';
import { membersPage } from './views/members.ts';

/**
 * GET/POST /orgs, GET/PUT/DELETE /orgs/{slug} (docs/guides/organizations.md). JSON and pages from one
 * handler each; the use cases (services.orgs) decide every role question.
 */
export async function organizationRoutes(app: FastifyInstance) {
  const { orgs, clock } = app.services;
  const web = app.requireAuth(ORG_GUARDS);

  const listPage = async (request: FastifyRequest, state?: FormState) =>
    organizationsPage(await orgView(request), state);

  /** The organization page, or null when the viewer is no (longer a) member. */
  const orgPage = async (request: FastifyRequest, options: { state?: FormState; error?: string } = {}) => {
    const org = await orgs.detail(slugParam(request), request.identity!.user.id, clock.now());
    return org === null ? null : membersPage(await orgView(request), org, orgs.roles.names, options);
  };

  app.get('/orgs', { preHandler: [web] }, async (request, reply) => {
    if (expectsJson(request)) {
      const memberships = await orgs.membershipsOf(request.identity!.user.id);
      return { data: memberships.map(({ id, slug, name, role }) => ({ id, slug, name, role })) };
    }
    return sendPage(reply, await listPage(request));
  });

  // docs/guides/organizations.md: only a verified address creates one (403 JSON, the notice page otherwise).
  formRoute(app, 'POST', '/orgs', [web, requireVerifiedEmail], async (request, reply: FastifyReply) => {
    const render = (state: FormState) => listPage(request, state);
    const validated = await validateForm(
      request,
      reply,
      () => validate<{ name: string; slug: string }>(request.body, createOrganizationSchema, request.t),
      render,
    );
    if (!validated.ok) return validated.reply;
    const result = await orgs.create(request.identity!.user, validated.value, auditContext(request));
    if (result.status === 'unverified') throw new ForbiddenError('auth.unverified');
    if (result.status === 'slug_taken') {
      const t = request.t;
      const message = t('validation.unique', { attribute: t('validation.attributes.slug') });
      return refuseForm(request, reply, validationError({ slug: [message] }, t), render);
    }
    const { organization } = result;
    if (expectsJson(request)) return reply.code(201).send(organization);
    return done(request, reply, `/orgs/${organization.slug}`, request.t('orgs.created'));
  });

  app.get('/orgs/:slug', { preHandler: [web] }, async (request, reply) => {
    const org = await orgs.detail(slugParam(request), request.identity!.user.id, clock.now());
    if (org === null) throw new NotFoundError();
    if (expectsJson(request)) return detailJson(org);
    return sendPage(reply, membersPage(await orgView(request), org, orgs.roles.names));
  });

  formRoute(app, 'PUT', '/orgs/:slug', [web, mayAttempt('manage')], async (request, reply) => {
    const slug = slugParam(request);
    const validated = await validateForm(
      request,
      reply,
      () => validate<{ name: string }>(request.body, renameOrganizationSchema, request.t),
      async (state) => (await orgPage(request, { state })) ?? notFound(),
    );
    if (!validated.ok) return validated.reply;
    const user = request.identity!.user;
    const result = await orgs.rename(slug, user.id, validated.value.name, auditContext(request));
    if (result !== 'renamed')
      return refuse(request, reply, result, 'name', (error) => orgPage(request, { error }));
    return done(request, reply, `/orgs/${slug}`, request.t('orgs.renamed'));
  });

  // Owners only (404 / 403 first), then docs/guides/account.md's password confirmation (423, or the
  // confirmation form and back).
  const deleting = [web, mayAttempt('delete'), requirePasswordConfirmation];
  formRoute(app, 'DELETE', '/orgs/:slug', deleting, async (request, reply) => {
    const result = await orgs.delete(slugParam(request), request.identity!.user.id, auditContext(request));
    if (result !== 'deleted') return refuse(request, reply, result, 'organization', async () => null);
    return done(request, reply, '/orgs', request.t('orgs.deleted'));
  });
}

function notFound(): never {
  throw new NotFoundError();
}
