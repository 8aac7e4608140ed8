import type { FastifyInstance } from 'fastify';
import { acceptRoutes } from './accept.ts';
import { currentOrgRoutes } from './current-org.ts';
import { invitationRoutes } from './invitations.ts';
import { memberRoutes } from './members.ts';
import { organizationRoutes } from './organizations.ts';
import { roleRoutes } from './roles.ts';

/**
 * Organizations in HTTP (docs/guides/organizations.md): /orgs and its pages, invitations and their links,
 * the current organization (the panel's pages, ./panel.ts, hang under routes/admin/). Behind the web session guard; CSRF on every change (plugins/csrf.ts);
 * forms reach PUT and DELETE through `_method` (http/form-methods.ts).
 */
export async function orgRoutes(app: FastifyInstance) {
  await app.register(organizationRoutes);
  await app.register(memberRoutes);
  await app.register(invitationRoutes);
  await app.register(roleRoutes);
  await app.register(acceptRoutes);
  await app.register(currentOrgRoutes);
}
