import { pruneExpiredTokens } from '../../auth/access-tokens.ts';
import { loadConfig } from '../../config.ts';
import { openDatabase } from '../../db/connection.ts';
import { systemClock } from '../../lib/clock.ts';
import type { Command } from '../command.ts';

export const tokensPruneCommand: Command = {
  name: 'tokens:prune',
  summary: 'Delete expired API tokens',
  usage: 'gatehouse tokens:prune',
  async run(_args, io) {
    const config = loadConfig(io.env, { cwd: io.cwd });
    const database = openDatabase(config.database);
    try {
      const settings = { expirationMinutes: config.tokenExpirationMinutes, prefix: config.tokenPrefix };
      const count = await pruneExpiredTokens(database.db, settings, systemClock);
      io.stdout.write(`Pruned ${count} expired token${count === 1 ? '' : 's'}.\n`);
      return 0;
    } finally {
      await database.close();
    }
  },
};
