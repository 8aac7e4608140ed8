import type { Grant } from 'oidc-provider';
import { type AuditContext, recordAudit } from '../audit/audit.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { inTransaction } from '../db/in-transaction.ts';
import type { Db } from '../db/schema.ts';
import { findClientRow } from './clients.repository.ts';
import {
  consentsOfUser,
  deleteConsentRow,
  findConsentRow,
  insertConsentRow,
  touchConsent,
  updateConsentScope,
} from './consents.repository.ts';
import { queueClientLogouts } from './logout-notices.ts';
import { destroyModelsOfAccountAndClient } from './models.repository.ts';
import type { ScopeCatalogue } from './scopes.ts';

/** One client a user allowed, as the account page and the panel list it. */
export interface ConnectedApp {
  readonly clientId: string;
  readonly name: string;
  readonly scopes: readonly string[];
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly lastUsedAt: number | null;
}

export interface ConsentsDeps {
  readonly db: Db;
  readonly scopes: ScopeCatalogue;
  /** The resource of our access tokens (provider-config.ts): API scopes are granted for it. */
  readonly audience: string;
}

/**
 * What a user allowed each client (docs/guides/oidc-provider.md "Consent"): remembered per user and
 * client, as the set of scopes ever allowed. A later request within that set needs no consent screen; a
 * new scope asks again. The library's grants are per session (they end at logout); this record is what
 * lets a new session's grant be made without asking (grant-loader.ts).
 */
export function createConsents(deps: ConsentsDeps) {
  const { db, scopes } = deps;

  return {
    /** The scopes the user allowed the client, or null when they never did. */
    async remembered(userId: number, clientId: string): Promise<string[] | null> {
      const row = await findConsentRow(db, userId, clientId);
      return row === undefined ? null : split(row.scope);
    },

    /**
     * Remembers that the user allowed `allowed` (known scopes only) to the client, added to what they
     * allowed before; audited (and sent as a webhook) when the set grew. The unique index on user and
     * client decides between two first consents at once: the loser adds its scopes to the winner's row.
     */
    async remember(userId: number, clientId: string, allowed: readonly string[], audit: AuditContext) {
      const known = allowed.filter((scope) => scopes.all.has(scope));
      const write = () =>
        inTransaction(db, async (trx) => {
          const row = await findConsentRow(trx, userId, clientId);
          const before = row === undefined ? [] : split(row.scope);
          const after = [...new Set([...before, ...known])];
          if (row !== undefined && after.length === before.length) return;
          if (row === undefined) {
            await insertConsentRow(trx, {
              user_id: userId,
              client_id: clientId,
              scope: after.join(' '),
              now: audit.now,
            });
          } else {
            await updateConsentScope(trx, row.id, after.join(' '), audit.now);
          }
          await recordAudit(trx, 'oauth.consent.granted', audit, userId, {
            client_id: clientId,
            scope: after.join(' '),
            added: after.filter((scope) => !before.includes(scope)).join(' '),
          });
        });
      try {
        await write();
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        await write();
      }
    },

    /** An authorization went through with this consent (the account page's "last used"). */
    used: (userId: number, clientId: string, now: number) => touchConsent(db, userId, clientId, now),

    /**
     * Disconnect (docs/guides/oidc-provider.md "Connected apps"): the consent goes, and with it every
     * grant of this user and client and all they issued, in one transaction — refresh tokens stop
     * working and the JWT access tokens are refused from the next request on (their grant is gone), and
     * the app hears of it by back-channel logout. Audited as oauth.consent.revoked (also a webhook event). Null when the user had no such consent.
     */
    async disconnect(
      userId: number,
      clientId: string,
      audit: AuditContext,
    ): Promise<{ name: string } | null> {
      return inTransaction(db, async (trx) => {
        const client = await findClientRow(trx, clientId);
        if (client === undefined || !(await deleteConsentRow(trx, userId, clientId))) return null;
        await queueClientLogouts(trx, userId, clientId, audit.now);
        await destroyModelsOfAccountAndClient(trx, String(userId), clientId);
        await recordAudit(trx, 'oauth.consent.revoked', audit, userId, {
          client_id: clientId,
          name: client.name,
        });
        return { name: client.name };
      });
    },

    list: (userId: number): Promise<ConnectedApp[]> => connectedAppsOf(db, userId),
  };
}

export type Consents = ReturnType<typeof createConsents>;

/** The clients a user allowed, most recently changed first (the account page's and the panel's list). */
export async function connectedAppsOf(db: Db, userId: number): Promise<ConnectedApp[]> {
  return (await consentsOfUser(db, userId)).map((row) => ({
    clientId: row.client_id,
    name: row.name,
    scopes: split(row.scope),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastUsedAt: row.last_used_at,
  }));
}

/**
 * Puts `allowed` into one of the library's grants: every scope for the ID token and userinfo (OpenID
 * scopes, the `scopes` setting), and all but offline_access for the access token's resource, Gatehouse.
 * Scopes are only ever added: userinfo's direct answer (userinfo.ts) relies on it.
 */
export function grantScopes(
  grant: Grant,
  allowed: readonly string[],
  catalogue: ScopeCatalogue,
  audience: string,
) {
  const known = allowed.filter((scope) => catalogue.all.has(scope));
  if (known.length > 0) grant.addOIDCScope(known.join(' '));
  const forApi = known.filter((scope) => scope !== 'offline_access');
  if (forApi.length > 0) grant.addResourceScope(audience, forApi.join(' '));
}

function split(scope: string): string[] {
  return scope.split(' ').filter(Boolean);
}
