import type { FastifyRequest } from 'fastify';
import { type Html, html } from '../../../lib/html.ts';
import type { User } from '../../../users/user.ts';
import { type FormState, statusMessage } from '../forms.ts';
import { layout } from '../layout.ts';

/** What every section of the account page is given. */
export interface AccountPageContext {
  readonly request: FastifyRequest;
  readonly user: User;
  readonly csrfToken: string;
  /** A form of this page that failed (422): which section's, and its errors and input. */
  readonly failed?: { readonly section: string; readonly state: FormState };
  /** Data one request hands a section once (the plaintext of a token just created). */
  readonly flashed: (key: string) => unknown;
}

/**
 * One section of /profile, in its own file under sections/. A feature adds its section by writing
 * such a file and naming it in sections/index.ts (two-factor and passkeys have their places there).
 * `render` may read what it shows through request.server.services; it must never write.
 */
export interface AccountSection {
  /** The element id (`/profile#<id>`), also the key of its form's errors in `failed`. */
  readonly id: string;
  /** Scripts of our own origin the section needs (deferred; the section must work without them). */
  readonly scripts?: readonly string[];
  render(context: AccountPageContext): Html | Promise<Html>;
}

/** The state a section's form is shown with: its own errors and input after a failed submit, else empty. */
export function sectionState(context: AccountPageContext, section: string): FormState {
  return context.failed?.section === section ? context.failed.state : {};
}

/** A section's frame: a card with a heading the page's table of contents links to. */
export function sectionCard(id: string, title: string, lead: string, body: Html, tone = ''): Html {
  return html`<section class="card account-section${tone ? ` ${tone}` : ''}" id="${id}" aria-labelledby="${id}-title">
  <h2 id="${id}-title">${title}</h2>
  <p class="muted">${lead}</p>
  ${body}
</section>`;
}

/** GET /profile: every section in order, under a list of links to them. */
export async function accountPage(
  context: AccountPageContext,
  sections: readonly AccountSection[],
  status: unknown,
): Promise<Html> {
  const { request, user } = context;
  const t = request.t;
  const rendered: Html[] = [];
  for (const section of sections) rendered.push(await section.render(context));
  const title = context.failed
    ? `${t('pages.form_errors', { count: Object.keys(context.failed.state.errors ?? {}).length })}: ${t('pages.profile')}`
    : t('pages.profile');
  return layout(request, {
    title,
    account: { name: user.name, csrfToken: context.csrfToken },
    scripts: [...new Set(sections.flatMap((section) => section.scripts ?? []))],
    body: html`<div class="page account">
  ${statusMessage(status)}
  <header class="page-header">
    <h1>${t('pages.profile')}</h1>
    <p class="lead">${t('account.page_lead')}</p>
  </header>
  <nav class="account-toc" aria-label="${t('account.sections')}"><ul>${sections.map(
    (section) => html`<li><a href="#${section.id}">${t(`account.section.${section.id}`)}</a></li>`,
  )}</ul></nav>
  ${rendered}
</div>`,
  });
}
