import type { KoaContextWithOIDC } from 'oidc-provider';

type Next = () => Promise<void>;

/**
 * RFC 6749 §5.2 names the error of a client using a grant type it was not registered with:
 * `unauthorized_client`. oidc-provider answers `invalid_request` there; the token endpoint gives the
 * RFC's code (docs/guides/oidc-provider.md "Errors").
 */
export function grantTypeNotAllowed() {
  return async function unauthorizedClient(ctx: KoaContextWithOIDC, next: Next): Promise<void> {
    await next();
    if (ctx.oidc?.route !== 'token' || ctx.status !== 400) return;
    const body = ctx.body as { error?: unknown; error_description?: unknown } | undefined;
    if (
      body?.error === 'invalid_request' &&
      body.error_description === 'requested grant type is not allowed for this client'
    ) {
      ctx.body = { ...body, error: 'unauthorized_client' };
    }
  };
}
