import { type Html, html } from '../../../lib/html.ts';
import type { OrgDetail } from '../../../orgs/organizations.ts';
import { canChangeRole, canDeleteOrganization, canGrant, canRemove } from '../../../orgs/policy.ts';
import { breakableEmail } from '../../views/format.ts';
import { csrfField, type FormState, input } from '../../views/forms.ts';
import { cell } from '../../views/table.ts';
import { type OrgView, orgFrame, roleLabel } from './frame.ts';

type Member = OrgDetail['members'][number];

/**
 * GET /orgs/{slug} in a browser: the members and their roles, with the controls the viewer's role
 * allows (orgs/policy.ts decides which are offered, the use cases decide again on submit); the
 * organization's name; leaving; and, for an owner, deleting it (password confirmation first).
 */
export function membersPage(
  view: OrgView,
  org: OrgDetail,
  roles: readonly string[],
  options: { state?: FormState; error?: string | null } = {},
): Html {
  const t = view.request.t;
  const label = { member: t('orgs.member'), role: t('orgs.role'), action: t('orgs.actions') };
  const rows = org.members.map(
    (m) => html`<tr>
      ${cell(label.member, html`<span class="strong">${m.name}</span>${m.id === view.user.id ? html` <span class="badge">${t('orgs.you')}</span>` : ''}<br><span class="muted small wrap">${breakableEmail(m.email)}</span>`, 'wrap')}
      ${cell(label.role, roleControl(view, org, m, roles))}
      ${cell(label.action, removeControl(view, org, m), 'row-action')}
    </tr>`,
  );
  return orgFrame(view, {
    title: org.name,
    heading: org.name,
    lead: html`<code>${org.slug}</code> · ${t('orgs.your_role')}: ${roleLabel(t, org.role)}`,
    tabs: { slug: org.slug, active: 'members', manages: org.manages },
    error: options.error ?? null,
    body: html`<section class="card" aria-labelledby="org-members">
  <h2 id="org-members">${t('orgs.members')} <span class="count">${org.members.length}</span></h2>
  <div class="table-wrap"><table class="data">
    <thead><tr><th scope="col">${label.member}</th><th scope="col">${label.role}</th><th scope="col"><span class="visually-hidden">${label.action}</span></th></tr></thead>
    <tbody>${rows}</tbody>
  </table></div>
</section>
${org.manages ? renameCard(view, org, options.state ?? {}) : ''}
${canDeleteOrganization(org.role) ? deleteCard(view, org) : ''}`,
  });
}

function roleControl(view: OrgView, org: OrgDetail, member: Member, roles: readonly string[]): Html {
  const t = view.request.t;
  const offered = roles.filter((role) => canChangeRole(org.role, member.role, role));
  if (!offered.includes(member.role) || offered.length < 2) return html`${roleLabel(t, member.role)}`;
  const id = `role-${member.id}`;
  return html`<form method="post" action="/orgs/${org.slug}/members/${member.id}" class="control-group role-form">
    ${csrfField(view.csrfToken)}
    <input type="hidden" name="_method" value="PUT">
    <label class="visually-hidden" for="${id}">${t('orgs.role_of', { name: member.name })}</label>
    <select id="${id}" class="org-select" name="role">${offered.map(
      (role) =>
        html`<option value="${role}"${role === member.role ? html` selected` : ''}>${roleLabel(t, role)}</option>`,
    )}</select>
    <button type="submit" class="button secondary small" aria-label="${t('orgs.save_role_of', { name: member.name })}">${t('orgs.save')}</button>
  </form>`;
}

function removeControl(view: OrgView, org: OrgDetail, member: Member): Html {
  const t = view.request.t;
  const self = member.id === view.user.id;
  if (!canRemove(org.role, member.role, self)) return html`<span class="muted">—</span>`;
  const target = self ? 'me' : String(member.id);
  const text = self ? t('orgs.leave') : t('orgs.remove');
  const name = self
    ? t('orgs.leave_named', { name: org.name })
    : t('orgs.remove_named', { name: member.name });
  return html`<form method="post" action="/orgs/${org.slug}/members/${target}" class="inline">
    ${csrfField(view.csrfToken)}
    <input type="hidden" name="_method" value="DELETE">
    <button type="submit" class="button ${self ? 'secondary' : 'danger-outline'} small" aria-label="${name}">${text}</button>
  </form>`;
}

function renameCard(view: OrgView, org: OrgDetail, state: FormState): Html {
  const t = view.request.t;
  const filled: FormState = state.old ? state : { old: { name: org.name } };
  return html`<section class="card" aria-labelledby="org-settings">
  <h2 id="org-settings">${t('orgs.settings')}</h2>
  <form method="post" action="/orgs/${org.slug}" novalidate>
    ${csrfField(view.csrfToken)}
    <input type="hidden" name="_method" value="PUT">
    ${input(t, filled, { name: 'name', label: t('orgs.name'), required: true, autocomplete: 'organization', hint: t('orgs.slug_fixed', { slug: org.slug }) })}
    <div class="actions"><button type="submit" class="button">${t('orgs.save')}</button></div>
  </form>
</section>`;
}

function deleteCard(view: OrgView, org: OrgDetail): Html {
  const t = view.request.t;
  return html`<section class="card account-section danger-zone" aria-labelledby="org-delete">
  <h2 id="org-delete">${t('orgs.delete')}</h2>
  <div class="warning" id="org-delete-warning"><p>${t('orgs.delete_warning', { count: org.members.length })}</p></div>
  <form method="post" action="/orgs/${org.slug}" aria-describedby="org-delete-warning">
    ${csrfField(view.csrfToken)}
    <input type="hidden" name="_method" value="DELETE">
    <div class="actions"><button type="submit" class="button danger">${t('orgs.delete_button', { name: org.name })}</button></div>
  </form>
</section>`;
}

/** Whether the viewer may hand out any role at all (the invitation form's roles). */
export function grantableRoles(viewerRole: string, roles: readonly string[]): string[] {
  return roles.filter((role) => canGrant(viewerRole, role));
}
