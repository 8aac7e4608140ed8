import { loadConfig } from '../../config.ts';
import { openDatabase } from '../../db/connection.ts';
import { migrateToLatest } from '../../db/migrator.ts';
import type { Command } from '../command.ts';

export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'Apply pending database migrations',
  usage: 'gatehouse migrate',
  async run(_args, io) {
    const config = loadConfig(io.env, { cwd: io.cwd });
    const database = openDatabase(config.database);
    try {
      const applied = await migrateToLatest(database.db);
      io.stdout.write(applied.length ? `Migrated: ${applied.join(', ')}\n` : 'Nothing to migrate.\n');
      return 0;
    } finally {
      await database.close();
    }
  },
};
