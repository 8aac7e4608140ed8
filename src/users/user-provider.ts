import type { ProviderDriver, UserProvider } from '../auth/guards/guards.ts';
import type { Db } from '../db/schema.ts';
import { toUser, type User } from './user.ts';
import { findUserById } from './users.repository.ts';

/** A user by id, null when there is none. services.ts wraps it in the auth cache. */
export type FindUser = (id: number) => Promise<User | null>;

/** The plain lookup behind FindUser: one row by primary key. */
export function userFinder(db: Db): FindUser {
  return async (id) => {
    const row = await findUserById(db, id);
    return row === undefined ? null : toUser(row);
  };
}

/**
 * The `database` provider over the users table. Disabled accounts are never returned, so every
 * guard built on it refuses them at once. `allow` narrows it further (the admin provider uses
 * canAccessPanel).
 */
export function databaseUserProvider(
  findUser: FindUser,
  allow: (user: User) => boolean = () => true,
): UserProvider {
  const accepts = (user: User) => user.disabledAt === null && allow(user);
  return {
    async retrieveById(id, loaded) {
      const user = loaded === undefined ? await findUser(id) : loaded;
      return user !== null && accepts(user) ? user : null;
    },
    accepts,
  };
}

export function databaseProviderDriver(
  findUser: FindUser,
  checks: Readonly<Record<string, (user: User) => boolean>>,
): ProviderDriver {
  return (config) => {
    const check = config.allow === undefined ? undefined : checks[config.allow];
    if (config.allow !== undefined && check === undefined) {
      throw new Error(`Unknown access check "${String(config.allow)}" in auth provider config`);
    }
    return databaseUserProvider(findUser, check);
  };
}
