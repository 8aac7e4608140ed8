import { migrateToLatest } from '../../db/migrator.ts';
import type { Command } from '../command.ts';
import { withServices } from '../services.ts';

export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'Apply pending database migrations',
  usage: 'gatehouse migrate',
  run: (_args, io) =>
    withServices(io, async ({ database }) => {
      const applied = await migrateToLatest(database.db);
      io.stdout.write(applied.length ? `Migrated: ${applied.join(', ')}\n` : 'Nothing to migrate.\n');
      return 0;
    }),
};
