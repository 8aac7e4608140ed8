import type { KoaContextWithOIDC } from 'oidc-provider';
import type { SessionAuthorizations } from '../../oauth/logout-notices.ts';
import { carriedRequest } from './provider-request.ts';

type Next = () => Promise<void>;

/**
 * RP-initiated logout's "Yes, sign me out" (docs/guides/oidc-provider.md "Logout"): once the library
 * has ended its session (revoked the grants that do not outlive a logout, destroyed the session, and
 * answered 303 to the registered post_logout_redirect_uri), the Gatehouse session of the browser ends
 * as at /logout, and every client the provider session signed in hears of it by back-channel logout.
 * "No" (no `logout` parameter) only signs the asking client out, as the library does, and keeps the
 * Gatehouse session.
 */
export function rpInitiatedLogout(
  queueNotices: (accountId: string, authorizations: SessionAuthorizations) => Promise<number>,
) {
  return async function endGatehouseSession(ctx: KoaContextWithOIDC, next: Next): Promise<void> {
    await next();
    if (ctx.oidc?.route !== 'end_session_confirm' || ctx.status !== 303 || !ctx.oidc.params?.['logout'])
      return;
    // The library's session object is kept in memory after it was destroyed: its sign-ins are what
    // the notices need.
    const session = ctx.oidc.session;
    if (session?.accountId) {
      await queueNotices(session.accountId, (session.authorizations ?? {}) as SessionAuthorizations);
    }
    await carriedRequest(ctx.req)?.sessionOf('web').logout();
  };
}
