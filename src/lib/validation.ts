import type { Translate } from '../i18n/i18n.ts';

/**
 * Laravel-style validation with Laravel's English wording, translated per request.
 * Each field runs its rules in order and stops at the first failure (bail), so one field
 * never reports two contradictory messages.
 */

export interface Failure {
  key: string;
  params?: Record<string, unknown>;
}

/** A fragment of JSON Schema (2020-12, as OpenAPI 3.1 uses it). */
export type JsonSchema = Record<string, unknown>;

/**
 * A rule checks a present value and may replace it (e.g. trimming); `undefined` result = pass unchanged.
 * `describes` is what the rule asks of a JSON value, as JSON Schema: the OpenAPI document's request
 * bodies are built from the very rules that validate them (http/openapi/), so they cannot drift apart.
 */
export type Rule = ((
  value: unknown,
  input: Record<string, unknown>,
) => Failure | { value: unknown } | undefined) & {
  readonly describes?: JsonSchema;
};

/** A rule with its JSON Schema description. */
export function described(rule: Rule, describes: JsonSchema): Rule {
  return Object.assign(rule, { describes });
}

export interface FieldSpec {
  readonly rules: readonly Rule[];
  readonly required: boolean;
  /** An explicit null counts as absent (Laravel's `nullable`); only where null can widen nothing. */
  readonly nullable?: boolean;
}

export type Schema = Record<string, FieldSpec>;

export type Errors = Record<string, string[]>;

export class ValidationError extends Error {
  constructor(
    readonly errors: Errors,
    readonly summary: string,
    /** Per field, the message key of the rule that failed (pages place some messages differently). */
    readonly rules: Readonly<Record<string, string>> = {},
  ) {
    super(summary);
  }
}

const fail = (key: string, params?: Record<string, unknown>): Failure => ({ key, params });

export const field = {
  required: (...rules: Rule[]): FieldSpec => ({ rules, required: true }),
  optional: (...rules: Rule[]): FieldSpec => ({ rules, required: false }),
  nullable: (...rules: Rule[]): FieldSpec => ({ rules, required: false, nullable: true }),
};

// Control characters other than tab/newline never belong in form text; NUL breaks C libraries downstream.
// biome-ignore lint/suspicious/noControlCharactersInRegex: this pattern exists to match control characters
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

export const rules = {
  string: (): Rule =>
    described((v) => (typeof v === 'string' && !CONTROL.test(v) ? undefined : fail('validation.string')), {
      type: 'string',
    }),
  /** A single-line string: also refuses CR/LF, for values that may end up in mail headers. */
  line: (): Rule =>
    described(
      (v) =>
        typeof v === 'string' && !CONTROL.test(v) && !/[\r\n]/.test(v)
          ? undefined
          : fail('validation.string'),
      { type: 'string', pattern: '^[^\\r\\n]*$' },
    ),
  email: (): Rule =>
    described((v) => (typeof v === 'string' && isEmail(v) ? undefined : fail('validation.email')), {
      type: 'string',
      format: 'email',
    }),
  min: (min: number): Rule =>
    described(
      (v) =>
        typeof v === 'string' && [...v].length < min ? fail('validation.min.string', { min }) : undefined,
      { minLength: min },
    ),
  /** Characters of a string, or items of a list (the description says which once the type is known). */
  max: (max: number): Rule =>
    described(
      (v) => {
        if (typeof v === 'string' && [...v].length > max) return fail('validation.max.string', { max });
        if (Array.isArray(v) && v.length > max) return fail('validation.max.array', { max });
        return undefined;
      },
      { maxLength: max },
    ),
  confirmed: (): Rule =>
    described(
      (v, input) => {
        const confirmation = input['password_confirmation'];
        return typeof confirmation === 'string' && confirmation === v
          ? undefined
          : fail('validation.confirmed');
      },
      { description: 'Must be repeated in `password_confirmation`.' },
    ),
  boolean: (): Rule =>
    described(
      (v) => {
        if (v === true || v === 'true' || v === '1' || v === 1 || v === 'on') return { value: true };
        if (v === false || v === 'false' || v === '0' || v === 0 || v === 'off') return { value: false };
        return fail('validation.boolean');
      },
      { type: 'boolean' },
    ),
  integer: (min?: number, max?: number): Rule =>
    described(
      (v) => {
        const n = typeof v === 'string' && /^-?\d{1,15}$/.test(v) ? Number(v) : v;
        if (typeof n !== 'number' || !Number.isSafeInteger(n)) return fail('validation.integer');
        if (min !== undefined && n < min) return fail('validation.min.numeric', { min });
        if (max !== undefined && n > max) return fail('validation.max.numeric', { max });
        return { value: n };
      },
      {
        type: 'integer',
        ...(min === undefined ? {} : { minimum: min }),
        ...(max === undefined ? {} : { maximum: max }),
      },
    ),
  array: (): Rule =>
    described((v) => (Array.isArray(v) ? undefined : fail('validation.array')), { type: 'array' }),
  matches: (pattern: RegExp): Rule =>
    described((v) => (typeof v === 'string' && pattern.test(v) ? undefined : fail('validation.format')), {
      pattern: pattern.source,
    }),
  custom: (check: (v: unknown) => Failure | undefined, describes: JsonSchema = {}): Rule =>
    described(check, describes),
};

/** Pragmatic RFC 5321 shape: one @, no spaces or control characters, a dotted or bracketed domain. */
export function isEmail(raw: string): boolean {
  // Judged in the form it is stored in (users/user.ts normaliseEmail): a decomposed "é" is a letter too.
  const value = raw.normalize('NFC');
  if (value.length > 254 || CONTROL.test(value) || /[\s,;<>()[\]\\"]/.test(value)) return false;
  const at = value.lastIndexOf('@');
  if (at < 1 || at !== value.indexOf('@')) return false;
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (local.length > 64 || local.startsWith('.') || local.endsWith('.') || local.includes('..')) return false;
  return /^[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?(?:\.[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?)+$/u.test(
    domain,
  );
}

const isBlank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/** Turns "device_name" into the translated attribute name ("device name"). */
function attributeName(name: string, t: Translate): string {
  const key = `validation.attributes.${name}`;
  const translated = t(key);
  return translated === key ? name.replace(/_/g, ' ') : translated;
}

/**
 * Validates `input` against `schema`. Returns the validated (and normalised) values; throws
 * ValidationError with every field's first message and Laravel's summary line otherwise.
 * A non-object body (array, string, null) is treated as an empty form.
 */
export function validate<T = Record<string, unknown>>(input: unknown, schema: Schema, t: Translate): T {
  const body: Record<string, unknown> =
    input !== null && typeof input === 'object' && !Array.isArray(input)
      ? (input as Record<string, unknown>)
      : {};
  const errors: Errors = {};
  const failed: Record<string, string> = {};
  const output: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(schema)) {
    let value = Object.hasOwn(body, name) ? body[name] : undefined;
    if (isBlank(value)) {
      if (spec.required) {
        errors[name] = [t('validation.required', { attribute: attributeName(name, t) })];
        failed[name] = 'validation.required';
      }
      // An explicit JSON null is not "absent" for an optional field (Laravel without `nullable`): it goes
      // through the type rules, so `"abilities": null` is refused instead of silently granting ["*"].
      if (spec.required || value !== null || spec.nullable) continue;
    }
    for (const rule of spec.rules) {
      const result = rule(value, body);
      if (result === undefined) continue;
      if ('value' in result) {
        value = result.value;
        continue;
      }
      errors[name] = [t(result.key, { attribute: attributeName(name, t), ...result.params })];
      failed[name] = result.key;
      break;
    }
    if (!errors[name]) output[name] = value;
  }
  if (Object.keys(errors).length > 0) throw validationError(errors, t, failed);
  return output as T;
}

/** Builds the error with Laravel's summary: "<first message> (and N more errors)". */
export function validationError(
  errors: Errors,
  t: Translate,
  failed: Record<string, string> = {},
): ValidationError {
  const messages = Object.values(errors).flat();
  const first = messages[0] ?? '';
  const more = messages.length - 1;
  const summary = more > 0 ? `${first} ${t('validation.summary_more', { count: more })}` : first;
  return new ValidationError(errors, summary, failed);
}

/** A single-field error raised after the form passed its rules (e.g. auth.failed on email). */
export function fieldError(fieldName: string, message: string, t: Translate): ValidationError {
  return validationError({ [fieldName]: [message] }, t);
}
