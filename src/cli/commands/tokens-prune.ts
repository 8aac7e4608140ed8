import type { Command } from '../command.ts';
import { withServices } from '../services.ts';

export const tokensPruneCommand: Command = {
  name: 'tokens:prune',
  summary: 'Delete expired API tokens',
  usage: 'gatehouse tokens:prune',
  run: (_args, io) =>
    withServices(io, async ({ auth, clock }) => {
      const count = await auth.tokens.prune(clock.now());
      io.stdout.write(`Pruned ${count} expired token${count === 1 ? '' : 's'}.\n`);
      return 0;
    }),
};
