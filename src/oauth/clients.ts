import { type AuditContext, recordAudit } from '../audit/audit.ts';
import { inTransaction } from '../db/in-transaction.ts';
import type { Db } from '../db/schema.ts';
import { randomAlnum } from '../lib/crypto.ts';
import { type OauthClient, toClient } from './client-records.ts';
import { type ClientProblem, normaliseScope, registrationProblems } from './client-rules.ts';
import { newClientSecret, rotateClientSecret } from './client-secrets.ts';
import {
  deleteClientRow,
  findClientRow,
  insertClientRow,
  listClientRows,
  updateClientRow,
} from './clients.repository.ts';
import type { OauthClientRow } from './clients.table.ts';
import { destroyModelsOfClient } from './models.repository.ts';
import type { ScopeCatalogue } from './scopes.ts';

export { clientFinder, type OauthClient } from './client-records.ts';
export { type ClientField, type ClientProblem, GRANT_TYPES } from './client-rules.ts';

export interface ClientInput {
  readonly name: string;
  readonly redirectUris: readonly string[];
  readonly postLogoutRedirectUris: readonly string[];
  readonly backchannelLogoutUri: string | null;
  /** Empty: authorization_code and refresh_token. */
  readonly grantTypes: readonly string[];
  /** null: the default scopes (openid profile email, and offline_access with refresh tokens). */
  readonly scope: string | null;
  readonly public: boolean;
  readonly trusted: boolean;
}

/** What can be changed after registration (the panel's edit form). */
export interface ClientChanges {
  readonly name?: string;
  readonly redirectUris?: readonly string[];
  readonly postLogoutRedirectUris?: readonly string[];
  readonly backchannelLogoutUri?: string | null;
}

export type ClientResult =
  | { readonly ok: true; readonly client: OauthClient; readonly secret: string | null }
  | { readonly ok: false; readonly problems: readonly ClientProblem[] };

export interface ClientsDeps {
  readonly db: Db;
  readonly scopes: ScopeCatalogue;
}

/**
 * Registered relying parties (`clients:*`, the panel's /admin/clients; docs/guides/oidc-provider.md
 * "Clients"): the rules in client-rules.ts, secrets in client-secrets.ts, every change audited.
 */
export function createClients(deps: ClientsDeps) {
  const { db } = deps;

  async function create(input: ClientInput, audit: AuditContext): Promise<ClientResult> {
    const grantTypes =
      input.grantTypes.length > 0 ? [...new Set(input.grantTypes)] : ['authorization_code', 'refresh_token'];
    const scope = input.scope ?? deps.scopes.defaultScope(grantTypes.includes('refresh_token'));
    const problems = registrationProblems({ ...input, grantTypes }, { value: scope, catalogue: deps.scopes });
    if (problems.length > 0) return { ok: false, problems };
    const secret = input.public ? null : newClientSecret();
    const now = audit.now;
    const row: OauthClientRow = {
      id: 0,
      client_id: randomAlnum(24),
      name: input.name.trim(),
      secret_hash: secret === null ? null : secret.hash,
      redirect_uris: JSON.stringify(input.redirectUris),
      post_logout_redirect_uris: JSON.stringify(input.postLogoutRedirectUris),
      backchannel_logout_uri: input.backchannelLogoutUri,
      grant_types: JSON.stringify(grantTypes),
      scope: normaliseScope(scope),
      trusted: input.trusted ? 1 : 0,
      secret_rotated_at: null,
      created_at: now,
      updated_at: now,
    };
    const { id: _id, ...insertable } = row;
    await inTransaction(db, async (trx) => {
      await insertClientRow(trx, insertable);
      await recordAudit(trx, 'oauth.client.created', audit, null, {
        client_id: row.client_id,
        name: row.name,
        public: input.public,
        trusted: input.trusted,
      });
    });
    return { ok: true, client: toClient(row), secret: secret === null ? null : secret.secret };
  }

  async function update(clientId: string, changes: ClientChanges, audit: AuditContext) {
    const current = await find(clientId);
    if (current === null) return { ok: false as const, problems: [] as ClientProblem[], found: false };
    const next = {
      name: changes.name ?? current.name,
      redirectUris: changes.redirectUris ?? current.redirectUris,
      postLogoutRedirectUris: changes.postLogoutRedirectUris ?? current.postLogoutRedirectUris,
      backchannelLogoutUri:
        changes.backchannelLogoutUri === undefined
          ? current.backchannelLogoutUri
          : changes.backchannelLogoutUri,
    };
    const problems = registrationProblems(
      { ...next, grantTypes: current.grantTypes, public: current.public },
      null,
    );
    if (problems.length > 0) return { ok: false as const, problems, found: true };
    const changed = Object.keys(changes).filter((key) => changes[key as keyof ClientChanges] !== undefined);
    await inTransaction(db, async (trx) => {
      await updateClientRow(trx, clientId, {
        name: next.name.trim(),
        redirect_uris: JSON.stringify(next.redirectUris),
        post_logout_redirect_uris: JSON.stringify(next.postLogoutRedirectUris),
        backchannel_logout_uri: next.backchannelLogoutUri,
        updated_at: audit.now,
      });
      await recordAudit(trx, 'oauth.client.updated', audit, null, { client_id: clientId, changed });
    });
    return { ok: true as const, client: (await find(clientId))!, found: true };
  }

  async function find(clientId: string): Promise<OauthClient | null> {
    const row = await findClientRow(db, clientId);
    return row === undefined ? null : toClient(row);
  }

  return {
    create,
    update,
    find,
    list: async (): Promise<OauthClient[]> => (await listClientRows(db)).map(toClient),

    /** A new secret for a confidential client (the old one stops working at once); null when none. */
    rotateSecret: (clientId: string, audit: AuditContext) => rotateClientSecret(db, clientId, audit),

    /**
     * Deletes the client and everything issued to it: its grants and tokens (its access tokens are
     * refused from the next request on), its consents (by foreign key). False when there was none.
     */
    async delete(clientId: string, audit: AuditContext): Promise<boolean> {
      return inTransaction(db, async (trx) => {
        const current = await findClientRow(trx, clientId);
        if (current === undefined) return false;
        await destroyModelsOfClient(trx, clientId);
        await deleteClientRow(trx, clientId);
        await recordAudit(trx, 'oauth.client.deleted', audit, null, {
          client_id: clientId,
          name: current.name,
        });
        return true;
      });
    },
  };
}

export type Clients = ReturnType<typeof createClients>;
