import { type Html, html } from '../../lib/html.ts';
import { csrfField } from './forms.ts';
import type { ViewContext } from './view-context.ts';

/** The signed-in web user, for the header's account links and its log-out button. */
export interface Account {
  readonly name: string;
  readonly csrfToken: string;
}

export interface LayoutOptions {
  title: string;
  body: Html;
  /** Extra class on <body>, e.g. "admin" for the panel. */
  variant?: string;
  /**
   * Web pages pass the signed-in account (dashboard, profile, log out) or null for a guest (log in,
   * register). Left out (error pages, the panel), the header shows no account links.
   */
  account?: Account | null;
  /** Further scripts of our own origin this page needs (e.g. /assets/passkeys.js), deferred like app.js. */
  scripts?: readonly string[];
}

/**
 * The page frame shared by web and admin pages: app name, language switcher, one stylesheet, one
 * small script (progressive enhancement only: every page works without it) and the favicon.
 */
export function layout(viewContext: ViewContext, options: LayoutOptions): Html {
  const { t } = viewContext;
  const { appName } = viewContext.site;
  const [rawPath = '/', query = ''] = splitUrl(viewContext.url);
  const path = sitePath(rawPath);
  return html`<!doctype html>
<html lang="${viewContext.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · ${appName}</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/app.css">
<script src="/assets/app.js" defer></script>
${(options.scripts ?? []).map((src) => html`<script src="${src}" defer></script>\n`)}</head>
<body class="${options.variant ?? 'web'}">
<a class="skip-link" href="#main">${t('pages.skip_to_content')}</a>
<header class="topbar">
  <div class="topbar-inner">
    <a class="brand" href="/">${BRAND_MARK}<span>${appName}</span></a>
    ${accountNav(viewContext, options.account, path)}
    <nav class="langs" aria-label="${t('pages.language')}">
      ${languageLinks(viewContext, path, query)}
    </nav>
  </div>
</header>
<main id="main">${options.body}</main>
<footer class="site-footer">${appName}</footer>
</body>
</html>`;
}

/**
 * One link per language to this very page, its query kept (a prefilled e-mail, a search) and only
 * `lang` replaced.
 */
function languageLinks(viewContext: ViewContext, path: string, query: string): Html {
  const params = new URLSearchParams(query);
  params.delete('lang');
  const kept = params.toString();
  const prefix = `${path}?${kept === '' ? '' : `${kept}&`}lang=`;
  return html`${viewContext.site.locales.map(
    (l) =>
      html`<a href="${prefix}${l}" hreflang="${l}" lang="${l}"${l === viewContext.locale ? html` aria-current="true"` : ''}>${l.toUpperCase()}</a>`,
  )}`;
}

function splitUrl(url: string): [string, string] {
  const at = url.indexOf('?');
  return at === -1 ? [url, ''] : [url.slice(0, at), url.slice(at + 1)];
}

/**
 * The request path as a link that stays on this site (docs/security.md): browsers read `\\` as `/` and
 * drop tabs and newlines inside URLs, so a path that would then start with two slashes (`//evil.example`,
 * `/\\evil.example`) would be a link to another host. It loses the extra leading slashes instead.
 */
function sitePath(path: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
  const visible = path.replace(/[\u0000-\u001f\u007f]/g, '');
  return /^[/\\]{2}/.test(visible) ? `/${visible.replace(/^[/\\]+/, '')}` : visible;
}

/** A header link, marked current on its page and the pages under it (/profile/security for /profile). */
function navLink(href: string, label: string, path: string): Html {
  const current = path === href || path.startsWith(`${href}/`);
  return html`<a href="${href}"${current ? html` aria-current="page"` : ''}>${label}</a>`;
}

function accountNav(viewContext: ViewContext, account: Account | null | undefined, path: string): Html {
  const { t } = viewContext;
  if (account === undefined) return html``;
  if (account === null) {
    return html`<nav class="site-nav" aria-label="${t('pages.account')}">
      ${navLink('/login', t('pages.log_in'), path)}
      <a class="button small" href="/register">${t('pages.register')}</a>
    </nav>`;
  }
  return html`<nav class="site-nav" aria-label="${t('pages.account')}">
      ${navLink('/dashboard', t('pages.dashboard'), path)}
      ${navLink('/profile', t('pages.profile'), path)}
      <form method="post" action="/logout" class="inline">${csrfField(account.csrfToken)}<button type="submit" class="link-button">${t('pages.log_out')}</button></form>
    </nav>`;
}

/** A small gate drawn inline: no extra request, allowed by the CSP (markup, not script or style). */
const BRAND_MARK = html`<svg class="brand-mark" viewBox="0 0 32 32" aria-hidden="true" focusable="false"><rect width="32" height="32" rx="8" fill="currentColor"/><path d="M9 24V13a7 7 0 0 1 14 0v11" fill="none" stroke="#fff" stroke-width="2.5" stroke-linecap="round"/><path d="M16 24v-6" stroke="#fff" stroke-width="2.5" stroke-linecap="round"/></svg>`;
