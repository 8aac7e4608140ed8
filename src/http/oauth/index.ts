import type { FastifyInstance } from 'fastify';
import type { KoaContextWithOIDC } from 'oidc-provider';
import * as library from 'oidc-provider';
import { OAUTH_ROUTES } from '../../oauth/provider-config.ts';
import { oauthCors } from '../plugins/cors.ts';
import { auditContext } from '../request-context.ts';
import { connectedAppRoutes } from './connected-apps.ts';
import { DEVICE_CODE_GRANT, devicePollInterval } from './device-polling.ts';
import { describedAuthorizationErrors, grantTypeNotAllowed } from './grant-errors.ts';
import { interactionRoutes } from './interaction-routes.ts';
import { introspectionDirect } from './introspection-direct.ts';
import { authenticatedIntrospection, invalidClientChallenge, providerHeaders } from './provider-headers.ts';
import { providerPages } from './provider-pages.ts';
import { carriedRequest } from './provider-request.ts';
import { providerRoutes } from './provider-routes.ts';
import { registrationInDiscovery, registrationRoutes } from './registration-routes.ts';
import { rpInitiatedLogout } from './rp-logout.ts';
import { followedSession, sessionSync } from './session-sync.ts';
import { structuredTokens } from './structured-tokens.ts';
import { tokenMetrics } from './token-metrics.ts';
import { userinfoDirect } from './userinfo-direct.ts';

/**
 * The OpenID Connect provider's HTTP half (docs/guides/oidc-provider.md): oidc-provider mounted at its
 * paths, with our pages, headers and hooks. Its domain half is src/oauth/.
 */
export async function oauthRoutes(app: FastifyInstance) {
  const { oauth, config } = app.services;
  const audit = (ctx: KoaContextWithOIDC) => {
    const request = carriedRequest(ctx.req);
    return request ? auditContext(request) : { now: app.services.clock.now() };
  };
  const { Provider } = library;
  const host = oauth.host({
    library,
    pages: providerPages,
    audit,
    sessionBinding: () => followedSession(Provider.ctx?.req),
    isDevicePoll: () =>
      Provider.ctx?.oidc?.route === 'token' && Provider.ctx.oidc.params?.['grant_type'] === DEVICE_CODE_GRANT,
    onRaceLost: async (row) => {
      const ctx = Provider.ctx;
      if (row.kind === 'RefreshToken' && ctx) {
        await oauth.refreshTokenReused({ accountId: row.account_id, clientId: row.client_id }, audit(ctx));
      }
    },
    onServerError: (ctx, error) =>
      (carriedRequest(ctx.req)?.log ?? app.log).error({ err: error }, 'oauth provider error'),
    middleware: [
      providerHeaders(new URL(config.appUrl).protocol === 'https:'),
      oauthCors(oauth.redirectOrigins),
      sessionSync(oauth.followSession, 'gatehouse_oidc_session'),
      invalidClientChallenge(config.oidc.issuer),
      authenticatedIntrospection(),
      structuredTokens(oauth),
      // Outside the answers' rewrites below, so it counts the error the client was given.
      tokenMetrics(app.services.metrics),
      grantTypeNotAllowed(),
      describedAuthorizationErrors(),
      devicePollInterval(),
      registrationInDiscovery(config.oidc.dynamicRegistration, config.oidc.issuer),
      rpInitiatedLogout(oauth.queueLogoutNotices),
      // An authorization that issued a code used the user's consent (the connected app's "last used").
      async (ctx, next) => {
        await next();
        const code = ctx.oidc?.entities.AuthorizationCode;
        if (code?.accountId && code.clientId && /^[1-9][0-9]{0,15}$/.test(code.accountId)) {
          await oauth.consents.used(Number(code.accountId), code.clientId, app.services.clock.now());
        }
      },
      // A rotated refresh token presented again: the library has revoked its grant (the RefreshToken
      // it found is marked consumed); the audit trail records it.
      async (ctx, next) => {
        await next();
        const token = ctx.oidc?.route === 'token' ? ctx.oidc.entities.RefreshToken : undefined;
        if (token?.consumed && ctx.status === 400) {
          await oauth.refreshTokenReused(
            { accountId: token.accountId ?? null, clientId: token.clientId ?? null },
            audit(ctx),
          );
        }
      },
    ],
  });
  // The first start creates the signing keys; a broken key set fails the start, not a request.
  await host.current();
  await app.register(
    providerRoutes(host, {
      [OAUTH_ROUTES.userinfo]: userinfoDirect(oauth.userinfo),
      [OAUTH_ROUTES.introspection]: introspectionDirect(oauth.introspection),
    }),
  );
  await app.register(interactionRoutes(host));
  await app.register(registrationRoutes);
  await app.register(connectedAppRoutes);
}
