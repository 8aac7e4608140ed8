import type { FastifyRequest } from 'fastify';
import { type Html, html } from './html.ts';

export interface LayoutOptions {
  title: string;
  body: Html;
  /** Extra class on <body>, e.g. "admin" for the panel. */
  variant?: string;
}

/** The page frame shared by web and admin pages: app name, language switcher, one stylesheet. */
export function layout(request: FastifyRequest, options: LayoutOptions): Html {
  const { appName } = request.server.services.config;
  const path = request.url.split('?')[0] ?? '/';
  return html`<!doctype html>
<html lang="${request.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · ${appName}</title>
<link rel="stylesheet" href="/assets/app.css">
</head>
<body class="${options.variant ?? 'web'}">
<header class="topbar">
  <a class="brand" href="/">${appName}</a>
  <nav class="langs" aria-label="${request.t('pages.language')}">
    ${request.server.services.i18n.locales.map(
      (l) =>
        html`<a href="${path}?lang=${l}" hreflang="${l}"${l === request.locale ? html` aria-current="true"` : ''}>${l.toUpperCase()}</a>`,
    )}
  </nav>
</header>
<main>${options.body}</main>
</body>
</html>`;
}
