import type { LightMyRequestResponse } from 'fastify';
import type { MailKind, MailMessage } from '../../src/mail/message.ts';
import { openPayload } from '../../src/mail/outbox.ts';
import { createPayloadCipher } from '../../src/mail/payload-cipher.ts';
import type { TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { eventually } from '../helpers/process.ts';
import { extractLinks } from '../helpers/smtp-sink.ts';

/**
 * The newest mail of `kind` queued for `email`, opened from the outbox (the worker is not started in
 * in-process apps, so the row stays). Polls: some use cases queue their mail after the response.
 */
export async function queuedMail(app: TestApp, email: string, kind: MailKind): Promise<MailMessage> {
  const cipher = createPayloadCipher(app.config.appKey);
  return eventually(
    async () => {
      const row = await app.db
        .selectFrom('mail_outbox')
        .selectAll()
        .where('recipient', '=', email)
        .where('kind', '=', kind)
        .orderBy('id', 'desc')
        .executeTakeFirst();
      return row ? openPayload(cipher, row.payload) : undefined;
    },
    5000,
    `a ${kind} mail to ${email}`,
  );
}

/** The link of a mail whose path contains `part`, as the recipient would click it. */
export function mailedLink(mail: MailMessage, part: string): URL {
  const link = extractLinks(mail).find((l) => l.includes(part));
  if (!link) throw new Error(`no ${part} link in the mail`);
  return new URL(link);
}

/** A guest browser that opened `path` (so it holds a session cookie and the form's CSRF token). */
export async function browserOn(app: TestApp, path: string): Promise<Browser> {
  const browser = new Browser(app.app);
  await browser.get(path);
  return browser;
}

/** Status code → how many responses had it. */
export function tally(responses: readonly LightMyRequestResponse[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const r of responses) counts[r.statusCode] = (counts[r.statusCode] ?? 0) + 1;
  return counts;
}

export async function auditCount(app: TestApp, event: string, subjectId?: number): Promise<number> {
  let query = app.db
    .selectFrom('audit_log')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('event', '=', event);
  if (subjectId !== undefined) query = query.where('subject_id', '=', subjectId);
  return Number((await query.executeTakeFirstOrThrow()).n);
}
