import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import { inTransaction } from '../db/in-transaction.ts';
import type { Db } from '../db/schema.ts';
import type { Clock } from '../lib/clock.ts';
import { createSealer } from '../lib/sealing.ts';
import {
  deleteKeysRetiredBefore,
  insertSigningKey,
  keySetVersion,
  publishedKeys,
  retireCurrentKeys,
} from './signing-keys.repository.ts';
import type { SigningKeyRow } from './signing-keys.table.ts';

/**
 * RS256 is the OpenID Connect default every relying party accepts; ES256 is there for clients that
 * register it (smaller, faster signatures).
 */
export const SIGNING_ALGORITHMS = ['RS256', 'ES256'] as const;

/** The keys as the provider uses them: private ones sign (the first of each algorithm), all verify. */
export interface KeySet {
  /** Changes whenever the stored key set does. */
  readonly version: string;
  /** Current keys first, newest first; then retired keys still published. Private JWKs. */
  readonly privateJwks: readonly JWK[];
  /** The same keys without their private parts: what /oauth/jwks publishes. */
  readonly publicJwks: readonly JWK[];
}

export interface SigningKeysDeps {
  readonly db: Db;
  readonly appKey: Buffer;
  readonly clock: Clock;
  /**
   * How long a retired key stays published: at least as long as anything it signed can be presented
   * (an access token, an ID token sent back as a logout hint). See docs/guides/oidc-provider.md.
   */
  readonly retentionMs: number;
}

/**
 * The provider's signing keys, in the database so that every instance signs with the same ones; the
 * private halves sealed with APP_KEY (lib/sealing.ts), so a database dump alone signs nothing.
 */
export function signingKeys(deps: SigningKeysDeps) {
  const { db, clock } = deps;
  const sealer = createSealer(deps.appKey, 'oauth-signing-keys');
  const associated = (kid: string) => `oauth_signing_keys:${kid}`;

  async function create(trx: Db, alg: (typeof SIGNING_ALGORITHMS)[number], now: number): Promise<void> {
    const { privateKey } = await generateKeyPair(alg, { extractable: true, modulusLength: 2048 });
    const jwk = await exportJWK(privateKey);
    const kid = await calculateJwkThumbprint(jwk);
    const full: JWK = { ...jwk, kid, alg, use: 'sig' };
    await insertSigningKey(trx, {
      kid,
      alg,
      public_jwk: JSON.stringify(publicPart(full)),
      private_jwk: sealer.seal(JSON.stringify(full), associated(kid)),
      created_at: now,
      retired_at: null,
    });
  }

  function open(row: SigningKeyRow): string {
    try {
      return sealer.open(row.private_jwk, associated(row.kid));
    } catch (cause) {
      // Never swap in new keys quietly: relying parties would refuse every token signed before, and two
      // instances with different APP_KEYs would sign with different keys. Stop, and say what to do.
      throw new Error(
        `the OpenID signing key ${row.kid} in the database cannot be opened with this APP_KEY (it was sealed ` +
          'with another one): start with the APP_KEY it was made with (docs/guides/oidc-provider.md, "Signing keys")',
        { cause },
      );
    }
  }

  async function load(): Promise<KeySet> {
    const now = clock.now();
    const rows = await publishedKeys(db, now - deps.retentionMs);
    // Current keys first (they sign), each group newest first: the library signs with the first key
    // of an algorithm and verifies with any.
    const ordered = [
      ...rows.filter((row) => row.retired_at === null),
      ...rows.filter((row) => row.retired_at !== null),
    ];
    return {
      version: await keySetVersion(db),
      privateJwks: ordered.map((row) => JSON.parse(open(row)) as JWK),
      publicJwks: ordered.map((row) => JSON.parse(row.public_jwk) as JWK),
    };
  }

  return {
    /**
     * Creates a current key for each algorithm that has none (the first start). Two instances starting
     * at once may both create one: both are published, and every instance signs with the newest.
     */
    async ensure(): Promise<void> {
      const current = (await publishedKeys(db, clock.now())).filter((row) => row.retired_at === null);
      const now = clock.now();
      for (const alg of SIGNING_ALGORITHMS) {
        if (!current.some((row: SigningKeyRow) => row.alg === alg)) await create(db, alg, now);
      }
    },

    /**
     * `oidc:rotate-keys`: new keys become current, the previous ones are retired (still published until
     * `retentionMs` after now), and keys retired longer ago than that are deleted. Every instance signs
     * with the new keys once it next reads the key set (signing-keys' version, at most seconds later).
     */
    async rotate(): Promise<{ created: string[]; deleted: number }> {
      const now = clock.now();
      return inTransaction(db, async (trx) => {
        await retireCurrentKeys(trx, now);
        for (const alg of SIGNING_ALGORITHMS) await create(trx, alg, now);
        const deleted = await deleteKeysRetiredBefore(trx, now - deps.retentionMs);
        const created = (await publishedKeys(trx, now)).filter((row) => row.retired_at === null);
        return { created: created.map((row) => `${row.alg} ${row.kid}`), deleted };
      });
    },

    load,
    version: () => keySetVersion(db),
  };
}

export type SigningKeys = ReturnType<typeof signingKeys>;

function publicPart(jwk: JWK): JWK {
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, oth: _oth, ...rest } = jwk;
  return rest;
}
