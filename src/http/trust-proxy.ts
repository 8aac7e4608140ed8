import { BlockList, isIP } from 'node:net';
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

/**
 * Whether the peer that connected is one TRUST_PROXY names, so its X-Forwarded-* headers are believed
 * — the same test Fastify makes for `request.protocol` and `request.host` (the nearest hop), applied
 * to the headers Fastify does not read (X-Forwarded-Uri). Unset: never.
 */
export function trustedPeer(setting: Config['trustProxy']): (address: string | undefined) => boolean {
  if (setting === false) return () => false;
  // N proxies in front: the nearest hop is always one of them.
  if (typeof setting === 'number') return (address) => address !== undefined && setting > 0;
  const list = new BlockList();
  for (const entry of setting.split(',')) {
    const [address = '', bits] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(bits), family);
  }
  return (address) => {
    if (address === undefined || isIP(address) === 0) return false;
    // An IPv4 client on a dual-stack socket shows as ::ffff:a.b.c.d.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    if (mapped !== undefined) return list.check(mapped, 'ipv4') || list.check(address, 'ipv6');
    return list.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
  };
}

/**
 * The start-up warning for a TRUST_PROXY that trusts hops rather than addresses (docs/security.md), or
 * null. With a count (`true` = 1) the nearest N peers are believed whoever they are: an instance that
 * is also reachable directly lets any client write its own X-Forwarded-For, and so choose the address
 * its throttles and audit entries count. Addresses/CIDRs are believed only on connections from them.
 */
export function trustProxyWarning(setting: Config['trustProxy']): string | null {
  if (typeof setting !== 'number') return null;
  return (
    `TRUST_PROXY=${setting} trusts the nearest ${setting} hop(s) whoever they are: unless this instance is ` +
    'reachable only through its proxies, any client can choose its address with X-Forwarded-For. ' +
    "Set TRUST_PROXY to the proxies' addresses or CIDRs instead."
  );
}
