import type {
  PublicKeyCredentialCreationOptionsJSON,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { type AuditContext, recordAudit } from '../audit/audit.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { sha256Hex } from '../lib/crypto.ts';
import { loadWebAuthn } from '../lib/packages-on-demand.ts';
import type { User } from '../users/user.ts';
import { CHALLENGE_TTL_MS, issueChallenge, spendChallenge } from './challenges.ts';
import { queuePasskeyNotice } from './mails.ts';
import type { PasskeyDeps } from './passkey-deps.ts';
import { credentialsOf, insertPasskey } from './passkeys.repository.ts';
import { userHandleFor } from './relying-party.ts';
import { claimedChallenge, registrationResponse } from './responses.ts';

type Owner = Pick<User, 'id' | 'email' | 'name' | 'locale' | 'emailVerifiedAt'>;

/**
 * GET /user/passkeys/options: what navigator.credentials.create() needs (WebAuthn Level 3 JSON). A
 * discoverable credential is required (the sign-in asks for no e-mail, so the authenticator must know
 * whose key it is); user verification is preferred; the user's passkeys are excluded, so one
 * authenticator is not registered twice. No attestation is asked for: we trust no vendor list, and a
 * certificate chain would only identify the device model.
 */
export async function registrationOptions(
  deps: PasskeyDeps,
  user: Pick<User, 'id' | 'email' | 'name'>,
  sessionBinding: string,
  now: number,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await credentialsOf(deps.db, user.id);
  const challenge = await issueChallenge(
    deps.db,
    { sessionBinding, purpose: 'register', userId: user.id },
    now,
  );
  const { generateRegistrationOptions } = await loadWebAuthn();
  return generateRegistrationOptions({
    rpName: deps.relyingParty.name,
    rpID: deps.relyingParty.id,
    userName: user.email,
    userDisplayName: user.name,
    userID: Buffer.from(userHandleFor(deps.appKey, user.id), 'base64url'),
    challenge: Buffer.from(challenge, 'base64url'),
    timeout: CHALLENGE_TTL_MS,
    attestationType: 'none',
    excludeCredentials: existing.map((row) => ({
      id: row.credential_id,
      transports: JSON.parse(row.transports) as string[],
    })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  });
}

export type RegistrationResult =
  | {
      readonly status: 'created';
      readonly passkey: { readonly id: number; readonly name: string; readonly createdAt: number };
    }
  | { readonly status: 'invalid' };

/**
 * POST /user/passkeys: the browser's response, checked against the challenge issued to this session
 * and user (spent here), the origin and RP id of APP_URL; attestation "none" is accepted (and any
 * format the library can verify). A response already registered — by anyone — is refused too.
 */
export async function registerPasskey(
  deps: PasskeyDeps,
  user: Owner,
  input: { name: string; credential: unknown },
  sessionBinding: string,
  audit: AuditContext,
): Promise<RegistrationResult> {
  const response = registrationResponse(input.credential);
  const challenge = response && claimedChallenge(response.response.clientDataJSON);
  if (!response || !challenge) return { status: 'invalid' };
  const owner = { sessionBinding, purpose: 'register' as const, userId: user.id };
  if (!(await spendChallenge(deps.db, challenge, owner, audit.now))) return { status: 'invalid' };

  const { verifyRegistrationResponse: verify } = await loadWebAuthn();
  let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verified = await verify({
      response,
      expectedChallenge: challenge,
      expectedOrigin: deps.relyingParty.origin,
      expectedRPID: deps.relyingParty.id,
      requireUserVerification: false,
    });
  } catch {
    // The library throws for every malformed or mismatching part (origin, RP id, type, flags, format).
    return { status: 'invalid' };
  }
  if (!verified.verified) return { status: 'invalid' };
  const { credential } = verified.registrationInfo;

  try {
    const id = await deps.db.transaction().execute(async (trx) => {
      const passkeyId = await insertPasskey(trx, {
        user_id: user.id,
        credential_hash: sha256Hex(credential.id),
        credential_id: credential.id,
        public_key: Buffer.from(credential.publicKey).toString('base64url'),
        counter: credential.counter,
        transports: JSON.stringify(credential.transports ?? response.response.transports ?? []),
        user_handle: userHandleFor(deps.appKey, user.id),
        name: input.name,
        created_at: audit.now,
        updated_at: audit.now,
        last_used_at: null,
      });
      await recordAudit(trx, 'passkey.created', audit, user.id, { passkey_id: passkeyId, name: input.name });
      await queuePasskeyNotice(trx, deps.mailing, user, {
        event: 'added',
        passkeyName: input.name,
        at: audit.now,
      });
      return passkeyId;
    });
    deps.mailing.queue.wake();
    return { status: 'created', passkey: { id, name: input.name, createdAt: audit.now } };
  } catch (error) {
    // The unique credential_hash is the arbiter: a credential already stored (a replayed response
    // racing its first use, or another account's) is refused, and the transaction left nothing behind.
    if (isUniqueViolation(error)) return { status: 'invalid' };
    throw error;
  }
}
