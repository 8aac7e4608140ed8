import { html } from '../../../../lib/html.ts';
import { roleLabel } from '../../../orgs/views/frame.ts';
import { cell } from '../../table.ts';
import { type AccountSection, sectionCard } from '../page.ts';

/**
 * "Organizations" (docs/guides/organizations.md): the organizations the user belongs to and their role,
 * each linked to its page, and the way to /orgs, where they are created, managed and switched.
 */
export const organizationsSection: AccountSection = {
  id: 'organizations',
  async render(context) {
    const { t, user, services } = context;
    const memberships = await services.orgs.membershipsOf(user.id);
    const label = { name: t('orgs.name'), role: t('orgs.your_role') };
    const table = html`<div class="table-wrap"><table class="data">
    <thead><tr><th scope="col">${label.name}</th><th scope="col">${label.role}</th></tr></thead>
    <tbody>${memberships.map(
      (m) =>
        html`<tr>${cell(label.name, html`<a href="/orgs/${m.slug}">${m.name}</a> <code>${m.slug}</code>`, 'wrap')}${cell(label.role, roleLabel(t, m.role))}</tr>`,
    )}</tbody>
  </table></div>`;
    return sectionCard(
      this.id,
      t('account.section.organizations'),
      t('orgs.lead'),
      html`${memberships.length === 0 ? html`<p class="empty">${t('orgs.none')}</p>` : table}
  <div class="actions"><a class="button secondary" href="/orgs">${t('orgs.manage')}</a></div>`,
    );
  },
};
