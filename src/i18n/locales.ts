/** The languages of every page, message and mail; each has its folder in lang/. */
export const SUPPORTED_LOCALES = ['en', 'de', 'fr', 'es'] as const;
export type Locale = (typeof SUPPORTED_LOCALES)[number];

export function asLocale(value: string | undefined | null): Locale | null {
  if (!value) return null;
  const base = value.trim().toLowerCase().slice(0, 2);
  return (SUPPORTED_LOCALES as readonly string[]).includes(base) &&
    /^[a-z]{2}([-_][a-z0-9]+)?$/i.test(value.trim())
    ? (base as Locale)
    : null;
}

/**
 * The request's language: `?lang=` (the caller remembers it in a cookie), else the `locale` cookie,
 * else the languages a client asked for on the person's behalf (OpenID Connect `ui_locales`), else the
 * best supported `Accept-Language` entry, else the default. The person's own choice, made on one of
 * our pages, outranks a client's wish.
 */
export function negotiateLocale(
  input: {
    query?: string | undefined;
    cookie?: string | undefined;
    uiLocales?: string | undefined;
    acceptLanguage?: string | undefined;
  },
  fallback: Locale,
): { locale: Locale; fromQuery: boolean } {
  const fromQuery = asLocale(input.query);
  if (fromQuery) return { locale: fromQuery, fromQuery: true };
  const fromCookie = asLocale(input.cookie);
  if (fromCookie) return { locale: fromCookie, fromQuery: false };
  const locale = fromUiLocales(input.uiLocales) ?? fromAcceptLanguage(input.acceptLanguage) ?? fallback;
  return { locale, fromQuery: false };
}

/**
 * The first supported entry of a space-separated list of BCP 47 tags in order of preference (OpenID
 * Connect Core §3.1.2.1 `ui_locales`), by its primary language: `de-CH` and `de-Latn-CH` are `de`.
 */
function fromUiLocales(list: string | undefined): Locale | null {
  if (!list || list.length > 1000) return null;
  for (const tag of list.split(' ')) {
    const locale = asLocale(tag.split('-')[0]);
    if (locale) return locale;
  }
  return null;
}

function fromAcceptLanguage(header: string | undefined): Locale | null {
  if (!header || header.length > 1000) return null;
  const ranked = header
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.q > 0 && !Number.isNaN(entry.q))
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const entry of ranked) {
    const locale = asLocale(entry.tag);
    if (locale) return locale;
  }
  return null;
}
