import { DAY, HOUR, MINUTE } from '../../../lib/clock.ts';
import { type Html, html } from '../../../lib/html.ts';
import type { ViewContext } from '../view-context.ts';

/**
 * Dates in the panel: absolute times in UTC (the server does not know the admin's time zone, and an
 * audit trail must be unambiguous), relative times ("5 minutes ago") where recency is what matters,
 * both in the request's language with the exact ISO instant in a tooltip.
 */
export function dateTime(viewContext: ViewContext, ms: number | null): Html {
  if (ms === null) return html`<span class="muted">—</span>`;
  const formatted = new Intl.DateTimeFormat(viewContext.locale, {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: 'UTC',
  }).format(ms);
  const iso = new Date(ms).toISOString();
  return html`<time datetime="${iso}" title="${iso}">${formatted} UTC</time>`;
}

export function dateOnly(viewContext: ViewContext, ms: number): Html {
  const formatted = new Intl.DateTimeFormat(viewContext.locale, {
    dateStyle: 'medium',
    timeZone: 'UTC',
  }).format(ms);
  const iso = new Date(ms).toISOString();
  return html`<time datetime="${iso}" title="${iso}">${formatted}</time>`;
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * DAY],
  ['month', 30 * DAY],
  ['day', DAY],
  ['hour', HOUR],
  ['minute', MINUTE],
];

export function relativeTime(viewContext: ViewContext, ms: number | null): Html {
  if (ms === null) return html`<span class="muted">${viewContext.t('admin.never')}</span>`;
  const now = viewContext.site.now();
  const diff = ms - now;
  const format = new Intl.RelativeTimeFormat(viewContext.locale, { numeric: 'auto' });
  const unit = UNITS.find(([, size]) => Math.abs(diff) >= size);
  const text = unit ? format.format(Math.round(diff / unit[1]), unit[0]) : viewContext.t('admin.just_now');
  const iso = new Date(ms).toISOString();
  return html`<time datetime="${iso}" title="${iso}">${text}</time>`;
}

const BROWSERS: [RegExp, string][] = [
  [/Edg\//, 'Edge'],
  [/OPR\/|Opera/, 'Opera'],
  [/Firefox\//, 'Firefox'],
  [/Chrome\/|Chromium\//, 'Chrome'],
  [/Safari\//, 'Safari'],
  [/curl\//, 'curl'],
];
const SYSTEMS: [RegExp, string][] = [
  [/Android/, 'Android'],
  [/iPhone|iPad|iOS/, 'iOS'],
  [/Windows/, 'Windows'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/CrOS/, 'ChromeOS'],
  [/Linux/, 'Linux'],
];

/** "Firefox · Linux" from a user-agent string: enough to recognise a device; the full string is a tooltip. */
export function deviceName(userAgent: string | null): string | null {
  if (!userAgent) return null;
  const browser = BROWSERS.find(([pattern]) => pattern.test(userAgent))?.[1];
  const system = SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1];
  if (browser && system) return `${browser} · ${system}`;
  return browser ?? system ?? null;
}

/**
 * An e-mail address that wraps only between its parts — before the "@", each dot and a "+" — never
 * inside a word (docs/guides/admin-panel.md): `<wbr>` marks where a line may break.
 */
export function emailAddress(email: string, classes = ''): Html {
  // Before each "@", "." and "+": the places a person breaks an address at (hyphens break by themselves).
  const parts = email.split(/(?=[@.+])/).map((part, i) => (i === 0 ? part : html`<wbr>${part}`));
  return html`<span class="email${classes === '' ? '' : ` ${classes}`}">${parts}</span>`;
}
