import type { UserDetail } from '../../../admin/user-directory.ts';
import { type Html, html } from '../../../lib/html.ts';
import type { TwoFactorState } from '../../../two-factor/two-factor.ts';
import { cell } from '../table.ts';
import type { ViewContext } from '../view-context.ts';
import { auditTable } from './audit-entries.ts';
import { actionButton, confirmAction, confirmWithPassword, type Flash, listPanel } from './components.ts';
import { dateOnly, dateTime, deviceName, emailAddress, relativeTime } from './format.ts';
import { adminPage } from './shell.ts';
import { connectedAppsSection } from './user-connected-apps.ts';
import { passkeysSection } from './user-passkeys.ts';
import { userBadges } from './users-list.ts';

export interface UserPageContext {
  detail: UserDetail;
  /** What canAccessPanel() says about this user right now. */
  panelAllowed: boolean;
  isSelf: boolean;
  /** The installation's owner (the first make:admin): never deleted, disabled or demoted from the panel. */
  isOwner: boolean;
  /** Whether the user has two-factor on (never its secret). */
  twoFactor: TwoFactorState;
  csrf: string;
  flash: Flash | null;
  /** A login provider's label by its name (docs/guides/login-providers.md). */
  providerLabel: (name: string) => string;
}

function settingRow(title: string, description: Html | string, control: Html): Html {
  return html`<div class="setting"><div><h3>${title}</h3><p class="muted">${description}</p></div><div class="setting-control">${control}</div></div>`;
}

function accountSection(viewContext: ViewContext, ctx: UserPageContext): Html {
  const t = viewContext.t;
  const { user } = ctx.detail;
  const base = `/admin/users/${user.id}`;
  const csrf = ctx.csrf;
  const verification =
    user.emailVerifiedAt === null
      ? settingRow(
          t('admin.user.email_verification'),
          t('admin.user.unverified_help'),
          html`<div class="control-group">${actionButton({
            action: `${base}/verify`,
            label: t('admin.user.mark_verified'),
            csrf,
            variant: 'primary',
          })}${actionButton({ action: `${base}/verification-link`, label: t('admin.user.send_verification'), csrf })}</div>`,
        )
      : settingRow(
          t('admin.user.email_verification'),
          html`${t('admin.user.verified_on')} ${dateTime(viewContext, user.emailVerifiedAt)}`,
          html`<span class="muted">✓</span>`,
        );
  const self = html`<span class="muted small">${t('admin.user.this_is_you')}</span>`;
  // The panel offers no button the owner rule would refuse (docs/security.md; admin/user-actions.ts).
  const owner = html`<span class="muted small" title="${t('admin.user.owner_help')}">${t('admin.user.owner')}</span>`;
  const status =
    user.disabledAt === null
      ? settingRow(
          t('admin.user.account_status'),
          t('admin.user.active_help'),
          ctx.isSelf
            ? self
            : ctx.isOwner
              ? owner
              : confirmAction({
                  action: `${base}/disable`,
                  label: t('admin.user.disable'),
                  question: [
                    t('admin.user.disable_confirm', { name: user.name }),
                    t('admin.user.disable_confirm_sessions', { count: ctx.detail.sessions.length }),
                    t('admin.user.disable_confirm_tokens', { count: ctx.detail.tokens.length }),
                    t('admin.user.disable_confirm_after'),
                  ].join(' '),
                  csrf,
                }),
        )
      : settingRow(
          t('admin.user.account_status'),
          html`${t('admin.user.disabled_since')} ${dateTime(viewContext, user.disabledAt)}`,
          actionButton({ action: `${base}/enable`, label: t('admin.user.enable'), csrf, variant: 'primary' }),
        );
  const panelHelp = user.panelAccess
    ? ctx.panelAllowed
      ? t('admin.user.panel_on_help')
      : t('admin.user.panel_refused_help')
    : t('admin.user.panel_off_help');
  const panel = settingRow(
    t('admin.user.panel_access'),
    panelHelp,
    ctx.isSelf
      ? self
      : ctx.isOwner && user.panelAccess
        ? owner
        : user.panelAccess
          ? confirmAction({
              action: `${base}/panel-access/withdraw`,
              label: t('admin.user.withdraw_panel'),
              question: t('admin.user.withdraw_confirm', { name: user.name }),
              csrf,
            })
          : actionButton({ action: `${base}/panel-access/grant`, label: t('admin.user.grant_panel'), csrf }),
  );
  const password = settingRow(
    t('admin.user.password'),
    t('admin.user.password_help'),
    user.disabledAt === null
      ? actionButton({ action: `${base}/password-reset-link`, label: t('admin.user.send_reset'), csrf })
      : html`<span class="muted small">${t('admin.user.disabled')}</span>`,
  );
  const twoFactor = settingRow(
    t('two_factor.title'),
    ctx.twoFactor.status === 'on'
      ? t('two_factor.admin.on_help', { count: ctx.twoFactor.recoveryCodesLeft })
      : ctx.twoFactor.status === 'enrolling'
        ? t('two_factor.admin.enrolling_help')
        : t('two_factor.admin.off_help'),
    ctx.twoFactor.status === 'off'
      ? html`<span class="muted small">${t('two_factor.badge_off')}</span>`
      : ctx.isOwner && !ctx.isSelf
        ? owner
        : confirmWithPassword({
            id: 'disable-two-factor',
            action: `${base}/two-factor/disable`,
            label: t('two_factor.admin.disable'),
            question: t('two_factor.admin.disable_confirm', { name: user.name }),
            passwordLabel: t('admin.user.your_password'),
            csrf,
          }),
  );
  const removal = settingRow(
    t('admin.user.delete'),
    ctx.isOwner ? t('admin.user.owner_help') : t('admin.user.delete_help'),
    ctx.isSelf
      ? self
      : ctx.isOwner
        ? owner
        : confirmWithPassword({
            id: 'delete-user',
            action: `${base}/delete`,
            label: t('admin.user.delete_button'),
            question: t('admin.user.delete_confirm', { name: user.name }),
            passwordLabel: t('admin.user.your_password'),
            csrf,
          }),
  );
  return html`<section class="panel">
  <header class="panel-head"><h2>${t('admin.user.account')}</h2></header>
  <div class="settings">${verification}${password}${twoFactor}${status}${panel}${removal}</div>
</section>`;
}

function factsSection(viewContext: ViewContext, ctx: UserPageContext): Html {
  const t = viewContext.t;
  const { user } = ctx.detail;
  return html`<section class="panel">
  <header class="panel-head"><h2>${t('admin.user.details')}</h2></header>
  <dl class="facts">
    <div><dt>${t('admin.user.id')}</dt><dd class="mono">${user.id}</dd></div>
    <div><dt>${t('pages.email')}</dt><dd>${emailAddress(user.email)}</dd></div>
    <div><dt>${t('admin.user.language')}</dt><dd>${user.locale.toUpperCase()}</dd></div>
    <div><dt>${t('admin.user.created')}</dt><dd>${dateTime(viewContext, user.createdAt)}</dd></div>
    <div><dt>${t('admin.user.updated')}</dt><dd>${dateTime(viewContext, user.updatedAt)}</dd></div>
    <div><dt>${t('admin.user.linked_accounts')}</dt><dd>${linkedAccounts(viewContext, ctx)}</dd></div>
  </dl>
</section>`;
}

/** Each provider the user signs in with (docs/guides/login-providers.md) and the address it gave. */
function linkedAccounts(viewContext: ViewContext, ctx: UserPageContext): Html {
  const linked = ctx.detail.linkedAccounts;
  if (linked.length === 0)
    return html`<span class="muted">${viewContext.t('admin.user.no_linked_accounts')}</span>`;
  return html`${linked.map((identity, i) => html`${i > 0 ? html`<br>` : ''}${ctx.providerLabel(identity.provider)}${identity.email === null ? '' : html` ${emailAddress(identity.email, 'muted small')}`}`)}`;
}

function tokensSection(viewContext: ViewContext, ctx: UserPageContext): Html {
  const t = viewContext.t;
  const { user, tokens } = ctx.detail;
  const base = `/admin/users/${user.id}/tokens`;
  const label = {
    name: t('admin.tokens.name'),
    abilities: t('admin.tokens.abilities'),
    lastUsed: t('admin.tokens.last_used'),
    expires: t('admin.tokens.expires'),
    created: t('admin.tokens.created'),
  };
  return listPanel({
    id: 'tokens',
    title: t('admin.tokens.title'),
    bulk: confirmAction({
      action: `${base}/revoke-all`,
      label: t('admin.tokens.revoke_all'),
      question: t('admin.tokens.revoke_all_confirm', { count: tokens.length }),
      csrf: ctx.csrf,
      small: true,
    }),
    headers: Object.values(label),
    actionsLabel: t('admin.users.actions'),
    rows: tokens.map(
      (token) => html`<tr>
      ${cell(label.name, token.name, 'strong wrap long-name')}
      ${cell(label.abilities, html`${token.abilities.map((a) => html`<code class="chip">${a}</code>`)}`)}
      ${cell(label.lastUsed, relativeTime(viewContext, token.lastUsedAt), 'nowrap')}
      ${cell(label.expires, token.expiresAt === null ? html`<span class="muted">${t('admin.tokens.never_expires')}</span>` : dateOnly(viewContext, token.expiresAt), 'nowrap')}
      ${cell(label.created, dateOnly(viewContext, token.createdAt), 'nowrap')}
      <td class="right row-action">${actionButton({ action: `${base}/${token.id}/revoke`, label: t('admin.tokens.revoke'), csrf: ctx.csrf, variant: 'danger-outline', small: true })}</td>
    </tr>`,
    ),
    empty: t('admin.tokens.none'),
  });
}

function sessionsSection(viewContext: ViewContext, ctx: UserPageContext): Html {
  const t = viewContext.t;
  const { user, sessions } = ctx.detail;
  const base = `/admin/users/${user.id}/sessions`;
  const label = {
    device: t('admin.sessions.device'),
    ip: t('admin.audit.ip'),
    lastActivity: t('admin.sessions.last_activity'),
    started: t('admin.sessions.started'),
  };
  return listPanel({
    id: 'sessions',
    title: t('admin.sessions.title'),
    bulk: confirmAction({
      action: `${base}/end-all`,
      label: t('admin.sessions.end_all'),
      question: t('admin.sessions.end_all_confirm', { count: sessions.length }),
      csrf: ctx.csrf,
      small: true,
    }),
    headers: Object.values(label),
    actionsLabel: t('admin.users.actions'),
    rows: sessions.map(
      (session) => html`<tr>
      ${cell(label.device, html`<span class="strong" title="${session.userAgent ?? ''}">${deviceName(session.userAgent) ?? t('admin.sessions.unknown_device')}</span>`)}
      ${cell(label.ip, session.ip ?? '—', 'mono wrap')}
      ${cell(label.lastActivity, relativeTime(viewContext, session.lastActivity), 'nowrap')}
      ${cell(label.started, dateTime(viewContext, session.createdAt), 'nowrap')}
      <td class="right row-action">${actionButton({ action: `${base}/${session.key}/end`, label: t('admin.sessions.end'), csrf: ctx.csrf, variant: 'danger-outline', small: true })}</td>
    </tr>`,
    ),
    empty: t('admin.sessions.none'),
    note: t('admin.sessions.remember_note'),
  });
}

export function userShowPage(viewContext: ViewContext, ctx: UserPageContext): Html {
  const t = viewContext.t;
  const { user, activity, activityTotal } = ctx.detail;
  return adminPage(viewContext, {
    title: user.name,
    section: 'users',
    lead: html`${emailAddress(user.email)} ${userBadges(viewContext, user, ctx.panelAllowed)}`,
    actions: html`<a class="button secondary" href="/admin/users">← ${t('admin.nav.users')}</a>`,
    flash: ctx.flash,
    body: html`<div class="columns wide-left">
  <div class="stack">
    ${tokensSection(viewContext, ctx)}
    ${sessionsSection(viewContext, ctx)}
    ${passkeysSection(viewContext, { userId: user.id, userName: user.name, passkeys: ctx.detail.passkeys, ownersOwn: ctx.isOwner && !ctx.isSelf, csrf: ctx.csrf })}
    ${connectedAppsSection(viewContext, ctx.detail.connectedApps)}
  </div>
  <div class="stack">
    ${accountSection(viewContext, ctx)}
    ${factsSection(viewContext, ctx)}
  </div>
</div>
<section class="panel">
  <header class="panel-head"><h2>${t('admin.user.activity')}</h2>${activityTotal > activity.length ? html`<a href="/admin/audit?user=${user.id}">${t('admin.user.all_activity', { count: activityTotal })}</a>` : ''}</header>
  ${auditTable(viewContext, activity, { emptyText: t('admin.user.no_activity') })}
</section>`,
  });
}
