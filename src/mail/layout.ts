import type { Translate } from '../i18n/i18n.ts';
import { html } from '../lib/html.ts';

/**
 * The shape every Gatehouse mail shares (Laravel's MailMessage in spirit): a greeting, intro lines,
 * at most one action button, outro lines, a signature, and the raw link spelled out for clients that
 * cannot click. Rendered twice: a text part and an HTML part with inline styles only (mail clients drop
 * stylesheets). The HTML goes through the escaping `html` tag of lib/html.ts, which the pages use too.
 */
export interface MailContent {
  readonly name?: string | undefined;
  readonly intro: readonly string[];
  /**
   * The text part's intro when the HTML one speaks of its button: a plain-text reader sees no button,
   * only the link spelled out below ("open the link below", never "click the button").
   */
  readonly introText?: readonly string[];
  readonly action?: { readonly label: string; readonly url: string };
  readonly outro: readonly string[];
}

export interface Brand {
  readonly appName: string;
  readonly appUrl: string;
}

export function renderText(content: MailContent, brand: Brand, t: Translate): string {
  const lines: string[] = [greeting(content, t), ''];
  for (const line of content.introText ?? content.intro) lines.push(line, '');
  if (content.action) lines.push(`${content.action.label}: ${content.action.url}`, '');
  for (const line of content.outro) lines.push(line, '');
  lines.push(t('mail.regards'), brand.appName, '', '-- ', `${brand.appName} · ${brand.appUrl}`);
  return `${lines.join('\n')}\n`;
}

export function renderHtml(content: MailContent, brand: Brand, t: Translate, locale: string): string {
  const p = (text: string) => html`<p style="margin:0 0 16px;line-height:1.5">${text}</p>`;
  const { action } = content;
  return html`<!doctype html>
<html lang="${locale}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${brand.appName}</title></head>
<body style="margin:0;padding:24px;background:#f3f4f6;font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#111827">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:570px;background:#ffffff;border-radius:8px;padding:32px">
<tr><td>
<p style="margin:0 0 24px;font-size:18px;font-weight:700"><a href="${brand.appUrl}" style="color:#111827;text-decoration:none">${brand.appName}</a></p>
<h1 style="margin:0 0 16px;font-size:20px">${greeting(content, t)}</h1>
${content.intro.map(p)}
${
  action &&
  html`<p style="margin:24px 0;text-align:center"><a href="${action.url}" style="display:inline-block;padding:10px 18px;border-radius:6px;background:#1f2937;color:#ffffff;text-decoration:none;font-weight:600">${action.label}</a></p>`
}
${content.outro.map(p)}
<p style="margin:0;line-height:1.5">${t('mail.regards')}<br>${brand.appName}</p>
${
  action &&
  html`<hr style="border:none;border-top:1px solid #e5e7eb;margin:24px 0">
<p style="margin:0;font-size:13px;line-height:1.5;color:#6b7280">${t('mail.subcopy', { action: action.label })}<br><a href="${action.url}" style="color:#2563eb;word-break:break-all">${action.url}</a></p>`
}
</td></tr>
</table>
</td></tr></table>
</body>
</html>
`.value;
}

function greeting(content: MailContent, t: Translate): string {
  return content.name ? t('mail.greeting', { name: content.name }) : t('mail.greeting_anonymous');
}
