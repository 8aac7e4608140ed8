import type { ProviderDriver, UserProvider } from '../auth/guards.ts';
import type { DatabaseHandle } from '../db/connection.ts';
import { CachedLookup } from '../db/fast-path/kept-lookup.ts';
import { toUser, type User } from './user.ts';
import { findUserById } from './users.repository.ts';

/**
 * The `database` provider over the users table. Disabled accounts are never returned, so every
 * guard built on it refuses them at once. `allow` narrows it further (the admin provider uses
 * canAccessPanel).
 */
export function databaseUserProvider(
  database: Pick<DatabaseHandle, 'db' | 'changes'>,
  allow: (user: User) => boolean = () => true,
): UserProvider {
  const accepts = (user: User) => user.disabledAt === null && allow(user);
  // Every authenticated request reads its user: kept until the database changes (a disable or a
  // withdrawn panel access is a commit, so it applies on the next request).
  const byId = new CachedLookup(database.changes, async (id: number) => {
    const row = await findUserById(database.db, id);
    return row === undefined ? null : Object.freeze(toUser(row));
  });
  return {
    async retrieveById(id) {
      const user = await byId.get(id);
      return user !== null && accepts(user) ? user : null;
    },
    accepts,
  };
}

export function databaseProviderDriver(
  database: Pick<DatabaseHandle, 'db' | 'changes'>,
  checks: Readonly<Record<string, (user: User) => boolean>>,
): ProviderDriver {
  return (config) => {
    const check = typeof config['allow'] === 'string' ? checks[config['allow']] : undefined;
    if (config['allow'] !== undefined && check === undefined) {
      throw new Error(`Unknown access check "${String(config['allow'])}" in auth provider config`);
    }
    return databaseUserProvider(database, check);
  };
}
