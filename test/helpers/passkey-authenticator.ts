import { createHash, createSign, generateKeyPairSync, type KeyObject, randomBytes } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { isoCBOR } from '@simplewebauthn/server/helpers';

/**
 * A software authenticator for HTTP tests: ES256 (P-256) key pairs from node:crypto, `none`
 * attestation, discoverable credentials, the WebAuthn byte formats built by hand (authenticator data,
 * client data) and CBOR through the encoder @simplewebauthn/server already ships. It answers the JSON
 * options of the server as a browser's navigator.credentials would, and lets a test bend any part of a
 * response (origin, RP id, challenge, counter, signature) to check that the server refuses it.
 */

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

export interface StoredCredential {
  readonly id: Buffer;
  readonly privateKey: KeyObject;
  readonly cosePublicKey: Uint8Array;
  readonly rpId: string;
  readonly userHandle: string;
  counter: number;
}

export interface CeremonyOverrides {
  origin?: string;
  rpId?: string;
  challenge?: string;
  type?: string;
  /** User verification flag (default true: a PIN or biometric was checked). */
  userVerified?: boolean;
}

export interface AssertionOverrides extends CeremonyOverrides {
  /** The counter to report instead of the next one (a rollback, a replayed counter). */
  counter?: number;
  /** Flip a bit of the signature. */
  badSignature?: boolean;
  /** Present another user handle (or none). */
  userHandle?: string | null;
  /** Sign with another key than the registered one. */
  otherKey?: boolean;
}

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

function coseKey(publicKey: KeyObject): Uint8Array {
  const jwk = publicKey.export({ format: 'jwk' });
  const map = new Map<number, number | Uint8Array>([
    [1, 2], // kty: EC2
    [3, -7], // alg: ES256
    [-1, 1], // crv: P-256
    [-2, new Uint8Array(Buffer.from(jwk.x!, 'base64url'))],
    [-3, new Uint8Array(Buffer.from(jwk.y!, 'base64url'))],
  ]);
  return isoCBOR.encode(map);
}

function counterBytes(counter: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(counter);
  return bytes;
}

export class SoftwareAuthenticator {
  readonly credentials: StoredCredential[] = [];

  /**
   * `origin`: the page the "browser" is on; `counts`: whether the signature counter advances (many
   * platform passkeys always send 0).
   */
  constructor(
    readonly origin: string,
    readonly counts = true,
  ) {}

  /** navigator.credentials.create(): a new ES256 credential for the options' RP and user. */
  create(
    options: PublicKeyCredentialCreationOptionsJSON,
    overrides: CeremonyOverrides = {},
  ): RegistrationResponseJSON {
    const rpId = overrides.rpId ?? options.rp.id ?? new URL(this.origin).hostname;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const id = randomBytes(32);
    const cosePublicKey = coseKey(publicKey);
    const credential: StoredCredential = {
      id,
      privateKey,
      cosePublicKey,
      rpId,
      userHandle: options.user.id,
      counter: 0,
    };
    const length = Buffer.alloc(2);
    length.writeUInt16BE(id.length);
    const flags = FLAG_UP | FLAG_AT | (overrides.userVerified === false ? 0 : FLAG_UV);
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([flags]),
      counterBytes(0),
      Buffer.alloc(16), // AAGUID: none
      length,
      id,
      Buffer.from(cosePublicKey),
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Uint8Array | Map<string, string>>([
        ['fmt', 'none'],
        ['attStmt', new Map<string, string>()],
        ['authData', new Uint8Array(authData)],
      ]),
    );
    this.credentials.push(credential);
    return {
      id: b64url(id),
      rawId: b64url(id),
      type: 'public-key',
      response: {
        clientDataJSON: this.clientData('webauthn.create', options.challenge, overrides),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    };
  }

  /** navigator.credentials.get() with an empty allow list: the (latest) credential for the RP signs. */
  get(
    options: PublicKeyCredentialRequestOptionsJSON,
    overrides: AssertionOverrides = {},
    credential = this.credentials.at(-1),
  ): AuthenticationResponseJSON {
    if (credential === undefined) throw new Error('this authenticator holds no credential');
    const rpId = overrides.rpId ?? options.rpId ?? credential.rpId;
    if (this.counts) credential.counter++;
    const counter = overrides.counter ?? (this.counts ? credential.counter : 0);
    const flags = FLAG_UP | (overrides.userVerified === false ? 0 : FLAG_UV);
    const authData = Buffer.concat([sha256(rpId), Buffer.from([flags]), counterBytes(counter)]);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, overrides);
    const signer = createSign('SHA256');
    signer.update(Buffer.concat([authData, sha256(Buffer.from(clientDataJSON, 'base64url'))]));
    const key = overrides.otherKey
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey
      : credential.privateKey;
    const signature = signer.sign(key); // DER, as WebAuthn's ES256 signatures are
    if (overrides.badSignature) signature[signature.length - 1]! ^= 0x01;
    const userHandle = overrides.userHandle === undefined ? credential.userHandle : overrides.userHandle;
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key',
      response: {
        clientDataJSON,
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        ...(userHandle === null ? {} : { userHandle }),
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    };
  }

  private clientData(type: string, challenge: string, overrides: CeremonyOverrides): string {
    return b64url(
      JSON.stringify({
        type: overrides.type ?? type,
        challenge: overrides.challenge ?? challenge,
        origin: overrides.origin ?? this.origin,
        crossOrigin: false,
      }),
    );
  }
}
