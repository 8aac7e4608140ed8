import type {
  PublicKeyCredentialRequestOptionsJSON,
  verifyAuthenticationResponse,
} from '@simplewebauthn/server';
import { type AuditContext, recordAudit } from '../audit/audit.ts';
import type { UserProvider } from '../auth/guards/guards.ts';
import { recordLoginSucceeded } from '../auth/login/login.ts';
import { safeEqual, sha256Hex } from '../lib/crypto.ts';
import { loadWebAuthn } from '../lib/packages-on-demand.ts';
import { hasConfirmedTwoFactor } from '../two-factor/two-factor.repository.ts';
import type { User } from '../users/user.ts';
import { CHALLENGE_TTL_MS, issueChallenge, spendChallenge } from './challenges.ts';
import type { PasskeyDeps } from './passkey-deps.ts';
import { findPasskeyByCredential, recordPasskeyUse } from './passkeys.repository.ts';
import type { PasskeyRow } from './passkeys.table.ts';
import { authenticationResponse, claimedChallenge } from './responses.ts';

/**
 * GET /passkeys/login/options: an empty allowCredentials list, so the browser offers the discoverable
 * passkeys it holds for this site (the sign-in names no account first: nothing to enumerate), user
 * verification preferred; the challenge is bound to this browser's session.
 */
export async function loginOptions(
  deps: PasskeyDeps,
  sessionBinding: string,
  now: number,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const challenge = await issueChallenge(deps.db, { sessionBinding, purpose: 'login', userId: null }, now);
  const { generateAuthenticationOptions } = await loadWebAuthn();
  return generateAuthenticationOptions({
    rpID: deps.relyingParty.id,
    challenge: Buffer.from(challenge, 'base64url'),
    timeout: CHALLENGE_TTL_MS,
    userVerification: 'preferred',
    allowCredentials: [],
  });
}

export type PasskeyLoginResult =
  | {
      readonly status: 'ok';
      readonly user: User;
      /**
       * The authenticator did not verify the person (no PIN or biometric: possession only) and the user
       * has two-factor on: the passkey stands in for the password, and the second factor is still owed.
       */
      readonly twoFactorOwed: boolean;
      /**
       * The kind of key (`hwk` bound to one device, `swk` synced: its private key leaves the device,
       * RFC 8176) and whether the device verified the person (PIN or biometric): the OpenID provider's
       * `amr` (auth/login/login-method.ts).
       */
      readonly passkey: { readonly kind: 'hwk' | 'swk'; readonly userVerified: boolean };
    }
  | { readonly status: 'failed' };

/**
 * POST /passkeys/login: challenge (spent first: one try per challenge), then the passkey by its
 * credential id, the user handle it was made for, the user (the web provider must accept them: a
 * disabled account cannot sign in this way either), the signature over the client data with the
 * origin and RP id of APP_URL, and the signature counter. Every refusal looks the same to the client.
 */
export async function verifyPasskeyLogin(
  deps: PasskeyDeps,
  provider: UserProvider,
  credential: unknown,
  sessionBinding: string,
  audit: AuditContext,
): Promise<PasskeyLoginResult> {
  const response = authenticationResponse(credential);
  const challenge = response && claimedChallenge(response.response.clientDataJSON);
  if (!response || !challenge) return { status: 'failed' };
  const owner = { sessionBinding, purpose: 'login' as const, userId: null };
  const failed = async (reason: string, passkey?: PasskeyRow) => {
    await recordAudit(deps.db, 'passkey.login_failed', audit, passkey?.user_id ?? null, {
      reason,
      ...(passkey ? { passkey_id: passkey.id } : {}),
    });
    return { status: 'failed' } as const;
  };
  if (!(await spendChallenge(deps.db, challenge, owner, audit.now))) return failed('challenge');

  const passkey = await findPasskeyByCredential(deps.db, sha256Hex(response.id));
  if (passkey === undefined) return failed('unknown_credential');
  // Discoverable sign-in: the authenticator names the user it holds the key for, and it must be the
  // one the passkey was registered to (WebAuthn §7.2 step 6).
  const handle = response.response.userHandle;
  if (handle === undefined || !safeEqual(handle, passkey.user_handle)) return failed('user_handle', passkey);
  const user = await provider.retrieveById(passkey.user_id);
  if (user === null || !provider.accepts(user)) return failed('user', passkey);

  const storedCounter = Number(passkey.counter);
  const { verifyAuthenticationResponse: verify } = await loadWebAuthn();
  let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    verified = await verify({
      response,
      expectedChallenge: challenge,
      expectedOrigin: deps.relyingParty.origin,
      expectedRPID: deps.relyingParty.id,
      // The counter is compared below, after the signature: only a correctly signed response with a
      // counter that went backwards is evidence of a cloned authenticator.
      credential: {
        id: passkey.credential_id,
        publicKey: Buffer.from(passkey.public_key, 'base64url'),
        counter: 0,
      },
      requireUserVerification: false,
    });
  } catch {
    return failed('response', passkey);
  }
  if (!verified.verified) return failed('signature', passkey);

  const { newCounter, userVerified, credentialBackedUp } = verified.authenticationInfo;
  // Authenticators that count never repeat or lower the counter (WebAuthn §6.1.1); those that do not
  // count always send 0. A lower or equal counter from one that counts means two copies of the key.
  if ((storedCounter > 0 || newCounter > 0) && newCounter <= storedCounter) {
    await recordAudit(deps.db, 'passkey.clone_suspected', audit, passkey.user_id, {
      passkey_id: passkey.id,
      stored_counter: storedCounter,
      presented_counter: newCounter,
    });
    return { status: 'failed' };
  }

  const twoFactorOwed = !userVerified && (await hasConfirmedTwoFactor(deps.db, user.id));
  const signedIn = await deps.db.transaction().execute(async (trx) => {
    if (!(await recordPasskeyUse(trx, passkey.id, storedCounter, newCounter, audit.now))) return false;
    const details = { method: 'passkey', passkey_id: passkey.id };
    if (twoFactorOwed)
      await recordAudit(trx, 'login.two_factor_challenged', { ...audit, actorId: user.id }, user.id, {
        channel: 'web',
        ...details,
      });
    else await recordLoginSucceeded(trx, 'web', user.id, audit, details);
    return true;
  });
  if (!signedIn) return failed('counter_race', passkey);
  const key = { kind: credentialBackedUp ? ('swk' as const) : ('hwk' as const), userVerified };
  return { status: 'ok', user, twoFactorOwed, passkey: key };
}
