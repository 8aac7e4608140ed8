import type { ProviderDriver, UserProvider } from '../auth/guards.ts';
import type { Db } from '../db/schema.ts';
import { toUser, type User } from './user.ts';
import { findUserById } from './users.repository.ts';

/**
 * The `database` provider over the users table. Disabled accounts are never returned, so every
 * guard built on it refuses them at once. `allow` narrows it further (the admin provider uses
 * canAccessPanel).
 */
export function databaseUserProvider(db: Db, allow: (user: User) => boolean = () => true): UserProvider {
  const accepts = (user: User) => user.disabledAt === null && allow(user);
  return {
    async retrieveById(id) {
      const row = await findUserById(db, id);
      if (row === undefined) return null;
      const user = toUser(row);
      return accepts(user) ? user : null;
    },
    accepts,
  };
}

export function databaseProviderDriver(
  db: Db,
  checks: Readonly<Record<string, (user: User) => boolean>>,
): ProviderDriver {
  return (config) => {
    const check = typeof config['allow'] === 'string' ? checks[config['allow']] : undefined;
    if (config['allow'] !== undefined && check === undefined) {
      throw new Error(`Unknown access check "${String(config['allow'])}" in auth provider config`);
    }
    return databaseUserProvider(db, check);
  };
}
