import type { Config } from '../config.ts';

/**
 * Fastify's `trustProxy` for config.trustProxy. Fastify deliberately ignores a bare hop count (it
 * cannot tell a proxy from a client that connects directly), so "N proxies in front" is expressed as
 * "trust the N nearest addresses": behind one proxy that appends to X-Forwarded-For, the client is the
 * last entry, and whatever a client wrote into the header itself stays to the left, ignored. The
 * instances must then be reachable only through those proxies (README: running several instances).
 */
export function fastifyTrustProxy(
  setting: Config['trustProxy'],
): false | string | ((address: string, hop: number) => boolean) {
  if (typeof setting !== 'number') return setting;
  return (_address, hop) => hop < setting;
}
