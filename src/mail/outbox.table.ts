import type { Insertable, Selectable } from 'kysely';
import type { LeasedColumns } from '../outbox/leased-rows.ts';

/**
 * Mail waiting to be sent, and sent or given-up mail kept a while for diagnostics. `payload` is the
 * rendered message, AES-256-GCM encrypted with a key derived from APP_KEY (it may hold a reset link);
 * `last_error` is an SMTP reply or error code, never message content. A mail is given up (`failed_at`)
 * on a permanent SMTP refusal, or when retried past the queue lifetime.
 */
export interface MailOutboxTable extends LeasedColumns {
  /** What kind of mail (verify-email, reset-password, …), for diagnostics only. */
  kind: string;
  recipient: string;
}

export type OutboxRow = Selectable<MailOutboxTable>;
export type NewOutboxRow = Insertable<MailOutboxTable>;
