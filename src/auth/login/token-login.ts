import type { AuditContext } from '../../audit/audit.ts';
import { inTransaction } from '../../db/in-transaction.ts';
import { type ChallengeDeps, passChallenge } from '../../two-factor/challenge.ts';
import type { Proof } from '../../two-factor/two-factor.ts';
import type { User } from '../../users/user.ts';
import type { UserProvider } from '../guards/guards.ts';
import { type AccessTokenSettings, issueAccessToken } from '../tokens/access-tokens.ts';
import { attemptLogin, type LoginDeps, recordLoginSucceeded } from './login.ts';

export interface TokenLoginInput {
  readonly email: string;
  readonly password: string;
  /** Shown in token lists: which device or program holds the token. */
  readonly deviceName: string;
  readonly abilities: readonly string[];
  readonly expiresInSeconds: number | null;
  /** The second factor, for a user with two-factor on (docs/guides/two-factor.md). */
  readonly proof?: Proof;
}

export type TokenLoginResult =
  | { readonly status: 'ok'; readonly user: User; readonly plainText: string }
  | { readonly status: 'failed' }
  | { readonly status: 'throttled'; readonly retryAfterSeconds: number }
  /** Right password, two-factor on, no code sent: the client must ask for one. */
  | { readonly status: 'two_factor_required' }
  | { readonly status: 'two_factor_invalid'; readonly field: 'code' | 'recovery_code' };

/**
 * POST /api/tokens (Sanctum's token issuing route): the API's own login (its throttle and audit
 * events), the second factor when the user has one (its own throttle: challenge.ts), then a new token
 * for the user. The plaintext exists only in this answer.
 */
export async function issueTokenWithPassword(
  deps: LoginDeps & { readonly tokens: AccessTokenSettings; readonly challenge: ChallengeDeps },
  provider: UserProvider,
  input: TokenLoginInput,
  audit: AuditContext,
): Promise<TokenLoginResult> {
  const login = await attemptLogin(deps, provider, 'api', input, audit, { callerRecordsSuccess: true });
  if (login.status !== 'ok') return login;
  if (login.twoFactor) {
    // Only after the right password: without it, nobody learns whether an account has two-factor.
    if (input.proof === undefined) return { status: 'two_factor_required' };
    const challenge = await passChallenge(
      deps.challenge,
      login.user,
      input.proof,
      { channel: 'api', pendingId: null },
      audit,
    );
    if (challenge.status === 'throttled') return challenge;
    if (challenge.status === 'invalid')
      return { status: 'two_factor_invalid', field: 'code' in input.proof ? 'code' : 'recovery_code' };
  }
  // The completed login (its audit row, the reset token deleted) and the token commit together: a
  // receiver of the events hears of both or neither, and the login writes to the database once.
  const { plainText } = await inTransaction(deps.db, async (trx) => {
    await recordLoginSucceeded(trx, 'api', login.user.id, audit, login.twoFactor ? { two_factor: true } : {});
    return issueAccessToken(
      trx,
      deps.tokens,
      {
        userId: login.user.id,
        name: input.deviceName,
        abilities: input.abilities,
        expiresInSeconds: input.expiresInSeconds,
      },
      { ...audit, actorId: login.user.id },
    );
  });
  return { status: 'ok', user: login.user, plainText };
}
