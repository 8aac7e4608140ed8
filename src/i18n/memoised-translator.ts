import type { Translate } from './i18n.ts';

/*
 * A speed trick that stays because the benchmark needs it (like auth/cache/, kept out of the code
 * that uses it): i18next's own t() costs ~16 µs per call here and ~27 µs with a {{name}} value (it
 * copies its whole options object on every call), and a page makes several such calls. Measured by
 * sending only the calls with values back to i18next (the dashboard's greeting is one): session GET
 * /dashboard went from 33–40 to 79–86 µs of server CPU per request, far under the 0.4 × bare target.
 */

const MEMO_LIMIT = 5000;
const PLACEHOLDER = /{{([^{}]*)}}/g;
const VARIABLE = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*$/;
/** Options that change what i18next resolves (plurals, context, defaults…): those calls go to i18next. */
const I18NEXT_OPTIONS = new Set([
  'count',
  'context',
  'defaultValue',
  'lng',
  'lngs',
  'fallbackLng',
  'ns',
  'keyPrefix',
  'keySeparator',
  'nsSeparator',
  'returnObjects',
  'returnDetails',
  'joinArrays',
  'postProcess',
  'interpolation',
  'skipInterpolation',
  'replace',
  'ordinal',
  'nest',
  'missingInterpolationHandler',
]);

/**
 * The catalogs never change after start, so each key's text in one language is resolved by i18next
 * once (key parsing, fallback chain, nesting) and kept. i18next's own interpolation costs ~40 µs a
 * call, the largest item of a page's profile; `{{name}}` placeholders with string or number values
 * are filled here instead, with the same result (test/unit/i18n-interpolation.test.ts compares every
 * catalog entry). Anything else — plurals, context, defaults, formats, nesting, a missing value —
 * still goes through i18next. Bounded, so keys built from input could never grow it without limit.
 */
export function memoised(t: Translate): Translate {
  const call = t as unknown as (...args: unknown[]) => unknown;
  const texts = new Map<string, string>();
  const templates = new Map<string, Template | null>();
  const translate = (key: unknown, ...rest: unknown[]): unknown => {
    if (typeof key !== 'string' || rest.length > 1) return call(key, ...rest);
    if (rest.length === 0) {
      const hit = texts.get(key);
      if (hit !== undefined) return hit;
      const text = call(key);
      if (typeof text === 'string' && texts.size < MEMO_LIMIT) texts.set(key, text);
      return text;
    }
    const values = rest[0];
    if (!isPlainValues(values)) return call(key, values);
    let template = templates.get(key);
    if (template === undefined) {
      const text = call(key, { skipInterpolation: true });
      template = typeof text === 'string' ? compile(text) : null;
      if (templates.size < MEMO_LIMIT) templates.set(key, template);
    }
    return (template && fill(template, values)) ?? call(key, values);
  };
  // getFixedT's function also carries lng/ns/keyPrefix properties; keep them.
  return Object.assign(translate, t) as unknown as Translate;
}

/** A text split at its `{{name}}` placeholders: literal, name, literal, …, literal. */
type Template = readonly string[];

/** null when the text needs i18next to fill it (nesting, formats, anything but a bare name). */
function compile(text: string): Template | null {
  if (text.includes('$t(')) return null;
  const parts: string[] = [];
  let last = 0;
  for (const match of text.matchAll(PLACEHOLDER)) {
    const name = VARIABLE.exec(match[1]!)?.[1];
    if (name === undefined) return null;
    parts.push(text.slice(last, match.index), name);
    last = match.index + match[0].length;
  }
  parts.push(text.slice(last));
  return parts;
}

/** The text with string or number values put in; undefined when one is missing or of another type. */
function fill(template: Template, values: Record<string, unknown>): string | undefined {
  let text = template[0]!;
  for (let i = 1; i < template.length; i += 2) {
    const name = template[i]!;
    const value = Object.hasOwn(values, name) ? values[name] : undefined;
    if (typeof value === 'string') text += value;
    else if (typeof value === 'number') text += String(value);
    else return undefined;
    text += template[i + 1]!;
  }
  return text;
}

function isPlainValues(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) {
    return false;
  }
  for (const name of Object.keys(value)) {
    if (I18NEXT_OPTIONS.has(name) || name.startsWith('defaultValue')) return false;
  }
  return true;
}
