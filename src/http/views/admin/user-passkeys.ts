import { type Html, html } from '../../../lib/html.ts';
import type { PasskeySummary } from '../../../passkeys/passkeys.repository.ts';
import { cell } from '../table.ts';
import type { ViewContext } from '../view-context.ts';
import { confirmWithPassword, listPanel } from './components.ts';
import { dateOnly, relativeTime } from './format.ts';

export interface UserPasskeysView {
  readonly userId: number;
  readonly userName: string;
  readonly passkeys: readonly PasskeySummary[];
  /** The owner's passkeys are the owner's alone (docs/security.md "The owner"): no button for another admin. */
  readonly ownersOwn: boolean;
  readonly csrf: string;
}

/**
 * The user's passkeys on the panel's user page (docs/guides/admin-panel.md): name, added, last used — never
 * key material — and, for a lost or suspect one, Remove with the acting admin's own password.
 */
export function passkeysSection(viewContext: ViewContext, view: UserPasskeysView): Html {
  const t = viewContext.t;
  const base = `/admin/users/${view.userId}/passkeys`;
  const label = {
    name: t('passkeys.name'),
    created: t('admin.passkeys.created'),
    lastUsed: t('admin.passkeys.last_used'),
  };
  return listPanel({
    id: 'passkeys',
    title: t('admin.passkeys.title'),
    bulk: html``,
    headers: Object.values(label),
    actionsLabel: t('admin.users.actions'),
    rows: view.passkeys.map(
      (passkey) => html`<tr>
      ${cell(label.name, passkey.name, 'strong wrap long-name')}
      ${cell(label.created, dateOnly(viewContext, passkey.created_at), 'nowrap')}
      ${cell(label.lastUsed, relativeTime(viewContext, passkey.last_used_at), 'nowrap')}
      <td class="right row-action">${
        view.ownersOwn
          ? html`<span class="muted small" title="${t('admin.user.owner_help')}">${t('admin.user.owner')}</span>`
          : confirmWithPassword({
              id: `remove-passkey-${passkey.id}`,
              action: `${base}/${passkey.id}/delete`,
              label: t('admin.passkeys.remove'),
              question: t('admin.passkeys.remove_confirm', { name: passkey.name, user: view.userName }),
              passwordLabel: t('admin.user.your_password'),
              csrf: view.csrf,
              small: true,
            })
      }</td>
    </tr>`,
    ),
    empty: t('admin.passkeys.none'),
    tableClass: 'passkeys',
  });
}
