import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';

/**
 * What a browser sends back from a ceremony, checked for shape before any of it is believed or handed
 * to the WebAuthn library: the known fields only, each a base64url string of a sane length. Anything
 * else (wrong types, missing parts, megabytes of text) is "no response" — the caller answers it like a
 * response that failed verification, so a client learns nothing from the difference.
 */

const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** A credential id is at most 1,023 bytes (WebAuthn §5.1): 1,364 base64url characters. */
const MAX_ID = 1364;
/** Attestation objects with certificate chains run to a few KiB; 64 KiB leaves room and bounds work. */
const MAX_BLOB = 65_536;
const MAX_CLIENT_DATA = 8192;
const MAX_TRANSPORTS = 8;

/** The `credential` field: the JSON object itself, or (from an HTML form) its JSON text. */
export function credentialObject(raw: unknown): Record<string, unknown> | null {
  let value = raw;
  if (typeof raw === 'string') {
    if (raw.length > MAX_BLOB * 2) return null;
    try {
      value = JSON.parse(raw);
    } catch {
      return null;
    }
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

function b64(value: unknown, max: number): string | null {
  return typeof value === 'string' && value.length <= max && BASE64URL.test(value) ? value : null;
}

/** id, rawId (the same base64url text) and type, common to both kinds of response. */
function identity(raw: Record<string, unknown>): { id: string; response: Record<string, unknown> } | null {
  const id = b64(raw['id'], MAX_ID);
  const response = raw['response'];
  if (id === null || raw['rawId'] !== id || raw['type'] !== 'public-key') return null;
  if (response === null || typeof response !== 'object' || Array.isArray(response)) return null;
  return { id, response: response as Record<string, unknown> };
}

function transportsOf(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value
    .filter((t): t is string => typeof t === 'string' && /^[a-z-]{1,32}$/.test(t))
    .slice(0, MAX_TRANSPORTS);
}

export function registrationResponse(raw: unknown): RegistrationResponseJSON | null {
  const object = credentialObject(raw);
  const found = object && identity(object);
  if (!found) return null;
  const clientDataJSON = b64(found.response['clientDataJSON'], MAX_CLIENT_DATA);
  const attestationObject = b64(found.response['attestationObject'], MAX_BLOB);
  if (clientDataJSON === null || attestationObject === null) return null;
  const transports = transportsOf(found.response['transports']);
  return {
    id: found.id,
    rawId: found.id,
    type: 'public-key',
    response: { clientDataJSON, attestationObject, ...(transports ? { transports } : {}) },
    clientExtensionResults: {},
  };
}

export function authenticationResponse(raw: unknown): AuthenticationResponseJSON | null {
  const object = credentialObject(raw);
  const found = object && identity(object);
  if (!found) return null;
  const clientDataJSON = b64(found.response['clientDataJSON'], MAX_CLIENT_DATA);
  const authenticatorData = b64(found.response['authenticatorData'], MAX_BLOB);
  const signature = b64(found.response['signature'], 1024);
  const userHandle = found.response['userHandle'];
  if (clientDataJSON === null || authenticatorData === null || signature === null) return null;
  if (userHandle !== undefined && userHandle !== null && b64(userHandle, 128) === null) return null;
  return {
    id: found.id,
    rawId: found.id,
    type: 'public-key',
    response: {
      clientDataJSON,
      authenticatorData,
      signature,
      ...(typeof userHandle === 'string' ? { userHandle } : {}),
    },
    clientExtensionResults: {},
  };
}

/** The challenge the client data says it answers (base64url), or null when it cannot be read. */
export function claimedChallenge(clientDataJSON: string): string | null {
  try {
    const data: unknown = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8'));
    const challenge = (data as Record<string, unknown> | null)?.['challenge'];
    return typeof challenge === 'string' && challenge.length <= 128 && BASE64URL.test(challenge)
      ? challenge
      : null;
  } catch {
    return null;
  }
}
