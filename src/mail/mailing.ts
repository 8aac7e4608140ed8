import type { Config } from '../config.ts';
import type { I18n } from '../i18n/i18n.ts';
import type { MailContext } from './messages.ts';
import type { MailQueue } from './outbox.ts';

/** What a use case needs to send mail: the builders' context (brand, translations) and the queue. */
export interface Mailing {
  readonly context: MailContext;
  readonly queue: MailQueue;
}

export function createMailing(config: Config, i18n: I18n, queue: MailQueue): Mailing {
  return { context: { brand: { appName: config.appName, appUrl: config.appUrl }, i18n }, queue };
}
