import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Html } from '../../lib/html.ts';
import type { ProviderPages } from '../../oauth/provider-config.ts';
import { carriedRequest } from './provider-request.ts';
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
};

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
