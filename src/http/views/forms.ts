import type { Translate } from '../../i18n/i18n.ts';
import { type Html, html } from '../../lib/html.ts';
import type { Errors, ValidationError } from '../../lib/validation.ts';

/**
 * Form components shared by every page with a form (log in, register, reset, and the account pages
 * that come later). What they promise a person:
 * - each field has a label, its hint and its error linked by aria-describedby, and aria-invalid;
 * - after a failed submit the first invalid field has focus (the `autofocus` attribute: no script
 *   needed) and the page title starts with the number of errors;
 * - passwords are never sent back; a field that was cleared says so beside it;
 * - a password field has a show/hide button once the page's script runs (a plain field without it).
 */

/** What a form page needs to show itself again: errors beside fields and the old input. */
export interface FormState {
  readonly errors?: Errors;
  /** The submitted input, passwords removed (see formState). */
  readonly old?: Readonly<Record<string, unknown>>;
  /** Password fields that held something when submitted: they come back empty, with a note. */
  readonly cleared?: readonly string[];
}

/** A field that holds a secret: never echoed back into a page. */
const isSecretField = (name: string) => /password/.test(name);

/**
 * The state to show a submitted form again with: its errors (see pageErrors) and its input, less
 * every password field, whose names are kept in `cleared` when they were not empty.
 */
export function formState(body: Readonly<Record<string, unknown>>, errors?: Errors): FormState {
  const old: Record<string, unknown> = {};
  const cleared: string[] = [];
  for (const [name, value] of Object.entries(body)) {
    if (!isSecretField(name)) old[name] = value;
    else if (typeof value === 'string' && value !== '') cleared.push(name);
  }
  return { errors, old, cleared };
}

/**
 * The errors as a page shows them. Laravel reports "confirmation does not match" on `password` (JSON
 * clients keep that key, docs/reference/errors.md), but a person has to fix the confirmation field: on a page the
 * message stands there, and that field is the one marked invalid.
 */
export function pageErrors(error: ValidationError): Errors {
  if (error.rules['password'] !== 'validation.confirmed') return error.errors;
  const errors: Errors = {};
  // Keep the form's order (the first invalid field gets focus): the confirmation takes password's place.
  for (const [name, messages] of Object.entries(error.errors)) {
    errors[name === 'password' ? 'password_confirmation' : name] = messages;
  }
  return errors;
}

/** "2 errors: Create an account" — a screen reader hears at once that the submit failed, and how. */
export function formTitle(t: Translate, title: string, state: FormState): string {
  const count = Object.keys(state.errors ?? {}).length;
  return count === 0 ? title : `${t('pages.form_errors', { count })}: ${title}`;
}

export function csrfField(token: string): Html {
  return html`<input type="hidden" name="_token" value="${token}">`;
}

export interface InputOptions {
  name: string;
  /** The element id, when a page holds two fields of one name (two password checks): `field-<name>`. */
  id?: string;
  label: string;
  type?: 'text' | 'email' | 'password' | 'search';
  autocomplete?: string;
  /** The on-screen keyboard to offer (digits for one-time codes). */
  inputmode?: 'numeric' | 'text';
  required?: boolean;
  /** Focus this field when the form shows without errors (with errors, the first invalid one gets it). */
  autofocus?: boolean;
  /** Passwords are never echoed back, whatever `old` holds. */
  keepOld?: boolean;
  hint?: string;
  /** Markup under the hint, described with it (e.g. the password rules list). */
  details?: Html;
}

/** A labelled input with its hint and error message linked through aria-describedby. */
export function input(t: Translate, state: FormState, options: InputOptions): Html {
  const { name, type = 'text' } = options;
  const error = state.errors?.[name]?.[0];
  const old = options.keepOld !== false && type !== 'password' ? state.old?.[name] : undefined;
  const id = options.id ?? `field-${name}`;
  const cleared = type === 'password' && state.cleared?.includes(name) === true;
  // One note per form: the first cleared field carries it (in the plural when several were cleared), and
  // the others point at it. Forms with several password fields use the default ids (`field-<name>`).
  const clearedFirst = cleared && state.cleared![0] === name;
  const clearedNote = clearedFirst ? `${id}-cleared` : `field-${state.cleared?.[0]}-cleared`;
  const firstInvalid = state.errors ? Object.keys(state.errors)[0] === name : false;
  const focus = state.errors && Object.keys(state.errors).length > 0 ? firstInvalid : options.autofocus;
  const described = [
    error ? `${id}-error` : '',
    cleared ? clearedNote : '',
    options.hint || options.details ? `${id}-hint` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const control = html`<input id="${id}" name="${name}" type="${type}"${typeof old === 'string' ? html` value="${old}"` : ''}${
    options.autocomplete ? html` autocomplete="${options.autocomplete}"` : ''
  }${options.inputmode ? html` inputmode="${options.inputmode}"` : ''}${options.required ? html` required` : ''}${focus ? html` autofocus` : ''}${
    error ? html` aria-invalid="true"` : ''
  }${described ? html` aria-describedby="${described}"` : ''}>`;
  return html`<div class="field${error ? ' has-error' : ''}">
  <label for="${id}">${options.label}</label>
  ${type === 'password' ? passwordControl(t, id, control) : control}
  ${options.hint || options.details ? html`<div class="hint" id="${id}-hint">${options.hint ? html`<p>${options.hint}</p>` : ''}${options.details ?? ''}</div>` : ''}
  ${clearedFirst ? html`<p class="hint cleared" id="${id}-cleared">${t('pages.password_cleared', { count: state.cleared!.length })}</p>` : ''}
  ${error ? html`<p class="error" id="${id}-error">${error}</p>` : ''}
</div>`;
}

/**
 * A password input with a show/hide toggle. The button is `hidden` in the markup and revealed by
 * /assets/app.js, so without JavaScript there is no button that does nothing; it is a real button
 * (keyboard, screen readers) whose pressed state says whether the password is shown. It shows one word
 * ("Show") and is named "Show password" by a hidden span, not aria-label, so it is no label of the field
 * (a lookup by the label "Password" finds the input only).
 */
function passwordControl(t: Translate, id: string, control: Html): Html {
  return html`<div class="password-control">${control}<button type="button" class="reveal" data-reveal="${id}" aria-controls="${id}" aria-pressed="false" hidden><span aria-hidden="true">${t('pages.show')}</span><span class="visually-hidden">${t('pages.show_password')}</span></button></div>`;
}

/**
 * The rules of a new password, shown before the user types (linked to the field as its hint), and a
 * strength meter that /assets/app.js fills as they type (hidden without it). The meter only guides: the
 * server's rules decide (length, common and personal passwords).
 */
export function passwordRules(t: Translate, min: number, max: number): Html {
  return html`<ul class="rules">
  <li>${t('pages.password_rule_length', { min, max })}</li>
  <li>${t('pages.password_rule_common')}</li>
  <li>${t('pages.password_rule_passphrase')}</li>
</ul>
<div class="strength" data-strength data-min="${min}" data-label-0="${t('pages.strength.too_short')}" data-label-1="${t('pages.strength.weak')}" data-label-2="${t('pages.strength.fair')}" data-label-3="${t('pages.strength.good')}" data-label-4="${t('pages.strength.strong')}" hidden>
  <span class="strength-bar" aria-hidden="true"><span></span></span>
  <span class="strength-text" aria-live="polite"></span>
</div>`;
}

export function checkbox(state: FormState, name: string, label: string): Html {
  const old = state.old?.[name];
  const checked = old === true || old === 'on' || old === '1' || old === 'true';
  return html`<div class="field checkbox">
  <label><input type="checkbox" name="${name}" value="1"${checked ? html` checked` : ''}> ${label}</label>
</div>`;
}

/** What a form page shows of the browser's session: its CSRF token, the status flashed to it. */
export interface FormSession {
  readonly csrfToken: string;
  readonly status: unknown;
  /** Whether this guard has remember-me at all (the panel's has not): the login form's box. */
  readonly offersRememberMe: boolean;
}

export function statusMessage(message: unknown): Html {
  return typeof message === 'string' && message !== ''
    ? html`<div class="status" role="status">${message}</div>`
    : html``;
}
