import { type Html, html } from '../../../lib/html.ts';
import { input } from '../../views/forms.ts';
import { layout } from '../../views/layout.ts';
import type { ViewContext } from '../../views/view-context.ts';

/** The device flow's code form (RFC 8628 §3.3): what the library needs back, and what went wrong. */
export interface DeviceCodeView {
  readonly action: string;
  /**
   * The library's one-time value proving the form is ours (its CSRF protection of /device); null
   * when there is none (a throttled submission): the form then asks /device afresh with GET.
   */
  readonly xsrf: string | null;
  readonly userCode?: string | undefined;
  /** A key of oauth.device.errors, with its values. */
  readonly error?: { readonly key: string; readonly values?: Record<string, unknown> } | undefined;
}

/**
 * "Connect a device" (docs/guides/oidc-provider.md "Device flow"): one labelled field for the
 * XXXX-XXXX code, its error beside it. No script: the form posts to the library's /device.
 */
export function deviceCodePage(request: ViewContext, view: DeviceCodeView): Html {
  const { t } = request;
  const { appName } = request.site;
  const error = view.error ? t(`oauth.device.errors.${view.error.key}`, view.error.values) : undefined;
  const state = {
    old: { user_code: view.userCode ?? '' },
    ...(error ? { errors: { user_code: [error] } } : {}),
  };
  return layout(request, {
    title: error ? `${t('oauth.device.title')} — ${error}` : t('oauth.device.title'),
    body: html`<section class="card narrow auth-card">
  <h1>${t('oauth.device.title')}</h1>
  <p>${t('oauth.device.lead', { app: appName })}</p>
  <form method="${view.xsrf === null ? 'get' : 'post'}" action="${view.action}" novalidate>
    ${view.xsrf === null ? '' : html`<input type="hidden" name="xsrf" value="${view.xsrf}">`}
    ${input(t, state, {
      name: 'user_code',
      label: t('oauth.device.label'),
      hint: t('oauth.device.hint'),
      autocomplete: 'one-time-code',
      required: true,
      autofocus: true,
    })}
    <div class="actions"><button type="submit" class="button">${t('oauth.device.submit')}</button></div>
  </form>
</section>`,
  });
}

export interface DeviceConfirmView {
  readonly action: string;
  readonly xsrf: string;
  readonly userCode: string;
  readonly clientName: string;
}

/** The code typed, shown back beside the client's name: the person checks it is their device. */
export function deviceConfirmPage(request: ViewContext, view: DeviceConfirmView): Html {
  const { t } = request;
  const title = t('oauth.device.confirm_title', { client: view.clientName });
  return layout(request, {
    title,
    body: html`<section class="card narrow auth-card">
  <h1>${title}</h1>
  <p>${t('oauth.device.confirm_lead')}</p>
  <p class="device-code"><strong>${view.userCode}</strong></p>
  <form method="post" action="${view.action}">
    <input type="hidden" name="xsrf" value="${view.xsrf}">
    <input type="hidden" name="user_code" value="${view.userCode}">
    <div class="actions">
      <button type="submit" class="button" name="confirm" value="yes">${t('oauth.device.confirm')}</button>
      <button type="submit" class="button secondary" name="abort" value="yes">${t('oauth.device.abort')}</button>
    </div>
  </form>
</section>`,
  });
}

/** The end of the flow in the browser: the device picks its tokens up at its next poll. */
export function deviceDonePage(request: ViewContext): Html {
  const { t } = request;
  return layout(request, {
    title: t('oauth.device.done_title'),
    body: html`<section class="card narrow auth-card">
  <h1>${t('oauth.device.done_title')}</h1>
  <p>${t('oauth.device.done')}</p>
</section>`,
  });
}
