/**
 * A tiny escaping template tag: every interpolated value is HTML-escaped unless it is already
 * Html (the output of another `html` call), so markup cannot be injected through user data.
 */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

const SPECIAL = /[&<>"']/;

export function escapeHtml(value: string): string {
  // Most interpolated values (labels, names) need no escaping: a test is far cheaper than a replace.
  return SPECIAL.test(value) ? value.replace(/[&<>"']/g, (c) => ESCAPES[c]!) : value;
}

type Value = Html | string | number | boolean | null | undefined | readonly Value[];

function render(value: Value): string {
  if (value === null || value === undefined || value === false || value === true) return '';
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** Marks trusted, already-safe markup. Never pass user input. */
export function raw(markup: string): Html {
  return new Html(markup);
}
