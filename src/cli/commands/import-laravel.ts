import { panelAccessCheck } from '../../auth/guards/panel-access.ts';
import { parseDatabaseUrl } from '../../config/database-url.ts';
import { type DatabaseConfig, loadConfig } from '../../config.ts';
import { type ImportTarget, openDryRunTarget } from '../../import/laravel/dry-run-target.ts';
import { ImportError, importLaravel, type Progress } from '../../import/laravel/import.ts';
import { type LaravelSource, openLaravelSource, SourceError } from '../../import/laravel/source.ts';
import { formatSummary } from '../../import/laravel/summary.ts';
import { checkTimeZone } from '../../import/laravel/time.ts';
import { systemClock } from '../../lib/clock.ts';
import { isEmail } from '../../lib/validation.ts';
import { normaliseEmail } from '../../users/user.ts';
import { type CommandArgs, CommandError, type CommandIO } from '../command.ts';
import { USER_MODEL } from '../commands.ts';
import { withServices } from '../services.ts';

/**
 * `gatehouse import:laravel --from <url>` (docs/guides/moving-from-laravel.md): a Laravel application's users and their
 * Sanctum tokens, copied into Gatehouse's database (DATABASE_URL) in one transaction.
 */
export async function run({ values }: CommandArgs, io: CommandIO): Promise<number> {
  const dryRun = values['dry-run'] === true;
  // A dry run writes nothing anywhere: not even a generated storage/app.key.
  const config = loadConfig(io.env, { cwd: io.cwd, storeAppKey: !dryRun });
  const from = values['from'];
  if (typeof from !== 'string' || from === '') {
    throw new CommandError(
      'Missing --from <DATABASE_URL of the Laravel app>. Run "gatehouse import:laravel --help".',
    );
  }
  const sourceConfig = parseDatabaseUrl(from, io.cwd, '--from');
  if (sameDatabase(sourceConfig, config.database)) {
    throw new CommandError("--from names Gatehouse's own database (DATABASE_URL): nothing to import.");
  }
  const admins = adminList(values['admins']);
  const canAccessPanel = panelAccessCheck(config.panelEmailDomains);
  for (const email of admins) {
    if (
      !canAccessPanel({ panelAccess: true, disabledAt: null, email } as Parameters<typeof canAccessPanel>[0])
    ) {
      throw new CommandError(
        `--admins: ${email} is outside PANEL_EMAIL_DOMAINS (${config.panelEmailDomains.join(', ')}); the panel would refuse it.`,
      );
    }
  }
  const zone = typeof values['timezone'] === 'string' ? values['timezone'] : 'UTC';
  try {
    checkTimeZone(zone);
  } catch {
    throw new CommandError(`--timezone: "${zone}" is not a time zone name (such as UTC or Europe/Berlin).`);
  }
  const tokenableType = typeof values['tokenable'] === 'string' ? values['tokenable'] : USER_MODEL;

  // The source first: when it cannot be read, Gatehouse's database is not touched at all.
  let source: LaravelSource;
  try {
    source = await openLaravelSource(sourceConfig);
  } catch (error) {
    throw new CommandError(
      `Cannot read the Laravel database (--from): ${messageOf(error)}. Nothing was written.`,
    );
  }
  const importInto = async (target: ImportTarget, now: number) => {
    const summary = await importLaravel(
      source,
      target,
      { dryRun, admins, tokenableType, zone, locale: config.locale, now },
      progressLine(io),
    );
    io.stdout.write(`${formatSummary(summary, tokenableType)}\n`);
    return 0;
  };
  try {
    if (dryRun) {
      // Only read, never created or migrated (dry-run-target.ts): no server settings, no services.
      const target = openDryRunTarget(config.database);
      try {
        return await importInto(target, systemClock.now());
      } finally {
        await target.close();
      }
    }
    // A real run goes over the same services as the server and the other commands (its database
    // handle, its clock), migrating first.
    return await withServices(io, ({ database, clock }) => importInto(database, clock.now()), {
      migrate: true,
      config,
    });
  } catch (error) {
    if (error instanceof ImportError) throw new CommandError(`${error.message}. Nothing was written.`);
    throw new CommandError(`Import failed: ${messageOf(error)}. Nothing was written.`);
  } finally {
    await source.close();
  }
}

function adminList(raw: unknown): string[] {
  if (raw === undefined) return [];
  const emails = String(raw)
    .split(',')
    .map((e) => normaliseEmail(e))
    .filter((e) => e !== '');
  for (const email of emails) {
    if (!isEmail(email)) throw new CommandError(`--admins: "${email}" is not a valid e-mail address.`);
  }
  return [...new Set(emails)];
}

function sameDatabase(a: DatabaseConfig, b: DatabaseConfig): boolean {
  if (a.dialect === 'sqlite' && b.dialect === 'sqlite')
    return a.filename === b.filename && a.filename !== ':memory:';
  if (a.dialect === 'sqlite' || b.dialect === 'sqlite') return false;
  return a.dialect === b.dialect && a.url === b.url;
}

/**
 * "Users: 500/1200" while the rows go by, on stderr (stdout carries the summary). On a terminal one
 * line is rewritten in place; otherwise a line per tenth of the way, so logs stay short.
 */
function progressLine(io: CommandIO): Progress {
  const terminal = (io.stderr as { isTTY?: boolean }).isTTY === true;
  let last = '';
  return (phase, done, total) => {
    const label = phase === 'users' ? 'Users' : 'Tokens';
    const step = total === 0 ? 10 : Math.floor((done / total) * 10);
    const key = `${phase}:${step}`;
    if (terminal) {
      io.stderr.write(`\r${label}: ${done}/${total}${done >= total ? '\n' : ''}`);
    } else if (key !== last) {
      io.stderr.write(`${label}: ${done}/${total}\n`);
    }
    last = key;
  };
}

function messageOf(error: unknown): string {
  if (error instanceof SourceError) return error.message;
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.replace(/\.$/, '');
}
