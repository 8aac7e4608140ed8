import type { Identity } from '../../auth/guards/guards.ts';
import type { Translate } from '../../i18n/i18n.ts';
import type { Locale } from '../../i18n/locales.ts';

/** What every page may show about the installation. */
export interface Site {
  readonly appName: string;
  /** The languages the language switcher offers. */
  readonly locales: readonly Locale[];
  /** Now, epoch milliseconds (the service's clock: relative times, "expires in"). */
  now(): number;
}

/**
 * What a view knows of the request it answers: the language, the address (the language links keep it),
 * who is signed in, the installation, and a guard's CSRF token for the forms in the frame. Nothing
 * else: a view is given what it shows and never reads a database, a session or a service. A Fastify
 * request is one (plugins/i18n.ts, plugins/session.ts, plugins/view-context.ts decorate it).
 */
export interface ViewContext {
  readonly t: Translate;
  readonly locale: Locale;
  readonly method: string;
  readonly url: string;
  readonly identity: Identity | null;
  readonly site: Site;
  csrfToken(guard: string): string;
}
