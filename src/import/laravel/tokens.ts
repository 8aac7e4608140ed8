import type { NewAccessTokenRow } from '../../auth/tokens/access-tokens.table.ts';
import type { Db } from '../../db/schema.ts';
import { laravelId, type RowContext, toTokenRow } from './rows.ts';
import type { SourceReader } from './source.ts';
import { type Phase, Skips } from './tally.ts';

/**
 * Copies the personal access tokens of `tokenableType` (App\Models\User), a batch at a time in id
 * order, keeping their ids: the client holds "<id>|<secret>", so the id must stay what it was. A token
 * whose user was not imported is left out, and so is one whose id or hash Gatehouse already uses for
 * another token, or whose hash an earlier token of the source has (Sanctum's unique index forbids it,
 * but a database made by hand may lack it): reported, never the end of the whole import.
 */
export async function importTokens(
  reader: SourceReader,
  db: Db,
  write: boolean,
  context: RowContext & {
    readonly tokenableType: string;
    readonly found: number;
    readonly sourceUsers: ReadonlySet<string>;
    readonly accepted: ReadonlySet<number>;
    readonly batchSize: number;
    readonly targetReady: boolean;
  },
  progress: (done: number, total: number) => void,
): Promise<Phase> {
  const phase: Phase = { found: context.found, imported: 0, alreadyThere: 0, skips: new Skips() };
  let after: number | string = 0;
  let done = 0;
  // Every hash this run keeps (imported now or before), across batches: the first token with it wins.
  const kept = new Set<string>();
  for (;;) {
    const batch = await reader.tokens(context.tokenableType, after, context.batchSize);
    if (batch.length === 0) break;
    after = batch.at(-1)!.id;
    done += batch.length;
    const candidates: (NewAccessTokenRow & { id: number })[] = [];
    for (const source of batch) {
      const userId = laravelId(source.tokenable_id);
      if (!context.sourceUsers.has(String(source.tokenable_id))) {
        phase.skips.add('its user does not exist', source.id);
      } else if (userId === null || !context.accepted.has(userId)) {
        phase.skips.add('its user was not imported', source.id);
      } else {
        const converted = toTokenRow(source, userId, context);
        if ('skip' in converted) phase.skips.add(converted.skip, source.id);
        else candidates.push(converted.row);
      }
    }
    const insert = [];
    if (candidates.length > 0) {
      const existing = !context.targetReady
        ? []
        : await db
            .selectFrom('personal_access_tokens')
            .select(['id', 'token'])
            .where((eb) =>
              eb.or([
                eb(
                  'id',
                  'in',
                  candidates.map((c) => c.id),
                ),
                eb(
                  'token',
                  'in',
                  candidates.map((c) => c.token),
                ),
              ]),
            )
            .execute();
      const byId = new Map(existing.map((row) => [row.id, row.token]));
      const hashes = new Set(existing.map((row) => row.token));
      for (const row of candidates) {
        const hash = byId.get(row.id);
        if (kept.has(row.token))
          phase.skips.add('its hash is that of another token of the Laravel database', row.id);
        else if (hash === row.token) phase.alreadyThere++;
        else if (hash !== undefined) phase.skips.add('its id belongs to another Gatehouse token', row.id);
        else if (hashes.has(row.token))
          phase.skips.add('its hash belongs to another Gatehouse token', row.id);
        else insert.push(row);
        if (hash === row.token || insert.at(-1) === row) kept.add(row.token);
      }
    }
    if (write && insert.length > 0) await db.insertInto('personal_access_tokens').values(insert).execute();
    phase.imported += insert.length;
    progress(done, phase.found);
  }
  return phase;
}
