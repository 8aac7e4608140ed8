import type { Insertable, Selectable } from 'kysely';

export interface SessionsTable {
  /** SHA-256 (hex) of the cookie's random id: a stolen database does not yield live cookies. */
  id: string;
  /** Which session guard owns the row ('web' | 'admin'): the two never open each other's pages. */
  guard: string;
  user_id: number | null;
  /** JSON object: flash messages, intended URL and other per-session state. */
  data: string;
  ip_address: string | null;
  user_agent: string | null;
  created_at: number;
  last_activity: number;
}

export type SessionRow = Selectable<SessionsTable>;
export type NewSessionRow = Insertable<SessionsTable>;
