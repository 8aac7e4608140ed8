/**
 * Dates on pages, in the request's language. Shown in UTC (labelled so): the server does not know the
 * reader's time zone, and a page that works without JavaScript cannot ask.
 */
export function formatDateTime(locale: string, ms: number): string {
  return `${new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(ms)} UTC`;
}

export function formatDate(locale: string, ms: number): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(ms);
}
