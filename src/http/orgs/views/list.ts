import { type Html, html } from '../../../lib/html.ts';
import { csrfField, type FormState, formTitle, input } from '../../views/forms.ts';
import { cell } from '../../views/table.ts';
import { type OrgView, orgFrame, roleLabel } from './frame.ts';

/**
 * GET /orgs in a browser: the user's organizations (the current one marked) and the form that creates
 * one — or, before the address is verified, a note saying why there is none (docs/guides/organizations.md).
 */
export function organizationsPage(view: OrgView, state: FormState = {}): Html {
  const { request } = view;
  const t = request.t;
  const label = { name: t('orgs.name'), slug: t('orgs.slug'), role: t('orgs.your_role') };
  const rows = view.memberships.map(
    (m) => html`<tr>
      ${cell(label.name, html`<a class="strong" href="/orgs/${m.slug}">${m.name}</a>${m.id === view.currentId ? html` <span class="badge ok">${t('orgs.current')}</span>` : ''}`, 'wrap')}
      ${cell(label.slug, html`<code>${m.slug}</code>`)}
      ${cell(label.role, roleLabel(t, m.role))}
    </tr>`,
  );
  const verified = view.user.emailVerifiedAt !== null;
  return orgFrame(view, {
    title: formTitle(t, t('orgs.title'), state),
    heading: t('orgs.title'),
    lead: t('orgs.lead'),
    body: html`<div class="grid">
  <section class="card" aria-labelledby="orgs-mine">
    <h2 id="orgs-mine">${t('orgs.yours')}</h2>
    ${
      rows.length === 0
        ? html`<p class="empty">${t('orgs.none')}</p>`
        : html`<div class="table-wrap"><table class="data">
      <thead><tr><th scope="col">${label.name}</th><th scope="col">${label.slug}</th><th scope="col">${label.role}</th></tr></thead>
      <tbody>${rows}</tbody>
    </table></div>`
    }
  </section>
  <section class="card" aria-labelledby="orgs-create">
    <h2 id="orgs-create">${t('orgs.create')}</h2>
    ${
      verified
        ? html`<form method="post" action="/orgs" novalidate>
      ${csrfField(view.csrfToken)}
      ${input(t, state, { name: 'name', label: t('orgs.name'), required: true, autocomplete: 'organization' })}
      ${input(t, state, { name: 'slug', label: t('orgs.slug'), required: true, autocomplete: 'off', hint: t('orgs.slug_hint') })}
      <div class="actions"><button type="submit" class="button">${t('orgs.create_button')}</button></div>
    </form>`
        : html`<div class="notice" role="note"><p>${t('orgs.verify_first')}</p><a class="button small" href="/email/verify">${t('pages.verify_email')}</a></div>`
    }
  </section>
</div>`,
  });
}
