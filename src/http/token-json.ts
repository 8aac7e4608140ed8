import { type AccessToken, tokenFacts } from '../auth/tokens/access-tokens.ts';

/** A token as GET /api/tokens and the account's token list give it (never its secret): ISO 8601 times. */
export function tokenJson(token: AccessToken) {
  return tokenFacts(token, (ms) => (ms === null ? null : new Date(ms).toISOString()));
}
