import type { Db } from '../db/schema.ts';
import { findClientRow, listClientRedirectUris } from './clients.repository.ts';
import type { OauthClientRow } from './clients.table.ts';

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

/** The plain lookup behind FindClient (oauth.service.ts): one row by its unique key. */
export function clientFinder(db: Db) {
  return async (clientId: string): Promise<OauthClient | null> => {
    const row = await findClientRow(db, clientId);
    return row === undefined ? null : toClient(row);
  };
}

/**
 * The web origins of every registered redirect URI (https, or http on loopback): the origins a
 * browser app may call the provider's token, userinfo, JWKS, revocation and discovery endpoints from
 * (http/plugins/cors.ts). The key is ignored: one answer, cached like the other client lookups.
 */
export function redirectOriginsFinder(db: Db) {
  return async (_all: ''): Promise<string[]> => {
    const origins = new Set<string>();
    for (const stored of await listClientRedirectUris(db)) {
      for (const uri of parseList(stored)) {
        const url = URL.parse(uri);
        if (url?.protocol === 'https:' || url?.protocol === 'http:') origins.add(url.origin);
      }
    }
    return [...origins].sort();
  };
}

/** A stored row as a client: lists are kept as JSON arrays (docs/guides/oidc-provider.md "Clients"). */
export function toClient(row: OauthClientRow): OauthClient {
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
