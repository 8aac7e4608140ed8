import fp from 'fastify-plugin';
import { type Locale, negotiateLocale, type Translate } from '../../i18n/i18n.ts';

declare module 'fastify' {
  interface FastifyRequest {
    locale: Locale;
    /** Translator fixed to the request's language. */
    t: Translate;
  }
}

const YEAR_SECONDS = 365 * 24 * 3600;

/** Negotiates each request's language (CONTRACT §7) and remembers an explicit `?lang=` in a cookie. */
export const i18nPlugin = fp(
  async (app) => {
    const { i18n, config } = app.services;
    const fallback = i18n.defaultLocale;
    app.decorateRequest('locale', fallback);
    app.decorateRequest('t', i18n.translator(fallback));
    app.addHook('onRequest', async (request, reply) => {
      const query = request.query as Record<string, unknown> | undefined;
      const lang = typeof query?.['lang'] === 'string' ? query['lang'] : undefined;
      const { locale, fromQuery } = negotiateLocale(
        {
          query: lang,
          cookie: request.cookies['locale'],
          acceptLanguage: request.headers['accept-language'],
        },
        fallback,
      );
      request.locale = locale;
      request.t = i18n.translator(locale);
      if (fromQuery && request.cookies['locale'] !== locale) {
        reply.setCookie('locale', locale, {
          path: '/',
          maxAge: YEAR_SECONDS,
          sameSite: 'lax',
          httpOnly: true,
          secure: config.secureCookies,
        });
      }
    });
  },
  { name: 'gatehouse-i18n', dependencies: ['@fastify/cookie'] },
);
