/**
 * Fastify's server options for REQUEST_TIMEOUT (docs/security.md "Slow clients"). Fastify turns Node's
 * request deadline off (0), so a client that trickles its headers or body one byte at a time held a
 * connection, a parser and its buffers for as long as it liked; a few hundred of them exhaust the
 * process. With a deadline Node answers `408` (Fastify's client-error handler) and closes the socket.
 *
 * - `requestTimeout`: headers *and* body must have arrived by then; the time a handler then takes is
 *   not limited (a login waiting for a hash is our own doing, not the client's).
 * - `headersTimeout` must not exceed it (Node refuses the pair otherwise; its default is 60 s).
 * - `connectionsCheckingInterval`: Node looks for late requests on this tick (default 30 s, which
 *   would let a 30 s deadline stretch to a minute). One second: one pass over the open connections.
 */
export function requestDeadlines(timeoutSeconds: number) {
  const timeout = timeoutSeconds * 1000;
  return {
    requestTimeout: timeout,
    http: { requestTimeout: timeout, headersTimeout: timeout, connectionsCheckingInterval: 1000 },
  };
}
