import { type Html, html } from '../../lib/html.ts';
import type { Errors } from '../../lib/validation.ts';

/** What a form page needs to show itself again: errors beside fields and the old input. */
export interface FormState {
  readonly errors?: Errors;
  readonly old?: Readonly<Record<string, unknown>>;
}

export function csrfField(token: string): Html {
  return html`<input type="hidden" name="_token" value="${token}">`;
}

export interface InputOptions {
  name: string;
  label: string;
  type?: 'text' | 'email' | 'password' | 'search';
  autocomplete?: string;
  required?: boolean;
  autofocus?: boolean;
  /** Passwords are never echoed back, whatever `old` holds. */
  keepOld?: boolean;
  hint?: string;
}

/** A labelled input with its error message linked through aria-describedby. */
export function input(state: FormState, options: InputOptions): Html {
  const { name, type = 'text' } = options;
  const error = state.errors?.[name]?.[0];
  const old = options.keepOld !== false && type !== 'password' ? state.old?.[name] : undefined;
  const id = `field-${name}`;
  const described = [error ? `${id}-error` : '', options.hint ? `${id}-hint` : ''].filter(Boolean).join(' ');
  return html`<div class="field${error ? ' has-error' : ''}">
  <label for="${id}">${options.label}</label>
  <input id="${id}" name="${name}" type="${type}"${typeof old === 'string' ? html` value="${old}"` : ''}${
    options.autocomplete ? html` autocomplete="${options.autocomplete}"` : ''
  }${options.required ? html` required` : ''}${options.autofocus ? html` autofocus` : ''}${
    error ? html` aria-invalid="true"` : ''
  }${described ? html` aria-describedby="${described}"` : ''}>
  ${options.hint ? html`<p class="hint" id="${id}-hint">${options.hint}</p>` : ''}
  ${error ? html`<p class="error" id="${id}-error" role="alert">${error}</p>` : ''}
</div>`;
}

export function checkbox(state: FormState, name: string, label: string): Html {
  const old = state.old?.[name];
  const checked = old === true || old === 'on' || old === '1' || old === 'true';
  return html`<div class="field checkbox">
  <label><input type="checkbox" name="${name}" value="1"${checked ? html` checked` : ''}> ${label}</label>
</div>`;
}

export function statusMessage(message: unknown): Html {
  return typeof message === 'string' && message !== ''
    ? html`<div class="status" role="status">${message}</div>`
    : html``;
}
