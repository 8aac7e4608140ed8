import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { Translate } from '../../i18n/i18n.ts';
import { asLocale, type Locale, negotiateLocale } from '../../i18n/locales.ts';
import { hooksOf } from '../route-hooks.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's language (docs/guides/languages.md), negotiated on first use. */
    readonly locale: Locale;
    /** Translator fixed to the request's language. */
    readonly t: Translate;
    /**
     * The languages a client asked for on the person's behalf (OpenID Connect `ui_locales`, a
     * space-separated list): the request's language from then on, unless the person chose their own.
     */
    preferLocales(list: string): void;
  }
}

const YEAR_SECONDS = 365 * 24 * 3600;

type WithLocale = FastifyRequest & { gatehouseLocale: Locale | null; gatehouseUiLocales: string | null };

/**
 * Negotiates each request's language (docs/guides/languages.md) when something first needs it — a JSON API answer
 * that never does pays nothing — and remembers an explicit `?lang=` in a cookie.
 */
export const i18nPlugin = fp(
  async (app) => {
    const { i18n, config } = app.services;
    const fallback = i18n.defaultLocale;
    const localeOf = (request: WithLocale): Locale => {
      request.gatehouseLocale ??= negotiateLocale(
        {
          query: langParameter(request),
          cookie: request.cookies['locale'],
          uiLocales: request.gatehouseUiLocales ?? undefined,
          acceptLanguage: request.headers['accept-language'],
        },
        fallback,
      ).locale;
      return request.gatehouseLocale;
    };
    app.decorateRequest('gatehouseLocale', null);
    app.decorateRequest('gatehouseUiLocales', null);
    app.decorateRequest('preferLocales', function (this: FastifyRequest, list: string) {
      const request = this as WithLocale;
      request.gatehouseUiLocales = list;
      // Negotiated again on next use, should anything have asked already.
      request.gatehouseLocale = null;
    });
    app.decorateRequest('locale', {
      getter(this: FastifyRequest) {
        return localeOf(this as WithLocale);
      },
    });
    app.decorateRequest('t', {
      getter(this: FastifyRequest) {
        return i18n.translator(localeOf(this as WithLocale));
      },
    });
    // Only pages remember a chosen language: API clients send ?lang= (or Accept-Language) each time,
    // and the hook is attached to page routes alone, so an API request does not run it.
    const remember: onRequestHookHandler = (request, reply, done) => {
      const lang = langParameter(request);
      const chosen = lang === undefined ? null : asLocale(lang);
      if (chosen !== null && request.cookies['locale'] !== chosen) {
        reply.setCookie('locale', chosen, {
          path: '/',
          maxAge: YEAR_SECONDS,
          sameSite: 'lax',
          httpOnly: true,
          secure: config.secureCookies,
        });
      }
      done();
    };
    app.addHook('onRoute', (route) => {
      if (!route.url.startsWith('/api/')) route.onRequest = [...hooksOf(route.onRequest), remember];
    });
  },
  { name: 'gatehouse-i18n', dependencies: ['@fastify/cookie'] },
);

function langParameter(request: FastifyRequest): string | undefined {
  const lang = (request.query as Record<string, unknown> | undefined)?.['lang'];
  return typeof lang === 'string' ? lang : undefined;
}
