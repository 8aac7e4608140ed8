import type { Generated, Insertable, Selectable } from 'kysely';

/** One signing key of the provider (signing-keys.ts). */
export interface OauthSigningKeysTable {
  id: Generated<number>;
  kid: string;
  /** RS256 or ES256. */
  alg: string;
  /** The public JWK (JSON), as the JWKS publishes it. */
  public_jwk: string;
  /** The private JWK (JSON), sealed with APP_KEY (lib/sealing.ts). */
  private_jwk: string;
  created_at: number;
  /** When a newer key of the same algorithm took over signing; null = current. */
  retired_at: number | null;
}

export type SigningKeyRow = Selectable<OauthSigningKeysTable>;
export type NewSigningKeyRow = Insertable<OauthSigningKeysTable>;
