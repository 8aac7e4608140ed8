import type { CommandRun } from '../command.ts';
import { withServices } from '../services.ts';

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

export const run: CommandRun = (_args, io) =>
  withServices(io, async ({ auth, clock }) => {
    const result = await auth.sessions.prune(clock.now());
    io.stdout.write(
      `Pruned ${plural(result.sessions, 'expired session')} and ${plural(result.rememberTokens, 'expired remember-me token')}.\n`,
    );
    return 0;
  });
