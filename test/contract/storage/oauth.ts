import assert from 'node:assert/strict';
import { insertSessionRow } from '../../../src/auth/sessions/sessions.repository.ts';
import { isUniqueViolation } from '../../../src/db/errors.ts';
import {
  deleteClientRow,
  findClientRow,
  insertClientRow,
  listClientRedirectUris,
  listClientRows,
  updateClientRow,
} from '../../../src/oauth/clients.repository.ts';
import {
  consentsOfUser,
  deleteConsentRow,
  findConsentRow,
  insertConsentRow,
  touchConsent,
  updateConsentScope,
} from '../../../src/oauth/consents.repository.ts';
import { findGrantRow } from '../../../src/oauth/grants.repository.ts';
import { clientsWithBackchannel, insertLogoutNotices } from '../../../src/oauth/logout-outbox.repository.ts';
import {
  consumeModel,
  destroyGrants,
  destroyModel,
  destroyModelsOfAccountAndClient,
  destroyModelsOfClient,
  destroyModelsOfGrant,
  findModel,
  findModelBy,
  modelsOfAccount,
  modelsOfClient,
  pruneExpiredModels,
  sessionsBoundTo,
  sessionsOfEndedBindings,
  updateSession,
  upsertModel,
} from '../../../src/oauth/models.repository.ts';
import type { NewOauthModelRow } from '../../../src/oauth/models.table.ts';
import {
  deleteKeysRetiredBefore,
  insertSigningKey,
  keySetVersion,
  publishedKeys,
  retireCurrentKeys,
} from '../../../src/oauth/signing-keys.repository.ts';
import { aUser, type ContractSuite, covers, hash64, winners } from './contract.ts';

function aClient(clientId: string, name = 'App') {
  return {
    client_id: clientId,
    name,
    secret_hash: hash64('secret'),
    redirect_uris: '["https://app.example/cb"]',
    post_logout_redirect_uris: '[]',
    backchannel_logout_uri: null,
    grant_types: 'authorization_code refresh_token',
    scope: 'openid profile',
    trusted: 0,
    secret_rotated_at: null,
    created_at: 1_000,
    updated_at: 1_000,
  };
}

function aModel(kind: string, fields: Partial<NewOauthModelRow> = {}): NewOauthModelRow {
  return {
    kind,
    id_hash: hash64(kind),
    payload: '{"ü":"🦄"}',
    grant_hash: null,
    uid_hash: null,
    user_code_hash: null,
    account_id: null,
    client_id: null,
    session_binding: null,
    expires_at: null,
    consumed_at: null,
    created_at: 1_000,
    ...fields,
  };
}

const hashes = (rows: { id_hash: string }[]) => rows.map((row) => row.id_hash).sort();

/** src/oauth: clients, the provider's stored objects (models, grants) and its signing keys. */
export const oauthContract: ContractSuite = (ctx) => {
  covers(
    [insertClientRow, findClientRow, listClientRows, updateClientRow, deleteClientRow],
    'OpenID clients: found by exact client_id, listed in order, changed and deleted only when they exist',
    async () => {
      const { db } = ctx();
      const [a, b] = [hash64('client').slice(0, 40), hash64('client').slice(0, 40)];
      await insertClientRow(db, aClient(a, 'Ä App 🦄'));
      await insertClientRow(db, aClient(b));
      await assert.rejects(insertClientRow(db, aClient(a)), 'client_id is unique');
      assert.equal((await findClientRow(db, a))?.name, 'Ä App 🦄');
      assert.equal(await findClientRow(db, a.toUpperCase()), undefined, 'no case folding');
      const listed = (await listClientRows(db)).map((row) => row.client_id);
      assert.ok(listed.indexOf(a) < listed.indexOf(b) && listed.indexOf(a) >= 0);
      assert.equal(await updateClientRow(db, a, { trusted: 1, updated_at: 2_000 }), true);
      assert.equal(await updateClientRow(db, `${a}x`, { trusted: 1 }), false);
      const changed = (await findClientRow(db, a))!;
      assert.deepEqual([changed.trusted, changed.updated_at, changed.created_at], [1, 2_000, 1_000]);
      assert.equal(await deleteClientRow(db, a), true);
      assert.equal(await deleteClientRow(db, a), false);
      assert.equal(await findClientRow(db, a), undefined);
    },
  );

  covers(
    [listClientRedirectUris],
    "every client's redirect URIs, as stored (the CORS origins are read from them)",
    async () => {
      const { db } = ctx();
      const id = hash64('client').slice(0, 40);
      await insertClientRow(db, {
        ...aClient(id),
        redirect_uris: '["https://spa.example/cb","http://127.0.0.1/ü"]',
      });
      const listed = await listClientRedirectUris(db);
      assert.ok(listed.includes('["https://spa.example/cb","http://127.0.0.1/ü"]'), JSON.stringify(listed));
      await deleteClientRow(db, id);
      assert.ok(!(await listClientRedirectUris(db)).some((uris) => uris.includes('spa.example')));
    },
  );

  covers(
    [destroyModelsOfAccountAndClient],
    "a disconnected app: one user's grants of one client and all they issued go; other users, other clients and sessions stay",
    async () => {
      const { db } = ctx();
      const [clientId, other] = [hash64('rp').slice(0, 40), hash64('rp').slice(0, 40)];
      const grant = aModel('Grant', { account_id: '7', client_id: clientId });
      const refresh = aModel('RefreshToken', {
        grant_hash: grant.id_hash,
        account_id: '7',
        client_id: clientId,
      });
      const code = aModel('AuthorizationCode', { account_id: '7', client_id: clientId });
      const session = aModel('Session', { account_id: '7', client_id: clientId });
      const otherUser = aModel('Grant', { account_id: '8', client_id: clientId });
      const otherClient = aModel('Grant', { account_id: '7', client_id: other });
      for (const row of [grant, refresh, code, session, otherUser, otherClient]) await upsertModel(db, row);
      await destroyModelsOfAccountAndClient(db, '7', clientId);
      for (const gone of [grant, refresh, code]) {
        assert.equal(await findModel(db, gone.kind, gone.id_hash, 0), undefined, gone.kind);
      }
      for (const kept of [session, otherUser, otherClient]) {
        assert.ok(await findModel(db, kept.kind, kept.id_hash, 0), `${kept.kind} of ${kept.account_id}`);
      }
    },
  );

  covers(
    [upsertModel, findModel, findModelBy, consumeModel, destroyModel],
    'provider objects: an upsert replaces by kind and id; only live ones are found; of 10 concurrent uses of a code one consumes it',
    async () => {
      const { db } = ctx();
      const uid = hash64('uid');
      const code = aModel('AuthorizationCode', { uid_hash: uid, expires_at: 5_000 });
      await upsertModel(db, code);
      await upsertModel(db, { ...code, payload: '{"second":true}' });
      const stored = (await findModel(db, 'AuthorizationCode', code.id_hash, 4_000))!;
      assert.deepEqual([stored.payload, stored.created_at], ['{"second":true}', 1_000]);
      assert.equal(await findModel(db, 'RefreshToken', code.id_hash, 4_000), undefined, 'another kind');
      assert.equal(await findModel(db, 'AuthorizationCode', code.id_hash, 5_000), undefined, 'expired');
      assert.equal(
        (await findModelBy(db, 'AuthorizationCode', 'uid_hash', uid, 4_000))?.id_hash,
        code.id_hash,
      );
      assert.equal(await findModelBy(db, 'AuthorizationCode', 'user_code_hash', uid, 4_000), undefined);
      assert.equal(await winners(10, () => consumeModel(db, 'AuthorizationCode', code.id_hash, 4_500)), 1);
      assert.equal((await findModel(db, 'AuthorizationCode', code.id_hash, 4_000))?.consumed_at, 4_500);
      await destroyModel(db, 'AuthorizationCode', code.id_hash);
      assert.equal(await findModel(db, 'AuthorizationCode', code.id_hash, 4_000), undefined);
      assert.equal(await consumeModel(db, 'AuthorizationCode', code.id_hash, 4_600), false, 'gone');
    },
  );

  covers(
    [findGrantRow, destroyModelsOfGrant, destroyGrants, destroyModelsOfClient],
    'grants: found while live; what was issued from a grant or to a client is destroyed with it',
    async () => {
      const { db } = ctx();
      const [clientId, other] = [hash64('rp').slice(0, 40), hash64('rp').slice(0, 40)];
      const grant = aModel('Grant', { account_id: '7', client_id: clientId, expires_at: 9_000 });
      const refresh = aModel('RefreshToken', { grant_hash: grant.id_hash, client_id: clientId });
      const access = aModel('AccessToken', { grant_hash: grant.id_hash, client_id: clientId });
      const elsewhere = aModel('AccessToken', { client_id: other });
      for (const row of [grant, refresh, access, elsewhere]) await upsertModel(db, row);
      assert.deepEqual(await findGrantRow(db, grant.id_hash, 8_000), {
        account_id: '7',
        client_id: clientId,
        expires_at: 9_000,
      });
      assert.equal(await findGrantRow(db, grant.id_hash, 9_000), undefined, 'expired');
      assert.equal(await findGrantRow(db, refresh.id_hash, 8_000), undefined, 'not a grant');
      await destroyModelsOfGrant(db, 'AccessToken', grant.id_hash);
      assert.equal(await findModel(db, 'AccessToken', access.id_hash, 0), undefined);
      assert.ok(await findModel(db, 'RefreshToken', refresh.id_hash, 0), 'another kind stays');
      await destroyGrants(db, []);
      await destroyGrants(db, [grant.id_hash]);
      assert.equal(await findModel(db, 'RefreshToken', refresh.id_hash, 0), undefined);
      assert.equal(await findModel(db, 'Grant', grant.id_hash, 0), undefined);
      assert.ok(await findModel(db, 'AccessToken', elsewhere.id_hash, 0));
      await destroyModelsOfClient(db, other);
      assert.equal(await findModel(db, 'AccessToken', elsewhere.id_hash, 0), undefined);
    },
  );

  covers(
    [modelsOfAccount, modelsOfClient, sessionsBoundTo, updateSession, pruneExpiredModels],
    "a user's and a client's live objects; provider sessions follow a Gatehouse session; expired ones are pruned",
    async () => {
      const { db } = ctx();
      const [account, clientId] = [hash64('account').slice(0, 30), hash64('rp').slice(0, 40)];
      const [binding, next] = [hash64('binding'), hash64('binding')];
      const one = aModel('Grant', { account_id: account, client_id: clientId });
      const two = aModel('Grant', { account_id: account, client_id: 'other' });
      const expired = aModel('Grant', { account_id: account, client_id: clientId, expires_at: 100 });
      const session = aModel('Session', { account_id: account, session_binding: binding });
      for (const row of [one, two, expired, session]) await upsertModel(db, row);
      assert.deepEqual(hashes(await modelsOfAccount(db, 'Grant', account, 200)), hashes([one, two]));
      assert.deepEqual(
        hashes(await modelsOfAccount(db, 'Grant', account, 50, clientId)),
        hashes([one, expired]),
      );
      assert.deepEqual(hashes(await modelsOfClient(db, 'Grant', clientId, 200)), hashes([one]));
      assert.deepEqual(hashes(await sessionsBoundTo(db, binding)), hashes([session]));
      await updateSession(db, session.id_hash, session.payload, next);
      assert.deepEqual(await sessionsBoundTo(db, binding), []);
      assert.deepEqual(hashes(await sessionsBoundTo(db, next)), hashes([session]));
      assert.ok((await pruneExpiredModels(db, 100)) >= 1);
      assert.equal(await findModel(db, 'Grant', expired.id_hash, 0), undefined);
      assert.ok(await findModel(db, 'Grant', one.id_hash, 0), 'never expires');
    },
  );

  covers(
    [sessionsOfEndedBindings, clientsWithBackchannel, insertLogoutNotices],
    'back-channel logout: the provider sessions whose Gatehouse session is gone, the clients that hear of it',
    async () => {
      const { db } = ctx();
      const user = await aUser(db);
      const account = String(user.id);
      const [alive, gone] = [hash64('alive'), hash64('gone')];
      const now = Date.now();
      await insertSessionRow(db, {
        id: alive,
        guard: 'web',
        user_id: user.id,
        data: '{}',
        ip_address: null,
        user_agent: null,
        created_at: now,
        last_activity: now,
      });
      const following = aModel('Session', { account_id: account, session_binding: alive });
      const orphan = aModel('Session', { account_id: account, session_binding: gone });
      const unbound = aModel('Session', { account_id: account });
      const foreign = aModel('Session', { account_id: `${account}0`, session_binding: gone });
      for (const row of [following, orphan, unbound, foreign]) await upsertModel(db, row);
      assert.deepEqual(hashes(await sessionsOfEndedBindings(db, account)), hashes([orphan]));

      const [hears, deaf] = [hash64('hears').slice(0, 40), hash64('deaf').slice(0, 40)];
      await insertClientRow(db, { ...aClient(hears), backchannel_logout_uri: 'https://rp.example/bc' });
      await insertClientRow(db, aClient(deaf));
      assert.deepEqual(await clientsWithBackchannel(db, [hears, deaf, 'unknown']), [hears]);
      assert.deepEqual(await clientsWithBackchannel(db, []), []);
      await insertLogoutNotices(db, []);
      const notice = { payload: '{"sub":"1","sid":"ü🦄"}', attempts: 0, available_at: now, created_at: now };
      await insertLogoutNotices(db, [
        { client_id: hears, ...notice },
        { client_id: hears, ...notice },
      ]);
      const rows = await db
        .selectFrom('oauth_logout_outbox')
        .selectAll()
        .where('client_id', '=', hears)
        .execute();
      assert.deepEqual(
        rows.map((row) => [row.payload, row.sent_at, row.locked_until]),
        [
          [notice.payload, null, null],
          [notice.payload, null, null],
        ],
      );
    },
  );

  covers(
    [insertSigningKey, publishedKeys, keySetVersion, retireCurrentKeys, deleteKeysRetiredBefore],
    'signing keys: the set version moves with every change; retired keys stay published for a while',
    async () => {
      const { db } = ctx();
      const key = (kid: string, alg: string) =>
        insertSigningKey(db, {
          kid,
          alg,
          public_jwk: '{}',
          private_jwk: 'sealed',
          created_at: 1,
          retired_at: null,
        });
      // Later than any key the app itself may have made and retired.
      const retired = Date.now() + 3_600_000;
      const versions = [await keySetVersion(db)];
      const [rs, es] = [hash64('kid').slice(0, 40), hash64('kid').slice(0, 40)];
      await key(rs, 'RS256');
      versions.push(await keySetVersion(db));
      await retireCurrentKeys(db, retired);
      versions.push(await keySetVersion(db));
      await key(es, 'ES256');
      versions.push(await keySetVersion(db));
      assert.equal(new Set(versions).size, 4, `every change shows: ${versions.join(' ')}`);
      const published = (await publishedKeys(db, retired - 1)).map((row) => row.kid);
      assert.deepEqual(published.slice(0, 2), [es, rs], 'newest first, the retired one still published');
      assert.ok(!(await publishedKeys(db, retired)).some((row) => row.kid === rs), 'retired long enough ago');
      assert.ok((await deleteKeysRetiredBefore(db, retired + 1)) >= 1);
      assert.ok(!(await publishedKeys(db, 0)).some((row) => row.kid === rs), 'deleted');
      assert.ok(
        (await publishedKeys(db, 0)).some((row) => row.kid === es),
        'the current one stays',
      );
      assert.notEqual(await keySetVersion(db), versions[3]);
    },
  );

  covers(
    [insertConsentRow, findConsentRow, updateConsentScope, touchConsent, consentsOfUser, deleteConsentRow],
    "consents: one per user and client, widened in place, stamped when used, listed with the client's name",
    async () => {
      const { db } = ctx();
      const [user, other] = [await aUser(db), await aUser(db)];
      const [newer, older] = [hash64('consent-a').slice(0, 40), hash64('consent-b').slice(0, 40)];
      await insertClientRow(db, aClient(newer, 'Ä App 🦄'));
      await insertClientRow(db, aClient(older, 'Older'));
      await insertConsentRow(db, { user_id: user.id, client_id: older, scope: 'openid', now: 1_000 });
      await insertConsentRow(db, { user_id: user.id, client_id: newer, scope: 'openid', now: 2_000 });
      const duplicate = await insertConsentRow(db, {
        user_id: user.id,
        client_id: newer,
        scope: 'x',
        now: 3_000,
      })
        .then(() => null)
        .catch((error: unknown) => error);
      assert.ok(duplicate !== null && isUniqueViolation(duplicate), 'one consent per user and client');
      const found = await findConsentRow(db, user.id, newer);
      assert.equal(found?.scope, 'openid');
      assert.equal(found?.last_used_at, null);
      assert.equal(await findConsentRow(db, other.id, newer), undefined, 'not theirs');
      await updateConsentScope(db, found!.id, 'openid profile email', 4_000);
      await touchConsent(db, user.id, newer, 5_000);
      const listed = await consentsOfUser(db, user.id);
      assert.deepEqual(
        listed.map((row) => [row.client_id, row.name, row.scope, row.last_used_at]),
        [
          [newer, 'Ä App 🦄', 'openid profile email', 5_000],
          [older, 'Older', 'openid', null],
        ],
      );
      assert.equal(await deleteConsentRow(db, user.id, newer), true);
      assert.equal(await deleteConsentRow(db, user.id, newer), false);
      assert.equal(await deleteConsentRow(db, other.id, older), false, 'not theirs');
      assert.deepEqual(
        (await consentsOfUser(db, user.id)).map((row) => row.client_id),
        [older],
      );
    },
  );
};
