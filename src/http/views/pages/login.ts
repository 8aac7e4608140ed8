import type { FastifyRequest } from 'fastify';
import { type Html, html } from '../../../lib/html.ts';
import { checkbox, csrfField, type FormState, formTitle, input, statusMessage } from '../forms.ts';
import { type Account, layout } from '../layout.ts';

export interface LoginPageOptions {
  /** Where the form posts and which session's CSRF token it carries: the web login or the panel's. */
  action: string;
  guard: string;
  title: string;
  /** One line under the title. */
  lead?: string;
  variant?: string;
  links?: Html;
  /** The header's account links (null: guest links); the panel leaves it out. */
  account?: Account | null;
}

export async function loginPage(
  request: FastifyRequest,
  state: FormState,
  options: LoginPageOptions,
): Promise<Html> {
  const t = request.t;
  const session = await request.sessionOf(options.guard).load();
  return layout(request, {
    title: formTitle(t, options.title, state),
    variant: options.variant,
    account: options.account,
    body: html`<section class="card narrow auth-card">
  <h1>${options.title}</h1>
  ${options.lead ? html`<p class="lead">${options.lead}</p>` : ''}
  ${statusMessage(session.flashed('status'))}
  <form method="post" action="${options.action}" novalidate>
    ${csrfField(session.csrfToken())}
    ${input(t, state, { name: 'email', type: 'email', label: t('pages.email'), autocomplete: 'username', required: true, autofocus: true })}
    ${input(t, state, { name: 'password', type: 'password', label: t('pages.password'), autocomplete: 'current-password', required: true })}
    ${checkbox(state, 'remember', t('pages.remember_me'))}
    <div class="actions">
      <button type="submit" class="button block">${t('pages.log_in')}</button>
    </div>
  </form>
  ${options.links ?? ''}
</section>`,
  });
}
