import type { Generated, Insertable, Selectable } from 'kysely';

/** A registered relying party (clients.ts). Lists are JSON arrays of strings. */
export interface OauthClientsTable {
  id: Generated<number>;
  client_id: string;
  name: string;
  /** SHA-256 (hex) of a confidential client's secret; null for a public client. */
  secret_hash: string | null;
  redirect_uris: string;
  post_logout_redirect_uris: string;
  backchannel_logout_uri: string | null;
  grant_types: string;
  /** The scopes the client may ask for, space-separated. */
  scope: string;
  /** First-party: no consent screen. 0 or 1. */
  trusted: number;
  secret_rotated_at: number | null;
  created_at: number;
  updated_at: number;
}

export type OauthClientRow = Selectable<OauthClientsTable>;
export type NewOauthClientRow = Insertable<OauthClientsTable>;
