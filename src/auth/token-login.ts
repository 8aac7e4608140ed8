import type { AuditContext } from '../audit/audit.ts';
import type { User } from '../users/user.ts';
import { type AccessTokenSettings, issueAccessToken } from './access-tokens.ts';
import type { UserProvider } from './guards.ts';
import { attemptLogin, type LoginDeps } from './login.ts';

export interface TokenLoginInput {
  readonly email: string;
  readonly password: string;
  /** Shown in token lists: which device or program holds the token. */
  readonly deviceName: string;
  readonly abilities: readonly string[];
  readonly expiresInSeconds: number | null;
}

export type TokenLoginResult =
  | { readonly status: 'ok'; readonly user: User; readonly plainText: string }
  | { readonly status: 'failed' }
  | { readonly status: 'throttled'; readonly retryAfterSeconds: number };

/**
 * POST /api/tokens (Sanctum's token issuing route): the API's own login (its throttle and audit
 * events), then a new token for the user. The plaintext exists only in this answer.
 */
export async function issueTokenWithPassword(
  deps: LoginDeps & { readonly tokens: AccessTokenSettings },
  provider: UserProvider,
  input: TokenLoginInput,
  audit: AuditContext,
): Promise<TokenLoginResult> {
  const login = await attemptLogin(deps, provider, 'api', input, audit);
  if (login.status !== 'ok') return login;
  const { plainText } = await issueAccessToken(
    deps.db,
    deps.tokens,
    {
      userId: login.user.id,
      name: input.deviceName,
      abilities: input.abilities,
      expiresInSeconds: input.expiresInSeconds,
    },
    { ...audit, actorId: login.user.id },
  );
  return { status: 'ok', user: login.user, plainText };
}
