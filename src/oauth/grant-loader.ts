import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { AuditContext } from '../audit/audit.ts';
import { type Consents, grantScopes } from './consents.ts';
import type { ScopeCatalogue } from './scopes.ts';

export interface GrantLoaderDeps {
  readonly consents: Consents;
  readonly scopes: ScopeCatalogue;
  readonly audience: string;
  /** Who is acting (the request behind the provider's context), for the audit trail. */
  readonly audit: (ctx: KoaContextWithOIDC) => AuditContext;
}

/**
 * oidc-provider's `loadExistingGrant`: the grant this session already holds for the client (the
 * library's own rule); else, for a user who allowed the client before, a new grant with what they
 * allowed — so a consent is asked once per user and client, not once per session, and a new scope
 * still asks (the library compares the request with the grant). A trusted (first-party) client is
 * allowed what it asks for without a screen, and remembered like any other: it shows among the user's
 * connected apps, where it can be revoked.
 */
export function grantLoader(deps: GrantLoaderDeps): NonNullable<Configuration['loadExistingGrant']> {
  return async (ctx) => {
    const client = ctx.oidc.client!;
    const { provider, session } = ctx.oidc;
    const grantId = ctx.oidc.result?.consent?.grantId ?? session?.grantIdFor(client.clientId);
    if (grantId) {
      const grant = await provider.Grant.find(grantId);
      if (grant) return grant;
    }
    const accountId = session?.accountId;
    if (!accountId || !/^[1-9][0-9]{0,15}$/.test(accountId)) return undefined;
    const userId = Number(accountId);
    const requested = String(ctx.oidc.params?.['scope'] ?? '')
      .split(' ')
      .filter(Boolean);
    let allowed = await deps.consents.remembered(userId, client.clientId);
    if (client['gatehouse_trusted'] === true) {
      await deps.consents.remember(userId, client.clientId, requested, deps.audit(ctx));
      allowed = [...new Set([...(allowed ?? []), ...requested])];
    }
    if (allowed === null) return undefined;
    const grant = new provider.Grant({ accountId, clientId: client.clientId });
    grantScopes(grant, allowed, deps.scopes, deps.audience);
    await grant.save();
    return grant;
  };
}
