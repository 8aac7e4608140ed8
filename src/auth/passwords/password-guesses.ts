/**
 * How guessing tools dress up a word (password-policy.ts decides what is refused; this file only
 * takes passwords apart). Kept apart from the policy so each rule reads in a few lines.
 */

/** Look-alike digits and symbols and the letters they stand for (leetspeak); `1` stands for i or l. */
const LOOK_ALIKES: Readonly<Record<string, readonly string[]>> = {
  '0': ['o'],
  '1': ['i', 'l'],
  '3': ['e'],
  '4': ['a'],
  '5': ['s'],
  '7': ['t'],
  '8': ['b'],
  '9': ['g'],
  '@': ['a'],
  $: ['s'],
  '!': ['i'],
};

/** Both readings of the look-alikes in `text` (all `1` as i, all `1` as l): two strings, not 2^n. */
function unswapped(text: string): string[] {
  return [0, 1].map((reading) =>
    [...text].map((c) => LOOK_ALIKES[c]?.[Math.min(reading, LOOK_ALIKES[c]!.length - 1)] ?? c).join(''),
  );
}

/** Digits and symbols appended or prepended (`password1234`, `!!password`) taken off. */
function trimmed(text: string): string {
  return text.replace(/^[^\p{L}]+|[^\p{L}]+$/gu, '');
}

/** Only the symbols at either end taken off (`qwerty123456!` → `qwerty123456`, itself a listed password). */
function symbolsTrimmed(text: string): string {
  return text.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
}

/**
 * Keys next to each other, as guessing tools walk them before any word list: the letter rows of QWERTY,
 * QWERTZ and AZERTY keyboards, the digit row, and the columns of a QWERTY keyboard (`1qaz2wsx`,
 * `qazwsx`). The word list holds only passwords of 8 characters or more, so a short walk dressed up
 * (`Qwerty123456!`, `Asdfgh2024!`) would otherwise pass.
 */
const KEYBOARD_RUNS = [
  'qwertyuiop',
  'asdfghjkl',
  'zxcvbnm',
  'qwertzuiop',
  'yxcvbnm',
  'azertyuiop',
  'qsdfghjklm',
  'wxcvbn',
  '1234567890',
  '1qaz2wsx3edc4rfv5tgb6yhn7ujm8ik9ol0p',
  'qazwsxedcrfvtgbyhnujmikolp',
];
const WALKS = [...KEYBOARD_RUNS, ...KEYBOARD_RUNS.map((run) => [...run].reverse().join(''))];

/** Whether `candidate`, as a whole, is a run of neighbouring keys (four at least), either way. */
function isKeyboardWalk(candidate: string): boolean {
  return candidate.length >= 4 && WALKS.some((run) => run.includes(candidate));
}

/**
 * The listed word or keyboard walk behind `password` (lower-cased, digits and symbols at either end
 * taken off, or only the symbols, look-alike digits read as letters), or null when there is none.
 * `listed` asks the list.
 */
export function commonVariantBase(password: string, listed: (candidate: string) => boolean): string | null {
  const lower = password.normalize('NFKC').toLowerCase();
  const core = trimmed(lower);
  const candidates = new Set([
    lower,
    core,
    symbolsTrimmed(lower),
    ...unswapped(lower),
    ...unswapped(core).map(trimmed),
  ]);
  for (const candidate of candidates) {
    // Four letters at least: shorter "words" are no word at all, and the list holds none.
    if (candidate.length >= 4 && (listed(candidate) || isKeyboardWalk(candidate))) return candidate;
  }
  return null;
}

/** Parts shorter than this are too common in passwords by chance ("ann", "bob") to refuse. */
const MIN_PART = 4;

/**
 * The parts of what an attacker knows that a password must not contain: the e-mail's local part, the
 * name (whole, and each of its words), the service's name (whole and each word) — each at least four
 * characters long.
 */
export function personalParts(facts: {
  readonly appName: string;
  readonly email?: string;
  readonly name?: string;
}): string[] {
  const local =
    facts.email === undefined ? '' : facts.email.slice(0, Math.max(0, facts.email.lastIndexOf('@')));
  const words = (text: string | undefined) => {
    const whole = (text ?? '').trim();
    return [whole, ...whole.split(/\s+/)];
  };
  return [local, ...words(facts.name), ...words(facts.appName)].filter(
    (part) => [...part].length >= MIN_PART,
  );
}
