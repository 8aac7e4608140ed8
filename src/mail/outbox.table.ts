import type { Generated, Insertable, Selectable } from 'kysely';

export interface MailOutboxTable {
  id: Generated<number>;
  /** What kind of mail (verify-email, reset-password, …), for diagnostics only. */
  kind: string;
  recipient: string;
  /** The rendered message, AES-256-GCM encrypted with a key derived from APP_KEY: it may hold a reset link. */
  payload: string;
  attempts: number;
  available_at: number;
  locked_until: number | null;
  sent_at: number | null;
  /** Set when delivery was given up (a permanent SMTP refusal, or retried past the queue lifetime). */
  failed_at: number | null;
  /** Why the last attempt failed: an SMTP reply or error code, never message content or secrets. */
  last_error: string | null;
  created_at: number;
}

export type OutboxRow = Selectable<MailOutboxTable>;
export type NewOutboxRow = Insertable<MailOutboxTable>;
