import type { DatabaseHandle } from '../db/connection.ts';
import type { Clock } from '../lib/clock.ts';
import { type AccessTokenSettings, accessTokenResolver } from './access-tokens.ts';
import type { GuardDriver, Identity } from './guards.ts';
import { bearerFrom } from './token-format.ts';

/** The `token` driver: `Authorization: Bearer <id>|<secret>`. A token in the query string is ignored. */
export function tokenGuardDriver(
  database: Pick<DatabaseHandle, 'db' | 'changes'>,
  settings: AccessTokenSettings,
  clock: Clock,
): GuardDriver {
  // One resolver (and so one set of kept token rows) for every token guard of the app.
  const resolveAccessToken = accessTokenResolver(database, settings, clock);
  return (name, _config, provider) => {
    const authenticate = async (request: Parameters<ReturnType<GuardDriver>['authenticate']>[0]) => {
      const plain = bearerFrom(request.header('authorization'));
      if (plain === null) return null;
      const token = await resolveAccessToken(plain);
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
