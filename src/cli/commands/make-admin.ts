import { createInterface, type Interface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import { type NewAdminInput, validateNewAdmin } from '../../admin/create-admin.ts';
import { loadConfig } from '../../config.ts';
import { createI18n, type Translate } from '../../i18n/i18n.ts';
import { ValidationError, validationError } from '../../lib/validation.ts';
import { normaliseEmail } from '../../users/user.ts';
import { findUserByEmail } from '../../users/users.repository.ts';
import { type CommandArgs, CommandError, type CommandIO } from '../command.ts';
import { commandAudit, withServices } from '../services.ts';

type Field = keyof NewAdminInput;
const FIELDS: readonly Field[] = ['name', 'email', 'password'];
const ATTEMPTS = 3;

/**
 * `gatehouse make:admin [--name N] [--email E] [--password P]` (docs/guides/admin-panel.md): creates a verified user
 * that passes the panel-access check. Missing values are asked for on a terminal (the password hidden
 * and asked twice); without a terminal the command refuses instead of hanging on a prompt nobody sees.
 */
export async function run({ values }: CommandArgs, io: CommandIO): Promise<number> {
  // A bad configuration stops the command before any question is asked.
  const config = loadConfig(io.env, { cwd: io.cwd });
  // Registration's rules and messages, in English like the rest of the command line.
  const t = createI18n('en', 'en').translator('en');
  const given: Partial<NewAdminInput> = {};
  for (const f of FIELDS) if (typeof values[f] === 'string') given[f] = values[f] as string;
  const missing = FIELDS.filter((f) => given[f] === undefined);
  // Bad flags fail before any question is asked.
  for (const f of FIELDS) if (given[f] !== undefined) checked(() => checkField(f, given[f]!, given[f]!, t));

  return withServices(
    io,
    async (services) => {
      const { admin, database } = services;
      // A taken address is reported before anything else is asked for — before the password is typed
      // twice, and before a run without a terminal is told which flags it left out (docs/guides/admin-panel.md).
      // (The unique index still decides a race: admin.create reports "taken" too.)
      const taken = async (email: string) =>
        (await findUserByEmail(database.db, normaliseEmail(email))) !== undefined;
      if (given.email !== undefined && (await taken(given.email))) {
        throw new CommandError(t('validation.unique', { attribute: 'email' }));
      }
      // Only then the flags left out: a script is not told to add --password for an address that is taken.
      if (missing.length > 0 && !io.stdin.isTTY) {
        throw new CommandError(
          `Missing ${missing.map((f) => `--${f}`).join(', ')}: stdin is not a terminal, so make:admin will not prompt for it.`,
        );
      }
      if (missing.length > 0) Object.assign(given, await askFor(missing, io, t, taken));
      const input = checked(() => validateNewAdmin(given as NewAdminInput, t, config.appName));
      const result = await admin.create(input, commandAudit(services));
      if (result.status === 'taken') throw new CommandError(t('validation.unique', { attribute: 'email' }));
      if (result.status === 'refused') {
        throw new CommandError(
          `${input.email} is outside PANEL_EMAIL_DOMAINS (${config.panelEmailDomains.join(', ')}); the panel would refuse it.`,
        );
      }
      io.stdout.write(`Success! ${result.user.email} may now log in at ${config.appUrl}/admin/login\n`);
      return 0;
    },
    { migrate: true, config },
  );
}

/** Runs a validation; its first message becomes the command's one line on stderr. */
function checked<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof ValidationError) throw new CommandError(error.summary);
    throw error;
  }
}

/** Validates one field with registration's rules (the others filled with valid stand-ins). */
function checkField(field: Field, value: string, confirmation: string, t: Translate): void {
  // Stand-ins too short to trip the personal-password rule: the full check, with the real name,
  // address and APP_NAME, runs once every field is known.
  const valid = { name: 'A', email: 'a@example.com', password: 'a valid passphrase' };
  const input = { ...valid, [field]: value };
  validateNewAdmin({ ...input, confirmation: field === 'password' ? confirmation : input.password }, t, '');
}

async function askFor(
  fields: readonly Field[],
  io: CommandIO,
  t: Translate,
  emailTaken: (email: string) => Promise<boolean>,
): Promise<Partial<NewAdminInput>> {
  const prompt = new Prompt(io);
  const answers: Partial<NewAdminInput> = {};
  try {
    for (const field of fields) {
      for (let attempt = 1; ; attempt++) {
        const value =
          field === 'password' ? await prompt.secret('Password: ') : await prompt.ask(`${labels[field]}: `);
        const confirmation = field === 'password' ? await prompt.secret('Confirm password: ') : value;
        try {
          checkField(field, value, confirmation, t);
          if (field === 'email' && (await emailTaken(value))) {
            throw validationError({ email: [t('validation.unique', { attribute: 'email' })] }, t);
          }
          answers[field] = value;
          break;
        } catch (error) {
          if (!(error instanceof ValidationError) || attempt >= ATTEMPTS) throw error;
          io.stderr.write(`${error.summary}\n`);
        }
      }
    }
    return answers;
  } catch (error) {
    if (error instanceof ValidationError) throw new CommandError(error.summary);
    throw error;
  } finally {
    prompt.close();
  }
}

const labels: Record<Field, string> = { name: 'Name', email: 'Email', password: 'Password' };

/**
 * Questions on the terminal through node:readline. Answers are read as a stream of lines, so what
 * is typed ahead of a prompt is kept, not lost. For secrets the echo is muted: readline writes typed
 * characters to `output`, which then drops them, so the password never appears on screen.
 */
class Prompt {
  readonly #rl: Interface;
  readonly #lines: AsyncIterator<string>;
  #muted = false;

  constructor(private readonly io: CommandIO) {
    const output = new Writable({
      write: (chunk, _encoding, done) => {
        if (!this.#muted) io.stdout.write(chunk);
        done();
      },
    });
    this.#rl = createInterface({ input: io.stdin, output, terminal: true });
    // Ctrl-C (raw mode turns it into a key, not a signal) ends the input like Ctrl-D: cancelled.
    this.#rl.on('SIGINT', () => this.#rl.close());
    this.#lines = this.#rl[Symbol.asyncIterator]();
  }

  async #next(): Promise<string> {
    const line = await this.#lines.next();
    if (line.done) throw new CommandError('Cancelled: nothing was created.');
    return line.value;
  }

  async ask(question: string): Promise<string> {
    this.#rl.setPrompt(question);
    this.#rl.prompt();
    return (await this.#next()).trim();
  }

  async secret(question: string): Promise<string> {
    this.io.stdout.write(question);
    this.#rl.setPrompt('');
    this.#muted = true;
    try {
      return await this.#next();
    } finally {
      this.#muted = false;
      this.io.stdout.write('\n');
    }
  }

  close(): void {
    this.#rl.close();
  }
}
