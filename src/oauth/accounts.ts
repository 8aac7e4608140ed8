import type { FindAccount } from 'oidc-provider';
import type { FindUser } from '../users/user-provider.ts';
import { type ClaimSource, userClaims } from './claims.ts';

/**
 * oidc-provider's accounts are Gatehouse's users: `sub` is the user's id as a string. A disabled or
 * deleted user is no account, so codes, refresh tokens and userinfo are refused for them at once.
 */
export function accountFinder(findUser: FindUser, sources: readonly ClaimSource[]): FindAccount {
  return async (_ctx, sub) => {
    if (!/^[1-9][0-9]{0,15}$/.test(sub)) return undefined;
    const user = await findUser(Number(sub));
    if (user === null || user.disabledAt !== null) return undefined;
    return { accountId: sub, claims: (_use, scope) => userClaims(sources, user, scope) as never };
  };
}
