import type { Command } from '../command.ts';
import { withServices } from '../services.ts';

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

export const sessionsPruneCommand: Command = {
  name: 'sessions:prune',
  summary: 'Delete expired browser sessions and remember-me tokens',
  usage: 'gatehouse sessions:prune',
  run: (_args, io) =>
    withServices(io, async ({ auth, clock }) => {
      const result = await auth.sessions.prune(clock.now());
      io.stdout.write(
        `Pruned ${plural(result.sessions, 'expired session')} and ${plural(result.rememberTokens, 'expired remember-me token')}.\n`,
      );
      return 0;
    }),
};
