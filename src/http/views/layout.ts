import type { FastifyRequest } from 'fastify';
import { escapeHtml, type Html, html, raw } from '../../lib/html.ts';
import { fixed } from './fixed.ts';
import { csrfField } from './forms.ts';

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
}

/**
 * The frame's text that depends only on the app and the language, escaped once (views/fixed.ts).
 * Language links are kept as the markup around the current path, which is the only part that varies.
 */
const frame = fixed(({ t, locale, appName, locales }) => ({
  appName: html`${appName}`,
  skipToContent: html`${t('pages.skip_to_content')}`,
  languages: html`${t('pages.language')}`,
  account: html`${t('pages.account')}`,
  logIn: t('pages.log_in'),
  register: html`${t('pages.register')}`,
  dashboard: t('pages.dashboard'),
  profile: t('pages.profile'),
  logOut: html`${t('pages.log_out')}`,
  /** After `<a href="` + the path, one per language. */
  languageLinks: locales.map(
    (l) =>
      html`?lang=${l}" hreflang="${l}" lang="${l}"${l === locale ? html` aria-current="true"` : ''}>${l.toUpperCase()}</a>`
        .value,
  ),
}));

type Frame = ReturnType<typeof frame>;

/** The page frame shared by web and admin pages: app name, language switcher, one stylesheet. */
export function layout(request: FastifyRequest, options: LayoutOptions): Html {
  const text = frame(request);
  const path = request.url.split('?')[0] ?? '/';
  return html`<!doctype html>
<html lang="${request.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · ${text.appName}</title>
<link rel="stylesheet" href="/assets/app.css">
</head>
<body class="${options.variant ?? 'web'}">
<a class="skip-link" href="#main">${text.skipToContent}</a>
<header class="topbar">
  <div class="topbar-inner">
    <a class="brand" href="/">${BRAND_MARK}<span>${text.appName}</span></a>
    ${accountNav(text, options.account, path)}
    <nav class="langs" aria-label="${text.languages}">
      ${languageLinks(text, path)}
    </nav>
  </div>
</header>
<main id="main">${options.body}</main>
<footer class="site-footer">${text.appName}</footer>
</body>
</html>`;
}

function languageLinks(text: Frame, path: string): Html {
  const href = `<a href="${escapeHtml(path)}`;
  let links = '';
  for (const rest of text.languageLinks) links += href + rest;
  return raw(links);
}

function navLink(href: string, label: string, path: string): Html {
  return html`<a href="${href}"${href === path ? html` aria-current="page"` : ''}>${label}</a>`;
}

function accountNav(text: Frame, account: Account | null | undefined, path: string): Html {
  if (account === undefined) return html``;
  if (account === null) {
    return html`<nav class="site-nav" aria-label="${text.account}">
      ${navLink('/login', text.logIn, path)}
      <a class="button small" href="/register">${text.register}</a>
    </nav>`;
  }
  return html`<nav class="site-nav" aria-label="${text.account}">
      ${navLink('/dashboard', text.dashboard, path)}
      ${navLink('/profile', text.profile, path)}
      <form method="post" action="/logout" class="inline">${csrfField(account.csrfToken)}<button type="submit" class="link-button">${text.logOut}</button></form>
    </nav>`;
}

/** A small gate drawn inline: no extra request, allowed by the CSP (markup, not script or style). */
const BRAND_MARK = html`<svg class="brand-mark" viewBox="0 0 32 32" aria-hidden="true" focusable="false"><rect width="32" height="32" rx="8" fill="currentColor"/><path d="M9 24V13a7 7 0 0 1 14 0v11" fill="none" stroke="#fff" stroke-width="2.5" stroke-linecap="round"/><path d="M16 24v-6" stroke="#fff" stroke-width="2.5" stroke-linecap="round"/></svg>`;
