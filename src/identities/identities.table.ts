import type { Generated, Insertable, Selectable } from 'kysely';

/**
 * A user's account at another provider (GitHub, an OpenID provider), linked for signing in
 * (docs/guides/login-providers.md). Nothing here is secret: no provider token is kept, only who the
 * provider says the person is.
 */
export interface IdentitiesTable {
  id: Generated<number>;
  user_id: number;
  /** The name in LOGIN_PROVIDERS. */
  provider: string;
  /**
   * The provider's stable id of the person: an OpenID `sub`, GitHub's numeric user id. Never the
   * e-mail or a login name, which the person (or a tenant admin) can change.
   */
  subject: string;
  /** The address the provider gave at the last sign-in (shown on the account page), if any. */
  email: string | null;
  /** 1 when the provider asserted that address verified. */
  email_verified: number;
  created_at: number;
  updated_at: number;
  last_used_at: number | null;
}

export type IdentityRow = Selectable<IdentitiesTable>;
export type NewIdentityRow = Insertable<IdentitiesTable>;
