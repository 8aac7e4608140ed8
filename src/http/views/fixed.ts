import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Translate } from '../../i18n/i18n.ts';
import type { Locale } from '../../i18n/locales.ts';
import type { Html } from '../../lib/html.ts';

/** All a fixed fragment may depend on: the app and the language, never the request. */
export interface FixedContext {
  readonly t: Translate;
  readonly locale: Locale;
  readonly appName: string;
  readonly locales: readonly Locale[];
}

/**
 * Markup that depends only on the app and the language (headings, labels, the page frame's fixed
 * parts): rendered once per app and locale, then reused. Most of a page is such text, and each label
 * otherwise costs a lookup and an escape on every view. `render` gets no request, so nothing that
 * belongs to one reader can be kept by mistake.
 */
export function fixed<T = Html>(render: (context: FixedContext) => T): (request: FastifyRequest) => T {
  const kept = new WeakMap<FastifyInstance, Map<Locale, T>>();
  return (request) => {
    let byLocale = kept.get(request.server);
    if (byLocale === undefined) {
      byLocale = new Map();
      kept.set(request.server, byLocale);
    }
    const locale = request.locale;
    let fragment = byLocale.get(locale);
    if (fragment === undefined) {
      const { services } = request.server;
      fragment = render({
        t: request.t,
        locale,
        appName: services.config.appName,
        locales: services.i18n.locales,
      });
      byLocale.set(locale, fragment);
    }
    return fragment;
  };
}
