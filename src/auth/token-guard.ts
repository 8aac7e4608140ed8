import type { Db } from '../db/schema.ts';
import type { Clock } from '../lib/clock.ts';
import { type AccessTokenSettings, resolveAccessToken } from './access-tokens.ts';
import type { GuardDriver, Identity } from './guards.ts';
import { bearerFrom } from './token-format.ts';

/** The `token` driver: `Authorization: Bearer <id>|<secret>`. A token in the query string is ignored. */
export function tokenGuardDriver(db: Db, settings: AccessTokenSettings, clock: Clock): GuardDriver {
  return (name, _config, provider) => {
    const authenticate = async (request: Parameters<ReturnType<GuardDriver>['authenticate']>[0]) => {
      const plain = bearerFrom(request.header('authorization'));
      if (plain === null) return null;
      const token = await resolveAccessToken(db, settings, clock, plain);
      if (token === null) return null;
      const user = await provider.retrieveById(token.userId);
      return user === null ? null : ({ guard: name, user, token } satisfies Identity);
    };
    return {
      name,
      driver: 'token',
      authenticate,
      check: async (request) => (await authenticate(request)) !== null,
    };
  };
}
