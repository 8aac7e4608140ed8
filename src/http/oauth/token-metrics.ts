import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Metrics } from '../../metrics/metrics.ts';

/**
 * gatehouse_oauth_tokens_total (docs/reference/metrics.md): every answer of the token endpoint, by
 * the grant type asked and `success` or the error code given — a device's polls included, so
 * `authorization_pending` and `slow_down` show how devices wait.
 */
export function tokenMetrics(metrics: Metrics) {
  return async function countTokens(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
    try {
      await next();
    } finally {
      if (ctx.oidc?.route === 'token') {
        const grantType = ctx.oidc.params?.['grant_type'];
        const error = (ctx.body as { error?: unknown } | undefined)?.error;
        metrics.oauthToken(
          typeof grantType === 'string' ? grantType : 'other',
          ctx.status === 200 ? 'success' : typeof error === 'string' ? error : 'other',
        );
      }
    }
  };
}
