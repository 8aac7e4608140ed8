import { type AuditContext, recordAudit } from '../audit/audit.ts';
import { inTransaction } from '../db/in-transaction.ts';
import type { Db } from '../db/schema.ts';
import { randomAlnum, randomToken, sha256Hex } from '../lib/crypto.ts';
import {
  deleteClientRow,
  findClientRow,
  insertClientRow,
  listClientRows,
  updateClientRow,
} from './clients.repository.ts';
import type { OauthClientRow } from './clients.table.ts';
import { destroyModelsOfClient } from './models.repository.ts';
import {
  isHttpsLoopback,
  isNativeRedirect,
  type UriProblem,
  type UriUse,
  uriProblem,
} from './redirect-uris.ts';
import { type ScopeCatalogue, scopeProblem } from './scopes.ts';

/** The grant types a client may be registered with (the CLI's --grant values). */
export const GRANT_TYPES = [
  'authorization_code',
  'refresh_token',
  'client_credentials',
  'urn:ietf:params:oauth:grant-type:device_code',
] as const;

/** Grant types this version issues tokens for; the others are refused at registration for now. */
const AVAILABLE_GRANTS = new Set<string>(['authorization_code', 'refresh_token']);

/** A registered client as the CLI, the panel and the provider see it. */
export interface OauthClient {
  readonly clientId: string;
  readonly name: string;
  readonly public: boolean;
  readonly trusted: boolean;
  readonly redirectUris: readonly string[];
  readonly postLogoutRedirectUris: readonly string[];
  readonly backchannelLogoutUri: string | null;
  readonly grantTypes: readonly string[];
  readonly scope: string;
  /** The stored SHA-256 of the secret (null for a public client); never shown. */
  readonly secretHash: string | null;
  readonly secretRotatedAt: number | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

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

export type ClientField =
  | 'name'
  | 'redirect_uris'
  | 'post_logout_redirect_uris'
  | 'backchannel_logout_uri'
  | 'grant_types'
  | 'scope';

export type ClientProblem =
  | { readonly field: ClientField; readonly problem: UriProblem; readonly value: string }
  | { readonly field: ClientField; readonly problem: 'required' | 'too_long' | 'too_many' | 'mixed_loopback' }
  | {
      readonly field: 'grant_types';
      readonly problem: 'unknown_grant' | 'grant_not_available' | 'refresh_without_code';
      readonly value: string;
    }
  | { readonly field: 'scope'; readonly problem: 'unknown_scope'; readonly value: string };

export type ClientResult =
  | { readonly ok: true; readonly client: OauthClient; readonly secret: string | null }
  | { readonly ok: false; readonly problems: readonly ClientProblem[] };

const MAX_URIS = 20;
const MAX_NAME = 100;

export interface ClientsDeps {
  readonly db: Db;
  readonly scopes: ScopeCatalogue;
}

/**
 * Registered relying parties (`clients:*`, the panel's /admin/clients). A confidential client's
 * secret is 256 random bits, shown once and stored as its SHA-256 (like API tokens: a secret that
 * long needs no slow hash); it is compared in constant time (provider.ts compareClientSecret).
 */
export function createClients(deps: ClientsDeps) {
  const { db } = deps;

  async function create(input: ClientInput, audit: AuditContext): Promise<ClientResult> {
    const grantTypes =
      input.grantTypes.length > 0 ? [...new Set(input.grantTypes)] : ['authorization_code', 'refresh_token'];
    const scope = input.scope ?? deps.scopes.defaultScope(grantTypes.includes('refresh_token'));
    const problems = [
      ...nameProblems(input.name),
      ...uriListProblems(input.redirectUris, input.postLogoutRedirectUris, input.backchannelLogoutUri),
      ...grantProblems(grantTypes, input.redirectUris.length),
      ...scopeProblems(deps.scopes, scope),
    ];
    if (problems.length > 0) return { ok: false, problems };
    const secret = input.public ? null : newSecret();
    const now = audit.now;
    const row: OauthClientRow = {
      id: 0,
      client_id: randomAlnum(24),
      name: input.name.trim(),
      secret_hash: secret === null ? null : sha256Hex(secret),
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
    return { ok: true, client: toClient(row), secret };
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
    const problems = [
      ...nameProblems(next.name),
      ...uriListProblems(next.redirectUris, next.postLogoutRedirectUris, next.backchannelLogoutUri),
      ...grantProblems(current.grantTypes, next.redirectUris.length),
    ];
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
    async rotateSecret(
      clientId: string,
      audit: AuditContext,
    ): Promise<{ client: OauthClient; secret: string } | null | 'public'> {
      const current = await find(clientId);
      if (current === null) return null;
      if (current.public) return 'public';
      const secret = newSecret();
      await inTransaction(db, async (trx) => {
        await updateClientRow(trx, clientId, {
          secret_hash: sha256Hex(secret),
          secret_rotated_at: audit.now,
          updated_at: audit.now,
        });
        await recordAudit(trx, 'oauth.client.secret_rotated', audit, null, { client_id: clientId });
      });
      return { client: (await find(clientId))!, secret };
    },

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

/** The plain lookup behind FindClient (oauth.service.ts): one row by its unique key. */
export function clientFinder(db: Db) {
  return async (clientId: string): Promise<OauthClient | null> => {
    const row = await findClientRow(db, clientId);
    return row === undefined ? null : toClient(row);
  };
}

/** A client secret: 256 random bits, URL-safe (Basic authentication needs no escaping). */
function newSecret(): string {
  return randomToken(32);
}

function toClient(row: OauthClientRow): OauthClient {
  return {
    clientId: row.client_id,
    name: row.name,
    public: row.secret_hash === null,
    trusted: row.trusted === 1,
    redirectUris: parseList(row.redirect_uris),
    postLogoutRedirectUris: parseList(row.post_logout_redirect_uris),
    backchannelLogoutUri: row.backchannel_logout_uri,
    grantTypes: parseList(row.grant_types),
    scope: row.scope,
    secretHash: row.secret_hash,
    secretRotatedAt: row.secret_rotated_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function parseList(stored: string): string[] {
  try {
    const value: unknown = JSON.parse(stored);
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}

function normaliseScope(scope: string): string {
  return [...new Set(scope.split(' ').filter(Boolean))].join(' ');
}

function nameProblems(name: string): ClientProblem[] {
  const trimmed = name.trim();
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (trimmed === '' || /[\x00-\x1f\x7f]/.test(trimmed)) return [{ field: 'name', problem: 'required' }];
  return trimmed.length > MAX_NAME ? [{ field: 'name', problem: 'too_long' }] : [];
}

function uriListProblems(
  redirects: readonly string[],
  postLogout: readonly string[],
  backchannel: string | null,
): ClientProblem[] {
  const problems: ClientProblem[] = [];
  const check = (field: ClientField, uris: readonly string[], use: UriUse) => {
    if (uris.length > MAX_URIS) problems.push({ field, problem: 'too_many' });
    for (const value of uris) {
      const problem = uriProblem(value, use);
      if (problem !== null) problems.push({ field, problem, value });
    }
  };
  check('redirect_uris', redirects, 'redirect');
  check('post_logout_redirect_uris', postLogout, 'post_logout');
  if (backchannel !== null) check('backchannel_logout_uri', [backchannel], 'backchannel');
  // A client with a native app's redirect URIs is registered as one (its loopback port may vary);
  // OpenID Connect then refuses https on a loopback host beside them.
  const native = redirects.some(isNativeRedirect);
  if (native && [...redirects, ...postLogout].some(isHttpsLoopback)) {
    problems.push({ field: 'redirect_uris', problem: 'mixed_loopback' });
  }
  return problems;
}

function grantProblems(grantTypes: readonly string[], redirectCount: number): ClientProblem[] {
  const problems: ClientProblem[] = [];
  for (const grant of grantTypes) {
    if (!(GRANT_TYPES as readonly string[]).includes(grant)) {
      problems.push({ field: 'grant_types', problem: 'unknown_grant', value: grant });
    } else if (!AVAILABLE_GRANTS.has(grant)) {
      problems.push({ field: 'grant_types', problem: 'grant_not_available', value: grant });
    }
  }
  if (grantTypes.includes('refresh_token') && !grantTypes.includes('authorization_code')) {
    problems.push({ field: 'grant_types', problem: 'refresh_without_code', value: 'refresh_token' });
  }
  if (grantTypes.includes('authorization_code') && redirectCount === 0) {
    problems.push({ field: 'redirect_uris', problem: 'required' });
  }
  return problems;
}

function scopeProblems(catalogue: ScopeCatalogue, scope: string): ClientProblem[] {
  return scope
    .split(' ')
    .filter(Boolean)
    .filter((value) => scopeProblem(catalogue, value) !== null)
    .map((value) => ({ field: 'scope' as const, problem: 'unknown_scope' as const, value }));
}
