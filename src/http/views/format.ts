import { type Html, html } from '../../lib/html.ts';

/**
 * Dates on pages, in the request's language. Shown in UTC (labelled so): the server does not know the
 * reader's time zone, and a page that works without JavaScript cannot ask.
 */
export function formatDateTime(locale: string, ms: number): string {
  return `${formatter(dateTimeFormats, locale, { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(ms)} UTC`;
}

export function formatDate(locale: string, ms: number): string {
  // Pages show the same few dates again and again (a member-since date on every dashboard view), and
  // formatting one costs microseconds: answers are kept, in a map cleared whenever it fills.
  const key = `${locale}|${ms}`;
  let text = formattedDates.get(key);
  if (text === undefined) {
    text = formatter(dateFormats, locale, { dateStyle: 'long', timeZone: 'UTC' }).format(ms);
    if (formattedDates.size >= 1000) formattedDates.clear();
    formattedDates.set(key, text);
  }
  return text;
}

const formattedDates = new Map<string, string>();

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

/**
 * A moment as `<time>`: the server writes it in UTC, spelled out (formatDateTime), with the exact instant
 * in `datetime`; /assets/app.js then shows it in the reader's own time zone — as "5 minutes ago" /
 * "in 3 days" (`relative`, the exact local time in its tooltip) or as a local date and time (`local`).
 * Without JavaScript the UTC text stays, labelled as such.
 */
export function timeTag(locale: string, ms: number, mode: 'relative' | 'local' = 'relative'): Html {
  return html`<time datetime="${new Date(ms).toISOString()}" data-${mode}>${formatDateTime(locale, ms)}</time>`;
}

/** An address that may wrap before its "@" rather than mid-word in a narrow column. */
export function breakableEmail(email: string): Html {
  const at = email.lastIndexOf('@');
  return at > 0 ? html`${email.slice(0, at)}<wbr>${email.slice(at)}` : html`${email}`;
}
