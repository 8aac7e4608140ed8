import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Html } from '../../lib/html.ts';
import type { ProviderPages } from '../../oauth/provider-config.ts';
import { carriedRequest } from './provider-request.ts';
import { deviceCodePage, deviceConfirmPage, deviceDonePage } from './views/device.ts';
import { loggedOutPage, logoutPage } from './views/logout.ts';
import { providerErrorPage } from './views/provider-error.ts';

/** The pages oidc-provider shows, in Gatehouse's layout and the visitor's language. */
export const providerPages: ProviderPages = {
  async renderError(ctx, out) {
    const status = Math.max(ctx.status, 400);
    send(ctx, status, (request) =>
      providerErrorPage(request, {
        status,
        error: out.error ?? 'server_error',
        description: status >= 500 ? null : (out.error_description ?? null),
        logout: ctx.oidc?.route?.startsWith('end_session') ?? false,
      }),
    );
  },

  async logoutSource(ctx) {
    const session = ctx.oidc.session!;
    send(ctx, 200, (request) =>
      logoutPage(request, {
        clientName: ctx.oidc.client?.clientName ?? null,
        action: ctx.oidc.urlFor('end_session_confirm'),
        xsrf: String(session.state?.['secret'] ?? ''),
      }),
    );
  },

  async postLogoutSuccessSource(ctx) {
    send(ctx, 200, (request) => loggedOutPage(request, ctx.oidc.client?.clientName ?? null));
  },

  async deviceCodeInput(ctx, _form, out, error) {
    const userCode = (error as { userCode?: unknown } | undefined)?.userCode;
    send(ctx, out && ctx.status >= 400 ? ctx.status : 200, (request) =>
      deviceCodePage(request, {
        action: ctx.oidc.urlFor('code_verification'),
        xsrf: xsrfOf(ctx),
        userCode: typeof userCode === 'string' ? userCode : undefined,
        error: out || error ? { key: deviceErrorKey(out?.error, error?.name) } : undefined,
      }),
    );
  },

  async deviceCodeConfirm(ctx, _form, client, _info, userCode) {
    send(ctx, 200, (request) =>
      deviceConfirmPage(request, {
        action: ctx.oidc.urlFor('code_verification'),
        xsrf: xsrfOf(ctx),
        userCode,
        clientName: client.clientName ?? client.clientId,
      }),
    );
  },

  async deviceSuccess(ctx) {
    send(ctx, 200, deviceDonePage);
  },
};

/** The library's re-render errors of /device (and a denied consent) as our message keys. */
const DEVICE_ERRORS: Record<string, string> = {
  NotFoundError: 'not_found',
  ExpiredError: 'expired',
  AlreadyUsedError: 'already_used',
  NoCodeError: 'no_code',
  AbortedError: 'aborted',
};

function deviceErrorKey(code: string | undefined, name: string | undefined): string {
  if (code === 'access_denied') return 'access_denied';
  return (name && DEVICE_ERRORS[name]) || 'other';
}

function xsrfOf(ctx: KoaContextWithOIDC): string {
  return String(ctx.oidc.session?.state?.['secret'] ?? '');
}

function send(
  ctx: KoaContextWithOIDC,
  status: number,
  page: (request: NonNullable<ReturnType<typeof carriedRequest>>) => Html,
) {
  const request = carriedRequest(ctx.req);
  if (request === undefined) throw new Error('provider page outside a Gatehouse request');
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = page(request).value;
}
