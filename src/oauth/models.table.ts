import type { Insertable, Selectable } from 'kysely';

/**
 * One object oidc-provider stores (storage-adapter.ts): a code, a refresh token, a grant, a session,
 * an interaction… `payload` is the library's JSON without its `jti` (often the bearer value itself);
 * every id column holds a SHA-256 (hex), never the id.
 */
export interface OauthModelsTable {
  /** The library's model name: AuthorizationCode, RefreshToken, Grant, Session, Interaction, … */
  kind: string;
  id_hash: string;
  payload: string;
  /** The grant a token belongs to (revokeByGrantId). */
  grant_hash: string | null;
  /** A Session's fixed uid (findByUid). */
  uid_hash: string | null;
  /** A DeviceCode's user code (findByUserCode). */
  user_code_hash: string | null;
  /** The user (as the library's accountId string) and the client the object belongs to. */
  account_id: string | null;
  client_id: string | null;
  /** A Session: the key of the Gatehouse web session it follows (provider-session.ts). */
  session_binding: string | null;
  /** Epoch ms; null = never. Expired rows are invisible and pruned. */
  expires_at: number | null;
  /** Epoch ms a code or refresh token was used; set once, by one conditional UPDATE. */
  consumed_at: number | null;
  created_at: number;
}

export type OauthModelRow = Selectable<OauthModelsTable>;
export type NewOauthModelRow = Insertable<OauthModelsTable>;
