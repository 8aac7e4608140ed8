import { type Html, html } from '../../../lib/html.ts';
import type { OrgDetail } from '../../../orgs/organizations.ts';
import { canGrant } from '../../../orgs/policy.ts';
import { breakableEmail, formatDateTime } from '../../views/format.ts';
import { csrfField, type FormState, formTitle, input } from '../../views/forms.ts';
import { cell } from '../../views/table.ts';
import { type OrgView, orgFrame, roleLabel } from './frame.ts';

/**
 * GET /orgs/{slug}/invitations in a browser (owners and admins): invite an address with a role the
 * viewer may hand out, and the pending invitations with their expiry and a Cancel button.
 */
export function invitationsPage(
  view: OrgView,
  org: OrgDetail,
  roles: readonly string[],
  state: FormState = {},
): Html {
  const t = view.request.t;
  const offered = roles.filter((role) => canGrant(org.role, role));
  const chosen = typeof state.old?.['role'] === 'string' ? state.old['role'] : 'member';
  const roleError = state.errors?.['role']?.[0];
  const label = {
    email: t('orgs.email'),
    role: t('orgs.role'),
    expires: t('orgs.expires'),
    action: t('orgs.actions'),
  };
  const rows = org.invitations.map(
    (i) => html`<tr>
      ${cell(label.email, breakableEmail(i.email), 'wrap')}
      ${cell(label.role, roleLabel(t, i.role))}
      ${cell(label.expires, formatDateTime(view.request.locale, i.expiresAt))}
      ${cell(
        label.action,
        canGrant(org.role, i.role)
          ? html`<form method="post" action="/orgs/${org.slug}/invitations/${i.id}" class="inline">
        ${csrfField(view.csrfToken)}
        <input type="hidden" name="_method" value="DELETE">
        <button type="submit" class="button secondary small" aria-label="${t('orgs.cancel_invitation_of', { email: i.email })}">${t('orgs.cancel_invitation')}</button>
      </form>`
          : html`<span class="muted">—</span>`,
        'row-action',
      )}
    </tr>`,
  );
  return orgFrame(view, {
    title: formTitle(t, `${t('orgs.tabs.invitations')} · ${org.name}`, state),
    heading: org.name,
    lead: t('orgs.invitations_lead'),
    tabs: { slug: org.slug, active: 'invitations', manages: org.manages },
    body: html`<section class="card" aria-labelledby="org-invite">
  <h2 id="org-invite">${t('orgs.invite')}</h2>
  <form method="post" action="/orgs/${org.slug}/invitations" novalidate>
    ${csrfField(view.csrfToken)}
    ${input(t, state, { name: 'email', type: 'email', label: t('orgs.email'), required: true, autocomplete: 'off', hint: t('orgs.invite_hint') })}
    <div class="field${roleError ? ' has-error' : ''}">
      <label for="field-role">${t('orgs.role')}</label>
      <select id="field-role" name="role"${roleError ? html` aria-invalid="true" aria-describedby="field-role-error"` : ''}>${offered.map(
        (role) =>
          html`<option value="${role}"${role === chosen ? html` selected` : ''}>${roleLabel(t, role)}</option>`,
      )}</select>
      ${roleError ? html`<p class="error" id="field-role-error">${roleError}</p>` : ''}
    </div>
    <div class="actions"><button type="submit" class="button">${t('orgs.send_invitation')}</button></div>
  </form>
</section>
<section class="card" aria-labelledby="org-pending">
  <h2 id="org-pending">${t('orgs.pending')} <span class="count">${rows.length}</span></h2>
  ${
    rows.length === 0
      ? html`<p class="empty">${t('orgs.no_pending')}</p>`
      : html`<div class="table-wrap"><table class="data">
    <thead><tr><th scope="col">${label.email}</th><th scope="col">${label.role}</th><th scope="col">${label.expires}</th><th scope="col"><span class="visually-hidden">${label.action}</span></th></tr></thead>
    <tbody>${rows}</tbody>
  </table></div>`
  }
</section>`,
  });
}
