import type { Command } from '../command.ts';

export const serveCommand: Command = {
  name: 'serve',
  summary: 'Apply migrations and serve HTTP on HOST:PORT',
  usage: 'gatehouse serve',
  environment:
    'HOST (default 127.0.0.1) and PORT (default 3000) choose where it listens; every other setting is read from the environment and a .env file as for npm start (see README).',
  async run() {
    // Loaded only here: the HTTP server (and the OpenID provider library in it, which warns on Node 20)
    // is no business of the other commands.
    const { serve } = await import('../../server.ts');
    await serve();
    // Keep running: the server owns the process until a signal closes it.
    return new Promise<number>(() => {});
  },
};
