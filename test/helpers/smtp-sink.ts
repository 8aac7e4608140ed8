import { createServer } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { leaves, type MimePart, parseMime } from './mime.ts';

/** One message as it arrived over SMTP: the envelope, the raw bytes, and the decoded parts. */
export interface ReceivedMail {
  readonly envelope: { readonly from: string; readonly to: readonly string[] };
  /** The user the client authenticated as, when it did. */
  readonly authUser: string | undefined;
  readonly raw: string;
  readonly mime: MimePart;
  /** First value of a header (decoded), by case-insensitive name. */
  header(name: string): string | undefined;
  readonly subject: string;
  readonly from: string;
  readonly to: string;
  readonly text: string;
  readonly html: string;
}

export interface SmtpSink {
  readonly host: string;
  readonly port: number;
  readonly mails: ReceivedMail[];
  /** SMTP settings for createTestApp's env. */
  readonly env: Record<string, string>;
  waitForMail(predicate?: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  /** Waits until `count` mails match, then returns them. */
  waitForMails(
    count: number,
    predicate?: (mail: ReceivedMail) => boolean,
    timeoutMs?: number,
  ): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

export interface SinkOptions {
  /** Listen on this port (an outage test brings the server back on the same one). */
  port?: number;
  /** Require AUTH with these credentials (plain text is allowed: loopback only). */
  auth?: { user: string; pass: string };
  /** Reply to RCPT TO for addresses matching this with the given SMTP error. */
  rejectRecipient?: (address: string) => { code: number; message: string } | null;
}

/** A real SMTP server on loopback (smtp-server), STARTTLS disabled, capturing every message. */
export async function startSmtpSink(options: SinkOptions = {}): Promise<SmtpSink> {
  const mails: ReceivedMail[] = [];
  const waiters = new Set<() => void>();
  const serverOptions: SMTPServerOptions = {
    logger: false,
    disabledCommands: options.auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !options.auth,
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      if (options.auth && auth.username === options.auth.user && auth.password === options.auth.pass) {
        return callback(null, { user: auth.username });
      }
      return callback(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, callback) {
      const refusal = options.rejectRecipient?.(address.address);
      if (!refusal) return callback();
      const error = new Error(refusal.message) as Error & { responseCode: number };
      error.responseCode = refusal.code;
      return callback(error);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const envelope = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
        };
        mails.push(receivedMail(Buffer.concat(chunks), envelope, session.user as string | undefined));
        for (const wake of waiters) wake();
        callback();
      });
    },
  };
  const server = new SMTPServer(serverOptions);
  server.on('error', () => {});
  const port = options.port ?? (await freePort());
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });

  const waitForMails: SmtpSink['waitForMails'] = (count, predicate = () => true, timeoutMs = 5000) =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = mails.filter(predicate);
        if (found.length < count) return false;
        clearTimeout(timer);
        waiters.delete(check);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(
          new Error(`timed out after ${timeoutMs} ms waiting for ${count} mail(s); got ${mails.length}`),
        );
      }, timeoutMs);
      if (!check()) waiters.add(check);
    });

  return {
    host: '127.0.0.1',
    port,
    mails,
    env: { MAIL_MAILER: 'smtp', MAIL_HOST: '127.0.0.1', MAIL_PORT: String(port), MAIL_ENCRYPTION: 'none' },
    waitForMails,
    async waitForMail(predicate = () => true, timeoutMs = 5000) {
      return (await waitForMails(1, predicate, timeoutMs))[0]!;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function receivedMail(
  raw: Buffer,
  envelope: ReceivedMail['envelope'],
  authUser: string | undefined,
): ReceivedMail {
  const mime = parseMime(raw);
  const header = (name: string) => mime.headers.get(name.toLowerCase())?.[0];
  const parts = leaves(mime);
  return {
    envelope,
    authUser,
    raw: raw.toString('utf8'),
    mime,
    header,
    subject: header('subject') ?? '',
    from: header('from') ?? '',
    to: header('to') ?? '',
    text: parts.find((p) => p.contentType === 'text/plain')?.body ?? '',
    html: parts.find((p) => p.contentType === 'text/html')?.body ?? '',
  };
}

/** Every link in a mail: from the text part and the HTML hrefs (entities decoded), without duplicates. */
export function extractLinks(mail: Pick<ReceivedMail, 'text' | 'html'>): string[] {
  const fromText = mail.text.match(/https?:\/\/[^\s<>"]+/g) ?? [];
  const fromHtml = [...mail.html.matchAll(/href="([^"]+)"/g)].map((m) =>
    m[1]!
      .replace(/&amp;/g, '&')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'"),
  );
  return [...new Set([...fromText, ...fromHtml])];
}

/** A loopback port that was free a moment ago (for "the server comes back on the same port"). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
