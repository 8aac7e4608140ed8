import type { FastifyRequest } from 'fastify';
import { type Html, html } from '../../../lib/html.ts';
import { breakableEmail } from '../format.ts';
import { statusMessage } from '../forms.ts';
import { layout } from '../layout.ts';
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
  request: FastifyRequest,
  context: AccountPageContext,
  areas: readonly AccountArea[],
  open: AccountArea,
  status: unknown,
): Promise<Html> {
  const { t, user } = context;
  const rendered: Html[] = [];
  for (const area of areas) rendered.push(await areaHtml(context, area, area === open));
  const sections = areas.flatMap((area) => area.sections);
  const errors = Object.keys(context.failed?.state.errors ?? {}).length;
  const title = `${t(`account.area.${open.id}`)} · ${t('account.title')}`;
  return layout(request, {
    title: context.failed ? `${t('pages.form_errors', { count: errors })}: ${title}` : title,
    account: { name: user.name, csrfToken: context.csrfToken },
    scripts: [...new Set(sections.flatMap((section) => section.scripts ?? []))],
    body: html`<div class="page account">
  <header class="page-header">
    <h1>${t('account.title')}</h1>
    <p class="lead">${user.name} · ${breakableEmail(user.email)}</p>
  </header>
  <div class="account-layout">
    <nav class="account-nav" aria-label="${t('account.areas')}">
      <ul>${areas.map(
        (area) =>
          html`<li><a href="${areaPath(areas, area)}" data-area="${area.id}"${area === open ? html` aria-current="page"` : ''}>${t(`account.area.${area.id}`)}</a></li>`,
      )}</ul>
    </nav>
    <div class="account-areas">
      ${statusMessage(status)}
      ${rendered}
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
