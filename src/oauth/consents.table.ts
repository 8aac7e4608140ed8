import type { Generated, Insertable, Selectable } from 'kysely';

/** What a user allowed a client to have (consents.ts): one row per user and client. */
export interface OauthConsentsTable {
  id: Generated<number>;
  user_id: number;
  client_id: string;
  /** Every scope ever allowed to this client, space-separated. */
  scope: string;
  created_at: number;
  updated_at: number;
  /** The last authorization that used the consent; null until then. */
  last_used_at: number | null;
}

export type ConsentRow = Selectable<OauthConsentsTable>;
export type NewConsentRow = Insertable<OauthConsentsTable>;
