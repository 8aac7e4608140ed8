import type { KoaContextWithOIDC } from 'oidc-provider';

type Next = () => Promise<void>;

/**
 * RFC 6749 §5.2 names the error of a client using a grant type it was not registered with:
 * `unauthorized_client`, and RFC 8628 §3.2 answers the device authorization endpoint with those same
 * errors. oidc-provider answers `invalid_request` at both; the token and device authorization
 * endpoints give the RFC's code (docs/guides/oidc-provider.md "Errors").
 */
export function grantTypeNotAllowed() {
  return async function unauthorizedClient(ctx: KoaContextWithOIDC, next: Next): Promise<void> {
    await next();
    const route = ctx.oidc?.route;
    if ((route !== 'token' && route !== 'device_authorization') || ctx.status !== 400) return;
    const body = ctx.body as { error?: unknown; error_description?: unknown } | undefined;
    if (body?.error !== 'invalid_request' || typeof body.error_description !== 'string') return;
    if (
      body.error_description === 'requested grant type is not allowed for this client' ||
      body.error_description.endsWith(':device_code is not allowed for this client')
    ) {
      ctx.body = { ...body, error: 'unauthorized_client' };
    }
  };
}

/**
 * The error codes oidc-provider sends back to a client's redirect URI without a description (it has
 * none for them); every error redirect carries `error_description` (docs/guides/oidc-provider.md
 * "Errors"). Gatehouse accepts no request objects and no `registration` parameter.
 */
const MISSING_DESCRIPTIONS: Readonly<Record<string, string>> = {
  request_not_supported: 'request objects (the request parameter) are not supported',
  request_uri_not_supported: 'the request_uri parameter is not supported',
  registration_not_supported: 'the registration parameter is not supported',
};

/** Adds `error_description` to an authorization error redirect (query or fragment) that has none. */
export function describedAuthorizationErrors() {
  return async function describeErrors(ctx: KoaContextWithOIDC, next: Next): Promise<void> {
    await next();
    if (ctx.status !== 303 && ctx.status !== 302) return;
    const location = ctx.response.get('location');
    if (!location.includes('error=')) return;
    const url = new URL(location);
    for (const params of [url.searchParams, new URLSearchParams(url.hash.slice(1))]) {
      const description = MISSING_DESCRIPTIONS[params.get('error') ?? ''];
      if (description === undefined || params.has('error_description')) continue;
      params.set('error_description', description);
      if (params === url.searchParams) ctx.redirect(url.href);
      else ctx.redirect(`${url.href.split('#')[0]}#${params}`);
      return;
    }
  };
}
