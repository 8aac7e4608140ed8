import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FieldSpec, field, type Rule, rules } from '../lib/validation.ts';

/**
 * The password rules of every form that sets a password (registration, password reset, make:admin):
 * 8–128 characters, confirmed, and not one of the passwords attackers try first.
 *
 * Why these: NIST SP 800-63B asks for a minimum of 8, allowing long passphrases, and screening against
 * lists of commonly used or breached values instead of composition rules. 128 caps the work one
 * request can ask of argon2 without getting in the way of any real passphrase.
 */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;

const listFile = join(dirname(fileURLToPath(import.meta.url)), 'common-passwords.txt');
let commonPasswords: ReadonlySet<string> | undefined;

/** The bundled list (read once, on first use): no network call, no third party sees a password. */
function commonList(): ReadonlySet<string> {
  commonPasswords ??= new Set(
    readFileSync(listFile, 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#')),
  );
  return commonPasswords;
}

/** Case-insensitive: "Password1" is guessed as early as "password1". */
export function isCommonPassword(password: string): boolean {
  return commonList().has(password.toLowerCase());
}

export function commonPasswordCount(): number {
  return commonList().size;
}

/** Refuses listed passwords with Laravel's Password::uncompromised() wording. */
export const notCommonPassword = (): Rule =>
  rules.custom((value) =>
    typeof value === 'string' && isCommonPassword(value) ? { key: 'validation.uncompromised' } : undefined,
  );

/**
 * The `password` field of a form that chooses a new password; `password_confirmation` must repeat it.
 * The common-password check runs last, so a too-short or unconfirmed value gets that message first.
 */
export function newPasswordField(): FieldSpec {
  return field.required(
    rules.string(),
    rules.min(PASSWORD_MIN_LENGTH),
    rules.max(PASSWORD_MAX_LENGTH),
    rules.confirmed(),
    notCommonPassword(),
  );
}
