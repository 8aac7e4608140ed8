import type { Generated, Insertable, Selectable } from 'kysely';

export interface AuditLogTable {
  id: Generated<number>;
  /** Stable event name, e.g. login.succeeded, token.revoked, admin.user.disabled. */
  event: string;
  actor_id: number | null;
  subject_id: number | null;
  ip_address: string | null;
  /** JSON object with event-specific details; never a secret. */
  details: string | null;
  created_at: number;
}

export type AuditRow = Selectable<AuditLogTable>;
export type NewAuditRow = Insertable<AuditLogTable>;
