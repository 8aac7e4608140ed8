import type { FindUser } from '../users/user-provider.ts';
import type { VerifyAccessToken } from './access-tokens.ts';
import { type ClaimSource, claimsByScope, userClaims } from './claims.ts';
import type { FindClient } from './oauth.service.ts';

export interface UserinfoDeps {
  readonly verify: VerifyAccessToken;
  readonly findClient: FindClient;
  readonly findUser: FindUser;
  readonly claimSources: readonly ClaimSource[];
}

/**
 * The userinfo answer for a bearer JWT access token of ours, computed the way oidc-provider computes
 * it (its actions/userinfo.js: the token's OIDC scopes, each scope's claims from the `claims`
 * setting, picked from the account's claims) — or null whenever the library must answer instead:
 * an invalid, revoked or expired token, a client's own token, one without `openid`, a client or
 * user that is gone or disabled. The library then answers its own error (401 invalid_token, 403
 * insufficient_scope), so every refusal keeps one author.
 *
 * Why not always the library: its answer walks a Koa context, the grant, client and account models
 * and a claims mask, about six times what this costs (docs/contributing/benchmarks.md "userinfo").
 * What this checks is what the library checks: the signature and claims (cached per token like the
 * API's check), the grant alive and bound to the token's client and user, the client, the account.
 * test/http/oauth-userinfo-direct.test.ts compares both answers for every scope combination.
 */
export function userinfoReader(deps: UserinfoDeps) {
  const claimsOfScope = claimsByScope();
  return async (token: string): Promise<Record<string, unknown> | null> => {
    const access = await deps.verify(token);
    if (access === null || access.userId === null || !access.scopes.includes('openid')) return null;
    if ((await deps.findClient(access.clientId)) === null) return null;
    const user = await deps.findUser(access.userId);
    if (user === null || user.disabledAt !== null) return null;
    const available = await userClaims(deps.claimSources, user, access.scopes.join(' '));
    const answer: Record<string, unknown> = {};
    for (const scope of access.scopes) {
      for (const claim of claimsOfScope[scope] ?? []) {
        if (Object.hasOwn(available, claim)) answer[claim] = available[claim];
      }
    }
    return answer;
  };
}

export type ReadUserinfo = ReturnType<typeof userinfoReader>;
