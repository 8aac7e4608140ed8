import type { Translate } from '../../../i18n/i18n.ts';
import { type Html, html } from '../../../lib/html.ts';
import type { User } from '../../../users/user.ts';
import { breakableEmail } from '../format.ts';
import { statusMessage } from '../forms.ts';
import { layout } from '../layout.ts';
import type { ViewContext } from '../view-context.ts';
import { type AccountArea, type AccountPageContext, areaPath } from './page.ts';

/**
 * The account area: a side navigation (a row of tabs on a phone) and the pages it leads to. Every
 * area is rendered, and one is shown: `open` (the page asked for, or the area of a form that failed),
 * unless the URL's fragment names a section of another one (`/profile#passkeys`, where a form sends
 * the browser back to): then CSS (`:target`) shows that one instead, without any script. The pages
 * work as well without CSS (all of them, one under the other) and without JavaScript (app.js only
 * keeps the navigation's "current" mark in step with the fragment).
 */
export async function accountPage(
  viewContext: ViewContext,
  context: AccountPageContext,
  areas: readonly AccountArea[],
  open: AccountArea,
  status: unknown,
): Promise<Html> {
  const { t } = context;
  const rendered: Html[] = [];
  for (const area of areas) rendered.push(await areaHtml(context, area, area === open));
  const sections = areas.flatMap((area) => area.sections);
  const errors = Object.keys(context.failed?.state.errors ?? {}).length;
  return accountFrame(viewContext, {
    t,
    user: context.user,
    csrfToken: context.csrfToken,
    areas,
    current: open,
    title: context.failed
      ? `${t('pages.form_errors', { count: errors })}: ${t(`account.area.${open.id}`)}`
      : null,
    scripts: [...new Set(sections.flatMap((section) => section.scripts ?? []))],
    status,
    body: html`${rendered}`,
  });
}

export interface AccountFrame {
  readonly t: Translate;
  readonly user: User;
  readonly csrfToken: string;
  readonly areas: readonly AccountArea[];
  /** The area the page belongs to: marked current in the navigation. */
  readonly current: AccountArea;
  /** The page's own title (before "· Your account"), when not the area's. */
  readonly title: string | null;
  readonly scripts?: readonly string[];
  readonly status?: unknown;
  readonly body: Html;
}

/**
 * The frame every page of the account area shares: its heading, the side navigation, a status line,
 * then the page. Pages under an area (the two-factor setup, under Security) use it too, so a person
 * never leaves the area's navigation.
 */
export function accountFrame(viewContext: ViewContext, frame: AccountFrame): Html {
  const { t, user, areas, current } = frame;
  return layout(viewContext, {
    title: `${frame.title ?? t(`account.area.${current.id}`)} · ${t('account.title')}`,
    account: { name: user.name, csrfToken: frame.csrfToken },
    scripts: frame.scripts,
    body: html`<div class="page account">
  <header class="page-header">
    <h1>${t('account.title')}</h1>
    <p class="lead">${user.name} · ${breakableEmail(user.email)}</p>
  </header>
  <div class="account-layout">
    <nav class="account-nav" aria-label="${t('account.areas')}">
      <ul>${areas.map(
        (area) =>
          html`<li><a href="${areaPath(areas, area)}" data-area="${area.id}"${area === current ? html` aria-current="page"` : ''}>${t(`account.area.${area.id}`)}</a></li>`,
      )}</ul>
    </nav>
    <div class="account-areas">
      ${statusMessage(frame.status)}
      ${frame.body}
    </div>
  </div>
</div>`,
  });
}

async function areaHtml(context: AccountPageContext, area: AccountArea, open: boolean): Promise<Html> {
  const sections: Html[] = [];
  for (const section of area.sections) sections.push(await section.render(context));
  return html`<div class="account-area${open ? ' open' : ''}" id="area-${area.id}" data-area="${area.id}">
  ${sections}
</div>`;
}
