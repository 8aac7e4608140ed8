import type { FastifyInstance } from 'fastify';
import { validate, validationError } from '../../lib/validation.ts';
import { currentOrganizationSchema } from '../../orgs/org-forms.ts';
import { formRoute } from '../form-methods.ts';
import { expectsJson } from '../negotiation.ts';
import { sameSiteReferer } from '../request-context.ts';
import { CURRENT_ORG, done, ORG_GUARDS } from './support.ts';

/**
 * PUT /user/current-org (docs/guides/organizations.md): the session's current organization, one the user
 * belongs to. An id that is not one of theirs is refused like a malformed one (422 "The selected
 * organization id is invalid."), so the answer says nothing about organizations they are not in.
 */
export async function currentOrgRoutes(app: FastifyInstance) {
  const { orgs } = app.services;
  formRoute(app, 'PUT', '/user/current-org', [app.requireAuth(ORG_GUARDS)], async (request, reply) => {
    const t = request.t;
    const back = sameSiteReferer(request) ?? '/orgs';
    let id: number;
    try {
      id = validate<{ organization_id: number }>(request.body, currentOrganizationSchema, t).organization_id;
    } catch (error) {
      if (expectsJson(request)) throw error;
      return done(request, reply, back, t('orgs.switcher.choose'));
    }
    const memberships = await orgs.membershipsOf(request.identity!.user.id);
    const chosen = memberships.find((m) => m.id === id);
    if (chosen === undefined) {
      const message = t('validation.in', { attribute: t('validation.attributes.organization_id') });
      if (expectsJson(request)) throw validationError({ organization_id: [message] }, t);
      return done(request, reply, back, t('orgs.switcher.choose'));
    }
    const session = await request.sessionOf('web').load();
    session.put(CURRENT_ORG, chosen.id);
    return done(request, reply, `/orgs/${chosen.slug}`, t('orgs.switcher.switched', { name: chosen.name }));
  });
}
