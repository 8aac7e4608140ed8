import { createRequire } from 'node:module';
import type * as Ioredis from 'ioredis';
import type * as Mysql2 from 'mysql2';
import type * as Mysql2Promise from 'mysql2/promise';
import type Pg from 'pg';
import type * as QRCode from 'qrcode';

/**
 * Packages that only some installations or some requests need, loaded at their first use instead of
 * at every start: the PostgreSQL and MySQL drivers (one database is configured), the Redis client
 * (only with REDIS_URL), the QR-code maker (two-factor setup) and the WebAuthn library (passkey
 * ceremonies). Imported at the top of their modules they were about 0.8 s of CPU at each start of
 * the server, of a CLI command and of each test process (measured one by one on the 2-core CI
 * machine: @simplewebauthn/server 419 ms with its ASN.1 libraries, ioredis 169, mysql2 96, pg 91,
 * qrcode 58), against about 1.5 s for everything the app imports.
 *
 * The drivers are CommonJS, so `require` loads them synchronously where the code that opens a
 * connection is synchronous; the WebAuthn library is used only in async code and is imported. A
 * server loads the request-time ones before it starts listening (preloadForRequests).
 */
const require = createRequire(import.meta.url);

let pg: typeof Pg | undefined;

/** node-postgres, with int8 read as a number. */
export function loadPg(): typeof Pg {
  if (pg === undefined) {
    pg = require('pg') as typeof Pg;
    // int8 (COUNT(*), bigint timestamps) arrives as a string by default; our values fit in a double.
    pg.types.setTypeParser(20, (value) => Number(value));
  }
  return pg;
}

export function loadMysql2(): typeof Mysql2 {
  return require('mysql2') as typeof Mysql2;
}

export function loadMysql2Promise(): typeof Mysql2Promise {
  return require('mysql2/promise') as typeof Mysql2Promise;
}

export function loadIoredis(): typeof Ioredis {
  return require('ioredis') as typeof Ioredis;
}

export function loadQrcode(): typeof QRCode {
  return require('qrcode') as typeof QRCode;
}

export function loadWebAuthn(): Promise<typeof import('@simplewebauthn/server')> {
  return import('@simplewebauthn/server');
}

/**
 * For a server about to listen: the packages its requests may need, loaded now, so the first passkey
 * ceremony or two-factor setup does not wait for them. Before listening, not after: loading them takes
 * the event loop for about 0.4 s, which right after the server said it was ready would hold up the
 * first requests a load balancer sends it.
 */
export async function preloadForRequests(): Promise<void> {
  await loadWebAuthn();
  loadQrcode();
}
