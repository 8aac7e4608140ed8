import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Translate } from '../../i18n/i18n.ts';
import { asLocale, type Locale, negotiateLocale } from '../../i18n/locales.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's language (docs/guides/languages.md), negotiated on first use. */
    readonly locale: Locale;
    /** Translator fixed to the request's language. */
    readonly t: Translate;
  }
}

const YEAR_SECONDS = 365 * 24 * 3600;

type WithLocale = FastifyRequest & { gatehouseLocale: Locale | null };

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
          acceptLanguage: request.headers['accept-language'],
        },
        fallback,
      ).locale;
      return request.gatehouseLocale;
    };
    app.decorateRequest('gatehouseLocale', null);
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
    app.addHook('onRequest', (request, reply, done) => {
      const chosen = asLocale(langParameter(request));
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
    });
  },
  { name: 'gatehouse-i18n', dependencies: ['@fastify/cookie'] },
);

function langParameter(request: FastifyRequest): string | undefined {
  const lang = (request.query as Record<string, unknown> | undefined)?.['lang'];
  return typeof lang === 'string' ? lang : undefined;
}
