import { sha256Matches } from '../lib/crypto.ts';
import { looksLikeJwt } from './access-tokens.ts';
import { isResourceServerClient } from './client-metadata.ts';
import type { FindClient } from './oauth.service.ts';

export interface IntrospectionDeps {
  readonly findClient: FindClient;
  /** RFC 7662 for one of our JWT access tokens (oauth.service.ts introspectJwt). */
  readonly introspectJwt: (
    token: string,
    clientId: string,
    anyClient: boolean,
  ) => Promise<Record<string, unknown>>;
}

/** A client's id and secret as client_secret_basic carries them, already decoded. */
export interface ClientCredentials {
  readonly clientId: string;
  readonly secret: string;
}

/**
 * Introspection of a JWT access token of ours by a confidential client that authenticated with the
 * right secret — the answer the library gives through http/oauth/structured-tokens.ts — or null
 * whenever the library must answer: an unknown or public client, a wrong secret (the library answers
 * invalid_client, with its challenge, and counts it), a token that is not a JWT (refresh tokens are
 * the library's). The secret is compared as the library compares it (provider-host.ts
 * compareClientSecret): its SHA-256, in constant time.
 *
 * Why not always the library: a resource server introspects on every request it serves, and the
 * library's pipeline (a Koa context, body parsing, client authentication through its models) costs
 * several times what this does (docs/contributing/benchmarks.md "introspection").
 * test/http/oauth-introspection.test.ts compares both answers.
 */
export function introspectionReader(deps: IntrospectionDeps) {
  return async (credentials: ClientCredentials, token: string): Promise<Record<string, unknown> | null> => {
    if (!looksLikeJwt(token)) return null;
    const client = await deps.findClient(credentials.clientId);
    if (client === null || client.secretHash === null) return null;
    if (!sha256Matches(credentials.secret, client.secretHash)) return null;
    return deps.introspectJwt(token, client.clientId, isResourceServerClient(client));
  };
}

export type ReadIntrospection = ReturnType<typeof introspectionReader>;
