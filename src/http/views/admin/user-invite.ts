import { type Html, html } from '../../../lib/html.ts';
import { csrfField, type FormState, formTitle, input } from '../forms.ts';
import type { ViewContext } from '../view-context.ts';
import { adminPage } from './shell.ts';

/** GET /admin/users/new: name and address; the invitation mail lets the person choose a password. */
export function inviteUserPage(viewContext: ViewContext, state: FormState, csrf: string): Html {
  const t = viewContext.t;
  return adminPage(viewContext, {
    title: formTitle(t, t('admin.invite.title'), state),
    heading: t('admin.invite.title'),
    section: 'users',
    lead: t('admin.invite.lead'),
    actions: html`<a class="button secondary" href="/admin/users">← ${t('admin.nav.users')}</a>`,
    body: html`<section class="panel narrow-panel">
  <form method="post" action="/admin/users" novalidate>
    ${csrfField(csrf)}
    ${input(t, state, { name: 'name', label: t('pages.name'), autocomplete: 'off', required: true, autofocus: true })}
    ${input(t, state, { name: 'email', type: 'email', label: t('pages.email'), autocomplete: 'off', required: true, hint: t('admin.invite.email_hint') })}
    <div class="actions"><button type="submit" class="button">${t('admin.invite.submit')}</button></div>
  </form>
</section>`,
  });
}
