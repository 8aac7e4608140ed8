import { type Html, html } from '../../../lib/html.ts';
import type { OrgDetail } from '../../../orgs/organizations.ts';
import { canDeleteOrganization, canManage } from '../../../orgs/policy.ts';
import type { OrgRoles } from '../../../orgs/roles.ts';
import { cell } from '../../views/table.ts';
import { type OrgView, orgFrame, roleLabel } from './frame.ts';

/**
 * GET /orgs/{slug}/roles in a browser: every role, what it may do here (orgs/policy.ts) and the
 * abilities it carries to the applications (ORG_ROLES).
 */
export function rolesPage(view: OrgView, org: OrgDetail, roles: OrgRoles): Html {
  const t = view.request.t;
  const label = { role: t('orgs.role'), powers: t('orgs.powers'), abilities: t('orgs.abilities') };
  const powers = (role: string) =>
    canDeleteOrganization(role)
      ? t('orgs.powers_owner')
      : canManage(role)
        ? t('orgs.powers_admin')
        : t('orgs.powers_member');
  const rows = roles.names.map((role) => {
    const abilities = roles.abilitiesOf(role);
    return html`<tr>
      ${cell(label.role, html`<span class="strong">${roleLabel(t, role)}</span>${role === org.role ? html` <span class="badge ok">${t('orgs.yours_badge')}</span>` : ''}`)}
      ${cell(label.powers, powers(role), 'wrap')}
      ${cell(label.abilities, abilities.length === 0 ? html`<span class="muted">${t('orgs.no_abilities')}</span>` : html`${abilities.map((a) => html`<code>${a}</code> `)}`, 'wrap')}
    </tr>`;
  });
  return orgFrame(view, {
    title: `${t('orgs.tabs.roles')} · ${org.name}`,
    heading: org.name,
    lead: t('orgs.roles_lead'),
    tabs: { slug: org.slug, active: 'roles', manages: org.manages },
    body: html`<section class="card" aria-labelledby="org-roles">
  <h2 id="org-roles">${t('orgs.tabs.roles')}</h2>
  <div class="table-wrap"><table class="data">
    <thead><tr><th scope="col">${label.role}</th><th scope="col">${label.powers}</th><th scope="col">${label.abilities}</th></tr></thead>
    <tbody>${rows}</tbody>
  </table></div>
</section>`,
  });
}
