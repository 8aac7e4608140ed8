import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Failure, type FieldSpec, field, type Rule, rules } from '../../lib/validation.ts';
import { commonVariantBase, personalParts } from './password-guesses.ts';

/**
 * The password rules of every form that sets a password (registration, password reset, password
 * change, make:admin): 8–128 characters, confirmed, not one of the passwords attackers try first nor
 * such a password dressed up (`Passw0rd123`), and not built of what an attacker knows of the account.
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

/**
 * A listed password with digits or symbols around it or letters swapped for look-alike digits
 * (`Passw0rd123`, `password1234`): guessing tools try exactly these "mangling rules" right after the
 * list itself (hashcat's best64, John's wordlist rules), so they are as weak as the word.
 */
export function isCommonVariant(password: string): boolean {
  return commonVariantBase(password, (candidate) => commonList().has(candidate)) !== null;
}

/**
 * What an attacker knows of an account before guessing: its address, the name it shows, the
 * service's name. A password containing one is among the first guessed (docs/security.md).
 * `appName` comes from the caller (APP_NAME); `email` and `name` from the caller or the form.
 */
export interface PasswordFacts {
  readonly appName: string;
  readonly email?: string;
  readonly name?: string;
}

/**
 * Forms carry the facts the form itself does not hold (APP_NAME; the signed-in user's address and
 * name on a password change) under this key. A symbol: no JSON or form body can contain one, so a
 * client cannot switch the check off or feed it other facts.
 */
export const PASSWORD_FACTS: unique symbol = Symbol('password facts');

/** The form body with the facts attached for newPasswordField's rule (a copy; the body is not changed). */
export function withPasswordFacts(body: unknown, facts: PasswordFacts): Record<string | symbol, unknown> {
  const fields = body !== null && typeof body === 'object' && !Array.isArray(body) ? body : {};
  return { ...fields, [PASSWORD_FACTS]: facts };
}

/** The failure for a password that contains the e-mail's local part, the name or APP_NAME. */
export function personalPasswordFailure(password: string, facts: PasswordFacts): Failure | undefined {
  return personalParts(facts).some((part) => containsFolded(password, part))
    ? { key: 'validation.password_personal' }
    : undefined;
}

const fold = (text: string) => text.normalize('NFKC').toLowerCase();
const containsFolded = (password: string, part: string) => fold(password).includes(fold(part));

/** Reads the facts: those a caller attached, completed by the form's own `email` and `name`. */
function factsOf(input: Record<string, unknown>): PasswordFacts | null {
  const attached = (input as Record<symbol, unknown>)[PASSWORD_FACTS] as PasswordFacts | undefined;
  const text = (key: string) => (typeof input[key] === 'string' ? (input[key] as string) : undefined);
  const email = attached?.email ?? text('email');
  const name = attached?.name ?? text('name');
  if (attached === undefined && email === undefined && name === undefined) return null;
  return { appName: attached?.appName ?? '', email, name };
}

const notCommonVariant = (): Rule =>
  rules.custom((value) =>
    typeof value === 'string' && isCommonVariant(value)
      ? { key: 'validation.password_common_variant' }
      : undefined,
  );

const notPersonal = (): Rule =>
  Object.assign(
    (value: unknown, input: Record<string, unknown>) => {
      const facts = factsOf(input);
      return typeof value === 'string' && facts !== null ? personalPasswordFailure(value, facts) : undefined;
    },
    { describes: { description: 'Must not contain the e-mail local part, the name or APP_NAME.' } },
  );

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
 * The guessability checks run last, so a too-short or unconfirmed value gets that message first. The
 * personal check needs the facts: the form's `email`/`name`, and withPasswordFacts for the rest.
 */
export function newPasswordField(): FieldSpec {
  return field.required(
    rules.string(),
    rules.min(PASSWORD_MIN_LENGTH),
    rules.max(PASSWORD_MAX_LENGTH),
    rules.confirmed(),
    notCommonPassword(),
    notCommonVariant(),
    notPersonal(),
  );
}
