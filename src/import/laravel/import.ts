import type { Kysely } from 'kysely';
import { setUserFlag } from '../../admin/panel.repository.ts';
import { recordAudit } from '../../audit/audit.ts';
import type { Dialect } from '../../db/connection.ts';
import type { Database, Db } from '../../db/schema.ts';
import { laravelId, MAX_ID } from './rows.ts';
import { type HighestIds, numberPast } from './sequences.ts';
import type { LaravelSource } from './source.ts';
import type { Phase } from './tally.ts';
import { importTokens } from './tokens.ts';
import { type Collision, findCollisions, importUsers, sourceIdsByEmail, type UserPhase } from './users.ts';

export interface ImportOptions {
  /** Read and decide everything, write nothing. */
  readonly dryRun: boolean;
  /** Lower-cased e-mails that get panel access (--admins). */
  readonly admins: readonly string[];
  /** Whose tokens are imported: Sanctum's tokenable_type of the user model. */
  readonly tokenableType: string;
  /** The zone Laravel wrote timestamps in (config('app.timezone')). */
  readonly zone: string;
  /** The language of imported users (APP_LOCALE). */
  readonly locale: string;
  readonly now: number;
  readonly batchSize?: number;
}

export interface ImportSummary {
  readonly dryRun: boolean;
  readonly users: UserPhase;
  readonly collisions: readonly Collision[];
  /** Null when the source has no personal_access_tokens table (an app without Sanctum). */
  readonly tokens: Phase | null;
  /** Token rows of other tokenable types (a Team, …), left out. */
  readonly otherTokenables: readonly { type: string; count: number }[];
  readonly admins: { readonly granted: string[]; readonly already: string[] };
}

export type Progress = (phase: 'users' | 'tokens', done: number, total: number) => void;

/** The import cannot start: nothing was written. One line for the operator. */
export class ImportError extends Error {}

/**
 * Copies a Laravel application's users and their Sanctum tokens into Gatehouse (docs/guides/moving-from-laravel.md).
 *
 * All or nothing: the source is read in one read-only snapshot and everything is written in ONE
 * transaction of the target, so a source that fails half-way (or any other error) leaves the target
 * exactly as it was. Running it again imports only what is new: rows already imported are
 * recognised by id (users: with the same address; tokens: with the same hash).
 */
export async function importLaravel(
  source: LaravelSource,
  target: { readonly db: Kysely<Database>; readonly dialect: Dialect },
  options: ImportOptions,
  progress: Progress,
): Promise<ImportSummary> {
  return source.snapshot(async (reader) => {
    const emails = await reader.userEmails();
    const collisions = findCollisions(emails);
    const collided = new Set(collisions.flatMap((c) => c.ids));
    const idsByEmail = sourceIdsByEmail(emails, collided);
    for (const email of options.admins) {
      if (!idsByEmail.has(email)) {
        throw new ImportError(
          collisions.some((c) => c.email === email)
            ? `--admins: ${email} is one of several accounts that differ only in case; none of them is imported`
            : `--admins: no user of the Laravel database has the e-mail address ${email}`,
        );
      }
    }
    const tokenTypes = await reader.tokenTypes();
    const highest: HighestIds = {
      users: emails.reduce((most, e) => Math.max(most, laravelId(e.id) ?? 0), 0),
      personal_access_tokens: laravelId((await reader.highestTokenId(MAX_ID)) ?? 0) ?? 0,
    };
    // A dry run does not migrate: into a database Gatehouse has never used, it compares with nobody.
    const targetReady =
      !options.dryRun || (await target.db.introspection.getTables()).some((t) => t.name === 'users');
    const context = { ...options, batchSize: options.batchSize ?? 500, targetReady };

    const run = async (db: Db, write: boolean): Promise<ImportSummary> => {
      const users = await importUsers(reader, db, write, { ...context, collided }, (done, total) =>
        progress('users', done, total),
      );
      const tokens =
        tokenTypes === null
          ? null
          : await importTokens(
              reader,
              db,
              write,
              {
                ...context,
                found: tokenTypes.find((t) => t.type === options.tokenableType)?.count ?? 0,
                sourceUsers: new Set(emails.map((e) => String(e.id))),
                accepted: users.accepted,
              },
              (done, total) => progress('tokens', done, total),
            );
      const admins = await grantPanelAccess(db, write, targetReady, options, idsByEmail, users.accepted);
      if (write) {
        await numberPast(db, target.dialect, highest);
        await recordAudit(db, 'admin.import.laravel', { actorId: null, ip: null, now: options.now }, null, {
          users_imported: users.imported,
          users_skipped: users.skips.total + collided.size,
          tokens_imported: tokens?.imported ?? 0,
          tokens_skipped: tokens?.skips.total ?? 0,
          admins_granted: admins.granted.length,
        });
      }
      const otherTokenables = (tokenTypes ?? []).filter((t) => t.type !== options.tokenableType);
      return { dryRun: !write, users, collisions, tokens, otherTokenables, admins };
    };
    return options.dryRun ? run(target.db, false) : target.db.transaction().execute((trx) => run(trx, true));
  });
}

/** --admins: panel access for those addresses, audited like `gatehouse admin:grant`. */
async function grantPanelAccess(
  db: Db,
  write: boolean,
  targetReady: boolean,
  options: ImportOptions,
  idsByEmail: ReadonlyMap<string, number | null>,
  accepted: ReadonlySet<number>,
): Promise<ImportSummary['admins']> {
  const admins = { granted: [] as string[], already: [] as string[] };
  for (const email of options.admins) {
    const id = idsByEmail.get(email) ?? null;
    if (id === null || !accepted.has(id)) {
      throw new ImportError(
        `--admins: ${email} was not imported (see the skipped users); nothing was written`,
      );
    }
    const current = targetReady
      ? await db.selectFrom('users').select('can_access_panel').where('id', '=', id).executeTakeFirst()
      : undefined;
    if (current?.can_access_panel === 1) {
      admins.already.push(email);
    } else if (!write) {
      admins.granted.push(email);
    } else if (await setUserFlag(db, id, { panelAccess: true }, options.now)) {
      await recordAudit(db, 'admin.user.panel_granted', { actorId: null, ip: null, now: options.now }, id, {
        via: 'import:laravel',
      });
      admins.granted.push(email);
    }
  }
  return admins;
}
