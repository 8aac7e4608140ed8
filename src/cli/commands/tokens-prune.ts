import type { CommandRun } from '../command.ts';
import { withServices } from '../services.ts';

export const run: CommandRun = (_args, io) =>
  withServices(io, async ({ auth, clock }) => {
    const count = await auth.tokens.prune(clock.now());
    io.stdout.write(`Pruned ${count} expired token${count === 1 ? '' : 's'}.\n`);
    return 0;
  });
