import type { CurrentBrowser } from '../../../account/browser-sessions.ts';
import type { Translate } from '../../../i18n/i18n.ts';
import { type Html, html } from '../../../lib/html.ts';
import type { Services } from '../../../services.ts';
import type { User } from '../../../users/user.ts';
import type { FormState } from '../forms.ts';

/**
 * What every section of the account area is given: a view context, not the request. It reads what it
 * shows through `services` (never writes); what only the request knows is here already.
 */
export interface AccountPageContext {
  readonly t: Translate;
  readonly locale: string;
  readonly user: User;
  readonly csrfToken: string;
  /** A form of this page that failed (422): which one (see areaOfForm), its errors and input. */
  readonly failed?: { readonly section: string; readonly state: FormState };
  /** Data one request hands a section once (the plaintext of a token just created). */
  readonly flashed: (key: string) => unknown;
  readonly services: Services;
  /** This browser: which signed-in browser it is, and whether its password confirmation is fresh. */
  readonly browser: { readonly current: CurrentBrowser; readonly passwordConfirmed: boolean };
}

/**
 * One section of the account area, in its own file under sections/: a card with a heading and its
 * forms. A feature adds its section by writing such a file and naming it in an area of
 * ACCOUNT_AREAS (sections/index.ts); docs/contributing/architecture.md walks through it.
 */
export interface AccountSection {
  /** The element id (`/profile#<id>`), also the key of its form's errors in `failed`. */
  readonly id: string;
  /** Scripts of our own origin the section needs (deferred; the section must work without them). */
  readonly scripts?: readonly string[];
  render(context: AccountPageContext): Html | Promise<Html>;
}

/**
 * One entry of the account area's side navigation (Keycloak's account console, GitHub's settings): a
 * page of its own at `/profile/<id>` (the first one is `/profile` itself) holding its sections in order.
 * Its title is `account.area.<id>` in i18n.
 */
export interface AccountArea {
  readonly id: string;
  readonly sections: readonly AccountSection[];
}

/** The state a section's form is shown with: its own errors and input after a failed submit, else empty. */
export function sectionState(context: AccountPageContext, section: string): FormState {
  return context.failed?.section === section ? context.failed.state : {};
}

/** A section's frame: a card with a heading, its lead, and its body. */
export function sectionCard(id: string, title: string, lead: string, body: Html, tone = ''): Html {
  return html`<section class="card account-section${tone ? ` ${tone}` : ''}" id="${id}" aria-labelledby="${id}-title">
  <h2 id="${id}-title">${title}</h2>
  <p class="muted">${lead}</p>
  ${body}
</section>`;
}

/** The address of an area's page: the first area is /profile itself. */
export function areaPath(areas: readonly AccountArea[], area: AccountArea): string {
  return area === areas[0] ? '/profile' : `/profile/${area.id}`;
}

/**
 * The area that holds the section of a failed form, else undefined: a failed form is shown in its own
 * area, whatever page it was sent from. `form` is the section's id, or `<section id>/<form>` for one of
 * several forms of a section (the rename form of one passkey).
 */
export function areaOfForm(areas: readonly AccountArea[], form: string): AccountArea | undefined {
  const sectionId = form.split('/')[0];
  return areas.find((area) => area.sections.some((section) => section.id === sectionId));
}
