import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Db } from '../db/schema.ts';
import type { Clock } from '../lib/clock.ts';
import { sha256Hex } from '../lib/crypto.ts';
import {
  consumeModel,
  destroyGrants,
  destroyModel,
  destroyModelsOfGrant,
  findModel,
  findModelBy,
  type ModelLookup,
  upsertModel,
} from './models.repository.ts';
import type { OauthModelRow } from './models.table.ts';

export interface StorageDeps {
  readonly db: Db;
  readonly clock: Clock;
  /** The key of the Gatehouse session the current request carries, if any (a Session row follows it). */
  readonly sessionBinding: () => string | null;
  /**
   * A code or refresh token was presented twice at once and this request lost: its grant has just been
   * revoked here (the library revokes it itself for a use that comes after). For the audit trail.
   */
  readonly onRaceLost: (row: OauthModelRow) => Promise<void>;
  /** The library's invalid_grant error (library.ts). */
  readonly invalidGrant: (description: string) => Error;
}

/**
 * oidc-provider's storage (its example/my_adapter.js interface) over one table, oauth_models, on every
 * dialect. Every id is stored as its SHA-256 and the payload without its `jti`: a code, a refresh
 * token or a session id is the bearer value itself, so the table holds none of them in the clear.
 */
export function createStorageAdapter(deps: StorageDeps, kind: string): Adapter {
  const { db, clock } = deps;
  const found = (row: OauthModelRow | undefined, id: string): AdapterPayload | undefined => {
    if (row === undefined) return undefined;
    const payload = { ...(JSON.parse(row.payload) as AdapterPayload), jti: id };
    return row.consumed_at === null ? payload : { ...payload, consumed: row.consumed_at };
  };
  // Found by another key, the object comes back without its id (it is not stored): the library only
  // reads a session found by uid. A device code is found by its user code and then written back under
  // its id, so that kind keeps its id in the payload — a 10-minute polling secret.
  const findBy = async (column: ModelLookup, value: string) => {
    const row = await findModelBy(db, kind, column, sha256Hex(value), clock.now());
    if (row === undefined) return undefined;
    const payload = JSON.parse(row.payload) as AdapterPayload;
    return row.consumed_at === null ? payload : { ...payload, consumed: row.consumed_at };
  };

  return {
    async upsert(id, payload, expiresIn) {
      const now = clock.now();
      const { jti: _jti, ...stored } = payload;
      await upsertModel(db, {
        kind,
        id_hash: sha256Hex(id),
        payload: JSON.stringify(kind === 'DeviceCode' ? payload : stored),
        grant_hash: typeof payload.grantId === 'string' ? sha256Hex(payload.grantId) : null,
        uid_hash: typeof payload.uid === 'string' ? sha256Hex(payload.uid) : null,
        user_code_hash: typeof payload.userCode === 'string' ? sha256Hex(payload.userCode) : null,
        account_id: typeof payload.accountId === 'string' ? payload.accountId : null,
        client_id: typeof payload.clientId === 'string' ? payload.clientId : null,
        session_binding: kind === 'Session' ? deps.sessionBinding() : null,
        expires_at: typeof expiresIn === 'number' && expiresIn > 0 ? now + expiresIn * 1000 : null,
        consumed_at: null,
        created_at: now,
      });
    },

    async find(id) {
      return found(await findModel(db, kind, sha256Hex(id), clock.now()), id);
    },

    findByUid: (uid) => findBy('uid_hash', uid),

    findByUserCode: (userCode) => findBy('user_code_hash', userCode),

    async consume(id) {
      const idHash = sha256Hex(id);
      if (await consumeModel(db, kind, idHash, clock.now())) return;
      // Another request took it between the library's read and this write: for the loser it is a
      // replay like any other, so the grant goes (all tokens issued from it) and the answer is
      // invalid_grant — never a second set of tokens.
      const row = await findModel(db, kind, idHash, clock.now());
      if (row?.grant_hash) await destroyGrants(db, [row.grant_hash]);
      if (row !== undefined) await deps.onRaceLost(row);
      throw deps.invalidGrant('grant already used');
    },

    async destroy(id) {
      await destroyModel(db, kind, sha256Hex(id));
    },

    async revokeByGrantId(grantId) {
      await destroyModelsOfGrant(db, kind, sha256Hex(grantId));
    },
  };
}
