import type { CommandRun } from '../command.ts';
import { withServices } from '../services.ts';

/**
 * `oidc:rotate-keys`: new signing keys become current; every instance signs with them within seconds
 * (oauth/key-ring.ts). The previous keys stay published until what they signed has expired.
 */
export const run: CommandRun = ({ values }, io) =>
  withServices(
    io,
    async ({ oauth }) => {
      await oauth.keys.ensure();
      const { created, deleted } = await oauth.keys.rotate();
      if (values['json']) {
        io.stdout.write(`${JSON.stringify({ current: created, deleted })}\n`);
      } else {
        io.stdout.write(`New signing keys are current: ${created.join(', ')}.\n`);
        if (deleted > 0)
          io.stdout.write(`Deleted ${deleted} key${deleted === 1 ? '' : 's'} retired long enough ago.\n`);
      }
      return 0;
    },
    { migrate: true },
  );
