import { type Html, html } from './html.ts';

/**
 * Dates on pages, in the request's language. Shown in UTC (labelled so): the server does not know the
 * reader's time zone, and a page that works without JavaScript cannot ask.
 */
export function formatDateTime(locale: string, ms: number): string {
  return `${formatter(dateTimeFormats, locale, { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(ms)} UTC`;
}

export function formatDate(locale: string, ms: number): string {
  return formatter(dateFormats, locale, { dateStyle: 'long', timeZone: 'UTC' }).format(ms);
}

// Building an Intl.DateTimeFormat costs far more than formatting with one (it was the largest item of
// a /dashboard request's profile): one per locale and style, made on first use. Locales are the four
// supported ones, so the maps stay tiny.
const dateFormats = new Map<string, Intl.DateTimeFormat>();
const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();

function formatter(
  cache: Map<string, Intl.DateTimeFormat>,
  locale: string,
  options: Intl.DateTimeFormatOptions,
): Intl.DateTimeFormat {
  let format = cache.get(locale);
  if (format === undefined) {
    format = new Intl.DateTimeFormat(locale, options);
    if (cache.size < 16) cache.set(locale, format);
  }
  return format;
}

/** An address that may wrap before its "@" rather than mid-word in a narrow column. */
export function breakableEmail(email: string): Html {
  const at = email.lastIndexOf('@');
  return at > 0 ? html`${email.slice(0, at)}<wbr>${email.slice(at)}` : html`${email}`;
}
