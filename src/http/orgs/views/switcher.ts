import { type Html, html } from '../../../lib/html.ts';
import { csrfField } from '../../views/forms.ts';
import type { OrgView } from './frame.ts';

/**
 * The organization switcher: PUT /user/current-org as a plain form (a select and a button), so it works
 * without JavaScript; nothing when the user belongs to no organization.
 */
export function orgSwitcher(view: OrgView): Html {
  const t = view.request.t;
  if (view.memberships.length === 0) return html``;
  return html`<form method="post" action="/user/current-org" class="org-switcher">
    ${csrfField(view.csrfToken)}
    <input type="hidden" name="_method" value="PUT">
    <label class="org-switcher-label" for="org-switcher">${t('orgs.switcher.label')}</label>
    <div class="control-group">
      <select id="org-switcher" class="org-select" name="organization_id">
        ${view.currentId === null ? html`<option value="" selected>${t('orgs.switcher.none')}</option>` : ''}
        ${view.memberships.map(
          (m) =>
            html`<option value="${m.id}"${m.id === view.currentId ? html` selected` : ''}>${m.name}</option>`,
        )}
      </select>
      <button type="submit" class="button secondary small">${t('orgs.switcher.switch')}</button>
    </div>
  </form>`;
}
