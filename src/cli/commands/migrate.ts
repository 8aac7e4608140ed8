import { migrateToLatest } from '../../db/migrator.ts';
import type { CommandRun } from '../command.ts';
import { withServices } from '../services.ts';

export const run: CommandRun = (_args, io) =>
  withServices(io, async ({ database }) => {
    const applied = await migrateToLatest(database.db);
    io.stdout.write(applied.length ? `Migrated: ${applied.join(', ')}\n` : 'Nothing to migrate.\n');
    return 0;
  });
