import { serve } from '../../server.ts';

/**
 * `gatehouse serve`: the server, as `npm start` runs it, in this process. Loaded only when it runs: the
 * HTTP server (and the OpenID provider library in it, which warns on Node 20) is no business of the
 * other commands.
 */
export async function run(): Promise<number> {
  await serve();
  // Keep running: the server owns the process until a signal closes it.
  return new Promise<number>(() => {});
}
