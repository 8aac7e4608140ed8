import { authConfig } from '../../auth/auth.config.ts';
import { pruneExpiredSessions, sessionGuardLifetimes } from '../../auth/session-pruning.ts';
import { loadConfig } from '../../config.ts';
import { openDatabase } from '../../db/connection.ts';
import { systemClock } from '../../lib/clock.ts';
import type { Command } from '../command.ts';

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

export const sessionsPruneCommand: Command = {
  name: 'sessions:prune',
  summary: 'Delete expired browser sessions and remember-me tokens',
  usage: 'gatehouse sessions:prune',
  async run(_args, io) {
    const config = loadConfig(io.env, { cwd: io.cwd });
    const database = openDatabase(config.database);
    try {
      const guards = sessionGuardLifetimes(authConfig(config), config.sessionAbsoluteLifetimeMinutes);
      const result = await pruneExpiredSessions(database.db, guards, systemClock.now());
      io.stdout.write(
        `Pruned ${plural(result.sessions, 'expired session')} and ${plural(result.rememberTokens, 'expired remember-me token')}.\n`,
      );
      return 0;
    } finally {
      await database.close();
    }
  },
};
