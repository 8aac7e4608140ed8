import { type Html, html } from '../../../lib/html.ts';
import type { OrgMembership } from '../../../orgs/memberships.ts';
import type { User } from '../../../users/user.ts';
import { statusMessage } from '../../views/forms.ts';
import { layout } from '../../views/layout.ts';
import type { ViewContext } from '../../views/view-context.ts';
import { orgSwitcher } from './switcher.ts';

/** What every organization page is given: who is looking, their organizations, the session's choice. */
export interface OrgView {
  readonly request: ViewContext;
  readonly user: User;
  readonly csrfToken: string;
  readonly memberships: readonly OrgMembership[];
  /** The session's current organization (PUT /user/current-org), when still one of `memberships`. */
  readonly currentId: number | null;
  /** A status line carried over a redirect. */
  readonly status?: unknown;
}

export type OrgTab = 'members' | 'invitations' | 'roles';

export interface OrgFrameOptions {
  readonly title: string;
  readonly heading: string;
  readonly lead?: Html | string;
  /** The organization's pages, when the page is one of them. */
  readonly tabs?: { readonly slug: string; readonly active: OrgTab; readonly manages: boolean };
  /** A refusal shown above the content (422: the last owner). */
  readonly error?: string | null;
  readonly body: Html;
}

/**
 * The frame of the organization pages: heading, the switcher, the organization's tabs (members,
 * invitations for those who manage, roles), the status or refusal, then the content. Plain links and
 * forms: everything works without JavaScript.
 */
export function orgFrame(view: OrgView, options: OrgFrameOptions): Html {
  const { request } = view;
  const t = request.t;
  const tabs = options.tabs;
  const tab = (name: OrgTab, href: string) =>
    html`<a class="org-tab" href="${href}"${tabs?.active === name ? html` aria-current="page"` : ''}>${t(`orgs.tabs.${name}`)}</a>`;
  return layout(request, {
    title: options.title,
    account: { name: view.user.name, csrfToken: view.csrfToken },
    body: html`<div class="page orgs">
  ${statusMessage(view.status)}
  ${options.error ? html`<div class="status alert" role="alert">${options.error}</div>` : ''}
  <header class="page-header org-header">
    <div class="org-title">
      <p class="muted small org-crumb"><a href="/orgs">${t('orgs.title')}</a></p>
      <h1>${options.heading}</h1>
      ${options.lead ? html`<p class="lead">${options.lead}</p>` : ''}
    </div>
    ${orgSwitcher(view)}
  </header>
  ${
    tabs
      ? html`<nav class="org-tabs" aria-label="${t('orgs.tabs.label')}">
    ${tab('members', `/orgs/${tabs.slug}`)}
    ${tabs.manages ? tab('invitations', `/orgs/${tabs.slug}/invitations`) : ''}
    ${tab('roles', `/orgs/${tabs.slug}/roles`)}
  </nav>`
      : ''
  }
  ${options.body}
</div>`,
  });
}

/** A role as people read it: the built-in ones translated, a role of ORG_ROLES by its name. */
export function roleLabel(t: ViewContext['t'], role: string): string {
  const key = `orgs.roles.${role}`;
  const label = t(key);
  return label === key || label === '' ? role : label;
}
