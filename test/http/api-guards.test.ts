import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { authConfig } from '../../src/auth/auth.config.ts';
import {
  type AuthConfig,
  AuthConfigError,
  createGuards,
  type GuardDriver,
  type ProviderDriver,
  type UserProvider,
} from '../../src/auth/guards/guards.ts';
import { loadConfig } from '../../src/config.ts';
import type { Db } from '../../src/db/schema.ts';
import { safeEqual } from '../../src/lib/crypto.ts';
import { toUser, type User } from '../../src/users/user.ts';
import { findUserById } from '../../src/users/users.repository.ts';
import { assertJsonError, bearer } from '../helpers/api.ts';
import { describeApp, TEST_APP_KEY } from '../helpers/app.ts';

/**
 * "Additional guards are added in the authentication configuration together with a matching user
 * provider." These tests add guards through buildApp options only — config entries and drivers —
 * and never touch the service's code.
 */

const defaults = authConfig(
  loadConfig(
    { APP_KEY: TEST_APP_KEY, DATABASE_URL: 'sqlite::memory:', STORAGE_PATH: '/nonexistent' },
    { readDotEnv: false },
  ),
);

// --- A guard with its own driver and provider: machine clients holding a static key. -----------------

interface Robot {
  id: number;
  name: string;
  key: string;
  active: boolean;
}

/** A provider over a roster held in the provider's own config entry (no users table involved). */
interface RosterProvider extends UserProvider {
  keyMatches(id: number, key: string): boolean;
}

const rosterDriver: ProviderDriver = (config) => {
  const robots = config['robots'] as Robot[];
  const asUser = (robot: Robot): User => ({
    id: robot.id,
    name: robot.name,
    email: `robot-${robot.id}@robots.invalid`,
    emailVerifiedAt: null,
    locale: 'en',
    panelAccess: false,
    disabledAt: robot.active ? null : 0,
    createdAt: 0,
    updatedAt: 0,
  });
  const provider: RosterProvider = {
    async retrieveById(id) {
      const robot = robots.find((r) => r.id === id);
      return robot?.active ? asUser(robot) : null;
    },
    accepts: (user) => user.disabledAt === null,
    keyMatches(id, key) {
      const robot = robots.find((r) => r.id === id);
      return robot !== undefined && safeEqual(robot.key, key);
    },
  };
  return provider;
};

/** `X-Robot-Key: <id>:<key>` (the header name comes from the guard's config entry). */
const robotKeyDriver: GuardDriver = (name, config, provider) => {
  const header = String(config['header']);
  const authenticate: ReturnType<GuardDriver>['authenticate'] = async (request) => {
    const match = /^(\d{1,9}):(\S+)$/.exec(request.header(header) ?? '');
    if (!match) return null;
    const id = Number(match[1]);
    if (!(provider as RosterProvider).keyMatches(id, match[2]!)) return null;
    const user = await provider.retrieveById(id);
    return user ? { guard: name, user } : null;
  };
  return { name, driver: 'robot-key', authenticate, check: async (r) => (await authenticate(r)) !== null };
};

const robots: Robot[] = [
  { id: 9001, name: 'Build bot', key: 'k-build-0123456789', active: true },
  { id: 9002, name: 'Retired bot', key: 'k-retired-0123456789', active: false },
];

// --- A guard reusing the token driver over a narrower provider: partner accounts only. -------------

let partnerDb: Db | undefined;
const partnerDomainDriver: ProviderDriver = (config) => {
  const domain = String(config['domain']);
  const accepts = (user: User) => user.disabledAt === null && user.email.endsWith(`@${domain}`);
  return {
    async retrieveById(id) {
      const row = await findUserById(partnerDb!, id);
      const user = row ? toUser(row) : null;
      return user && accepts(user) ? user : null;
    },
    accepts,
  };
};

const withGuards: AuthConfig = {
  guards: {
    ...defaults.guards,
    robots: { driver: 'robot-key', provider: 'robots', header: 'x-robot-key' },
    partners: { driver: 'token', provider: 'partners' },
  },
  providers: {
    ...defaults.providers,
    robots: { driver: 'roster', robots },
    partners: { driver: 'partner-domain', domain: 'partners.example' },
  },
};

async function guardedRoutes(app: FastifyInstance) {
  const whoami = async (request: { identity: { guard: string; user: User } | null }) => ({
    guard: request.identity!.guard,
    name: request.identity!.user.name,
  });
  app.get('/api/robots/whoami', { preHandler: app.requireAuth(['robots']) }, whoami);
  app.get('/api/partners/whoami', { preHandler: app.requireAuth(['partners']) }, whoami);
  app.get('/api/either/whoami', { preHandler: app.requireAuth(['robots', 'api']) }, whoami);
}

await describeApp(
  'guards as configuration',
  (ctx) => {
    const robotKey = (robot: Robot, key = robot.key) => ({ 'x-robot-key': `${robot.id}:${key}` });

    test('a guard with its own driver and provider protects its routes', async () => {
      const { app } = ctx();
      const ok = await app.inject({ url: '/api/robots/whoami', headers: robotKey(robots[0]!) });
      assert.equal(ok.statusCode, 200);
      assert.deepEqual(ok.json(), { guard: 'robots', name: 'Build bot' });

      for (const headers of [
        {},
        robotKey(robots[0]!, 'k-wrong'),
        robotKey(robots[1]!),
        { 'x-robot-key': 'garbage' },
      ]) {
        const refused = await app.inject({ url: '/api/robots/whoami', headers });
        assertJsonError(refused, 401, JSON.stringify(headers));
      }
    });

    test('guards do not leak into each other’s routes', async () => {
      const { app, createUser, issueToken } = ctx();
      const user = await createUser();
      const token = await issueToken(user.email, user.password);
      assertJsonError(await app.inject({ url: '/api/robots/whoami', headers: bearer(token) }), 401);
      assertJsonError(await app.inject({ url: '/api/user', headers: robotKey(robots[0]!) }), 401);
      assert.equal((await app.inject({ url: '/api/user', headers: bearer(token) })).statusCode, 200);
    });

    test('a route may accept several guards: the first that recognises the request wins', async () => {
      const { app, createUser, issueToken } = ctx();
      const user = await createUser({ name: 'Human' });
      const token = await issueToken(user.email, user.password);
      const asRobot = await app.inject({ url: '/api/either/whoami', headers: robotKey(robots[0]!) });
      assert.deepEqual(asRobot.json(), { guard: 'robots', name: 'Build bot' });
      const asUser = await app.inject({ url: '/api/either/whoami', headers: bearer(token) });
      assert.deepEqual(asUser.json(), { guard: 'api', name: 'Human' });
    });

    test('the token driver over another provider: same tokens, narrower audience', async () => {
      const { app, db, createUser, issueToken } = ctx();
      partnerDb = db;
      const partner = await createUser({ name: 'Partner', email: `p${Date.now()}@partners.example` });
      const customer = await createUser({ name: 'Customer' });
      const partnerToken = await issueToken(partner.email, partner.password);
      const customerToken = await issueToken(customer.email, customer.password);

      const ok = await app.inject({ url: '/api/partners/whoami', headers: bearer(partnerToken) });
      assert.deepEqual(ok.json(), { guard: 'partners', name: 'Partner' });
      assertJsonError(await app.inject({ url: '/api/partners/whoami', headers: bearer(customerToken) }), 401);
      assert.equal((await app.inject({ url: '/api/user', headers: bearer(customerToken) })).statusCode, 200);

      await db.updateTable('users').set({ disabled_at: Date.now() }).where('id', '=', partner.id).execute();
      assertJsonError(await app.inject({ url: '/api/partners/whoami', headers: bearer(partnerToken) }), 401);
    });
  },
  {
    env: { API_RATE_LIMIT: '0' },
    overrides: {
      authConfig: withGuards,
      guardDrivers: { 'robot-key': robotKeyDriver },
      providerDrivers: { roster: rosterDriver, 'partner-domain': partnerDomainDriver },
    },
    build: { plugins: [guardedRoutes] },
  },
);

describe('createGuards', () => {
  const drivers = { 'robot-key': robotKeyDriver };
  const providers = { roster: rosterDriver };

  test('builds one guard per entry over its provider', () => {
    const { guards } = createGuards(
      {
        guards: { robots: { driver: 'robot-key', provider: 'robots', header: 'x' } },
        providers: { robots: { driver: 'roster', robots } },
      },
      drivers,
      providers,
    );
    assert.deepEqual([...guards.keys()], ['robots']);
    assert.equal(guards.get('robots')!.driver, 'robot-key');
  });

  test('an entry naming an unknown driver or provider fails at build time, naming the entry', () => {
    const cases: Array<[AuthConfig, RegExp]> = [
      [
        {
          guards: { x: { driver: 'nope', provider: 'robots' } },
          providers: { robots: { driver: 'roster', robots } },
        },
        /guard "x".*driver "nope"/,
      ],
      [
        {
          guards: { x: { driver: 'robot-key', provider: 'ghosts' } },
          providers: { robots: { driver: 'roster', robots } },
        },
        /guard "x".*provider "ghosts"/,
      ],
      [{ guards: {}, providers: { y: { driver: 'ldap' } } }, /provider "y".*driver "ldap"/],
    ];
    for (const [config, message] of cases) {
      assert.throws(
        () => createGuards(config, drivers, providers),
        (e: unknown) => e instanceof AuthConfigError && message.test(e.message),
      );
    }
  });
});
