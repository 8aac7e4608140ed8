import type { KoaContextWithOIDC } from 'oidc-provider';
import { isResourceServer } from '../../oauth/client-metadata.ts';

type Next = () => Promise<void>;

export interface StructuredTokens {
  introspectJwt(token: string, clientId: string, anyClient: boolean): Promise<Record<string, unknown>>;
  revokeJwt(token: string, clientId: string): Promise<void>;
}

/**
 * oidc-provider answers `unsupported_token_type` when a JWT is introspected or revoked: it stores no
 * JWT, so it cannot know whether one was revoked. Ours it can (their grant), and RFC 7662 / RFC 7009
 * promise an answer for any token: after the library has authenticated the client, our JWT access
 * tokens are answered here (oauth.service.ts introspectJwt, revokeJwt). Everything else is the
 * library's own answer.
 */
export function structuredTokens(tokens: StructuredTokens) {
  return async function jwtTokens(ctx: KoaContextWithOIDC, next: Next): Promise<void> {
    await next();
    const route = ctx.oidc?.route;
    if ((route !== 'introspection' && route !== 'revocation') || ctx.status !== 400) return;
    if ((ctx.body as { error?: unknown } | undefined)?.error !== 'unsupported_token_type') return;
    const client = ctx.oidc.client;
    const token = ctx.oidc.params?.['token'];
    if (client === undefined || typeof token !== 'string') return;
    ctx.status = 200;
    if (route === 'introspection') {
      ctx.body = await tokens.introspectJwt(token, client.clientId, isResourceServer(client));
    } else {
      await tokens.revokeJwt(token, client.clientId);
      // As the library answers a revocation: an empty body (the error's JSON type goes with it).
      ctx.remove('content-type');
      ctx.body = '';
    }
  };
}
