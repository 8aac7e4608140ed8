import { serve } from '../../server.ts';
import type { Command } from '../command.ts';

export const serveCommand: Command = {
  name: 'serve',
  summary: 'Apply migrations and serve HTTP on HOST:PORT',
  usage: 'gatehouse serve',
  async run() {
    await serve();
    // Keep running: the server owns the process until a signal closes it.
    return new Promise<number>(() => {});
  },
};
