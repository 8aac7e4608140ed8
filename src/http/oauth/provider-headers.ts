import type { FastifyReply } from 'fastify';
import type { KoaContextWithOIDC } from 'oidc-provider';

type Next = () => Promise<void>;

/**
 * The origin (or, for a native app's private-use scheme, the scheme) a form may end up on after the
 * provider redirects: CSP form-action must name it, or Chromium and Safari refuse the last redirect
 * of a form submission (w3c/webappsec-csp#8).
 */
export function formTarget(uri: unknown): string | null {
  if (typeof uri !== 'string') return null;
  const parsed = URL.parse(uri);
  if (parsed === null) return null;
  if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return parsed.origin;
  return /^[a-z][a-z0-9+.-]*:$/.test(parsed.protocol) ? parsed.protocol : null;
}

/** The page CSP with `form-action` allowing this site and `extra` targets. */
export function providerCsp(extra: readonly string[] = []): string {
  // script-src is spelled out so that the library can add the hash of the one inline script it writes
  // (the auto-submitting form_post page); nothing else of ours runs inline.
  return [
    "default-src 'self'",
    "script-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    `form-action ${["'self'", ...extra].join(' ')}`,
  ].join('; ');
}

/**
 * The headers every Gatehouse response has (plugins/security-headers.ts), for the responses the
 * provider writes itself; set before the library writes, so its form_post page finds the CSP and adds
 * its script's hash. A page whose form ends on a client (form_post, the logout confirmation) lets
 * that client's registered, already-verified URI in form-action.
 */
export function providerHeaders(hsts: boolean) {
  return async function headers(ctx: KoaContextWithOIDC, next: Next): Promise<void> {
    ctx.set('x-content-type-options', 'nosniff');
    ctx.set('referrer-policy', 'strict-origin-when-cross-origin');
    ctx.set('x-frame-options', 'DENY');
    if (hsts) ctx.set('strict-transport-security', 'max-age=31536000');
    ctx.set('content-security-policy', providerCsp());
    await next();
    const route = ctx.oidc?.route;
    const target =
      route === 'authorization' || route === 'resume'
        ? ctx.oidc.redirectUriCheckPerformed && formTarget(ctx.oidc.params?.['redirect_uri'])
        : route === 'end_session'
          ? formTarget(ctx.oidc.params?.['post_logout_redirect_uri'])
          : null;
    if (target)
      ctx.set('content-security-policy', addFormTarget(ctx.response.get('content-security-policy'), target));
  };
}

function addFormTarget(csp: string, target: string): string {
  return csp.replace(/form-action ([^;]*)/, (_all, sources: string) => `form-action ${sources} ${target}`);
}

/**
 * RFC 6749 §5.2: a client that failed to authenticate gets 401 with `WWW-Authenticate: Basic`. The
 * library adds it only when the client had tried the Authorization header; docs/guides/oidc-provider.md
 * promises it for every invalid_client of the token, introspection and revocation endpoints.
 */
export function invalidClientChallenge(issuer: string) {
  return async function challenge(ctx: KoaContextWithOIDC, next: Next): Promise<void> {
    await next();
    const body = ctx.body as { error?: unknown } | undefined;
    if (ctx.status === 401 && body?.error === 'invalid_client' && !ctx.response.get('www-authenticate')) {
      ctx.set('www-authenticate', `Basic realm="${issuer}"`);
    }
  };
}

const PROVIDER_CSP = providerCsp();

/**
 * Sends `body` with the headers the library's JSON answers carry (no-store, our headers above, and
 * its CORS answer to a request without Origin, which no browser reads): for the answers given before
 * the library (userinfo-direct.ts, introspection-direct.ts), compared with its own by their tests.
 */
export function sendAsProvider(reply: FastifyReply, body: Record<string, unknown>): void {
  reply
    .header('vary', 'Origin')
    .header('access-control-allow-origin', '*')
    .header('access-control-expose-headers', 'WWW-Authenticate')
    .header('cache-control', 'no-store')
    .header('x-frame-options', 'DENY')
    .header('content-security-policy', PROVIDER_CSP)
    .type('application/json; charset=utf-8')
    .send(body);
}

/**
 * RFC 7662 §2.1: the introspection endpoint requires the caller to be authorized, and a public client
 * has nothing to prove it with (its client_id is no secret). The library lets one introspect its own
 * tokens with the client_id alone; Gatehouse answers it as any client that did not authenticate:
 * invalid_client, 401 (docs/guides/oidc-provider.md "Introspection"). Revocation stays open to public
 * clients, as RFC 7009 §2.1 has it.
 */
export function authenticatedIntrospection() {
  return async function introspectionNeedsAuthentication(ctx: KoaContextWithOIDC, next: Next): Promise<void> {
    await next();
    if (ctx.oidc?.route !== 'introspection' || ctx.oidc.client?.clientAuthMethod !== 'none') return;
    ctx.status = 401;
    ctx.body = {
      error: 'invalid_client',
      error_description: 'a public client cannot authenticate at the introspection endpoint',
    };
  };
}
