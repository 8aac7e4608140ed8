import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { createPasswordHasher } from '../../src/auth/passwords/passwords.ts';
import { insertMembership, insertOrganization } from '../../src/orgs/orgs.repository.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { availableDialects } from '../helpers/databases.ts';
import {
  type BodyChoice,
  type Credentials,
  type FuzzRequest,
  fuzzRequest,
  parseRoutes,
  type Route,
} from './requests.ts';

/**
 * Issue 7 §6: property-based fuzzing of every route in process (app.inject; SQLite, and PostgreSQL with
 * a quarter as many runs). Each generated request mixes a route (or another method on it), path
 * parameters, query, headers (garbage and real credentials), a content type and a body (JSON, form,
 * bytes, oversized, deeply nested), with or without a valid CSRF token. Properties, for every request:
 *   - no 5xx, and no stack trace, source path or SQL error text in the body; JSON bodies parse;
 *   - a request answered ≥ 400 changed no stored data (row counts of every table, users' updated_at;
 *     only the audit rows that record refused logins may appear);
 *   - the service is healthy at the end.
 * FUZZ_RUNS sets the number of requests (npm run fuzz: 100,000), FUZZ_PG_RUNS those on PostgreSQL,
 * FUZZ_SEED replays a run; the defaults keep CI fast.
 */
const SQLITE_RUNS = Number(process.env['FUZZ_RUNS'] ?? 10_000);
// PostgreSQL refuses what SQLite stores (NUL bytes, out-of-range integers): a shorter run there too.
const POSTGRES_RUNS = Number(process.env['FUZZ_PG_RUNS'] ?? Math.ceil(SQLITE_RUNS / 4));
const SEED = process.env['FUZZ_SEED'] === undefined ? undefined : Number(process.env['FUZZ_SEED']);

// Hashing strength is not under test here; a cheap argon2id keeps 10,000 requests fast.
const hasher = createPasswordHasher(4, { memoryCost: 256, timeCost: 1, parallelism: 1 });

const METRICS_TOKEN = 'fuzz-metrics-token-0123456789';

const BIG_BODY = `email=${'a'.repeat(1024 * 1024 + 100)}`;
const DEEP_JSON = `${'{"a":['.repeat(20_000)}1${']}'.repeat(20_000)}`;
const DEEP_FORM = `a${'[a]'.repeat(5000)}=1&email=${'%5B'.repeat(3000)}`;

// Events that record a refused login: writing them is the point of a 401/422/429 on a login.
const REFUSAL_AUDITS = new Set([
  'login.failed',
  'login.lockout',
  'admin.login.failed',
  'admin.login.lockout',
  'remember.theft_suspected',
  // A wrong password where an open session asks for it again (confirmation, other sessions, deletion)
  // and a wrong second-factor code are refused checks too.
  'user.password_check_failed',
  'two_factor.challenge_failed',
  'two_factor.lockout',
  // A passkey sign-in whose response did not verify (or whose counter went backwards).
  'passkey.login_failed',
  'passkey.clone_suspected',
]);

const LEAK =
  /\n\s+at \S|node_modules|\/work\/|\/src\/|\.ts:\d+|SQLITE_|sqlite3|syntax error|violates|Kysely/i;

interface Snapshot {
  users: number;
  personal_access_tokens: number;
  posts: number;
  sessions: number;
  remember_tokens: number;
  password_reset_tokens: number;
  mail_outbox: number;
  passkeys: number;
  passkey_challenges: number;
  webhook_events: number;
  webhook_outbox: number;
  organizations: number;
  organization_memberships: number;
  organization_invitations: number;
  orgs_updated: number;
  audit: number;
  users_updated: number;
  users_flags: number;
}

async function snapshot(fuzz: TestApp): Promise<Snapshot> {
  const { rows } = await sql<Snapshot>`select
      (select count(*) from users) as users,
      (select count(*) from personal_access_tokens) as personal_access_tokens,
      (select count(*) from posts) as posts,
      (select count(*) from sessions) as sessions,
      (select count(*) from remember_tokens) as remember_tokens,
      (select count(*) from password_reset_tokens) as password_reset_tokens,
      (select count(*) from mail_outbox) as mail_outbox,
      (select count(*) from passkeys) as passkeys,
      (select count(*) from passkey_challenges) as passkey_challenges,
      (select count(*) from identities) as identities,
      (select count(*) from webhook_events) as webhook_events,
      (select count(*) from webhook_outbox) as webhook_outbox,
      (select count(*) from organizations) as organizations,
      (select count(*) from organization_memberships) as organization_memberships,
      (select count(*) from organization_invitations) as organization_invitations,
      (select coalesce(max(updated_at), 0) from organizations)
        + (select coalesce(max(updated_at), 0) from organization_memberships) as orgs_updated,
      (select coalesce(max(id), 0) from audit_log) as audit,
      (select coalesce(max(updated_at), 0) from users) as users_updated,
      (select count(*) from users where email_verified_at is not null or disabled_at is not null
         or can_access_panel = 1) as users_flags`.execute(fuzz.db);
  const row = rows[0]!;
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)])) as unknown as Snapshot;
}

for (const { name: dialect, skip } of await availableDialects()) {
  const RUNS = dialect === 'sqlite' ? SQLITE_RUNS : POSTGRES_RUNS;
  describe(`HTTP fuzzing (${dialect}, in process)`, { skip }, () => {
    let fuzz: TestApp;
    let routes: Route[];
    let credentials: Credentials;
    let refreshes = 0;

    before(async () => {
      // Metrics and webhooks on (an endpoint nobody listens on; the worker is not started): their routes
      // answer, and every change writes its events, which a refused request must not.
      fuzz = await createTestApp(dialect, {
        overrides: { hasher },
        env: {
          METRICS_TOKEN,
          // POST /oauth/register answers (RFC 7591) instead of a 404.
          OIDC_DYNAMIC_REGISTRATION: 'true',
          WEBHOOK_URLS: 'http://127.0.0.1:9/hooks',
          WEBHOOK_SECRET: `whsec_${Buffer.alloc(32, 3).toString('base64')}`,
          // Login providers nobody answers for (the discard port): /auth/{provider} and its callback
          // answer every request without reaching a provider, a GitHub one and an OpenID one.
          LOGIN_PROVIDERS: 'github,acme',
          GITHUB_CLIENT_ID: 'fuzz-github',
          GITHUB_CLIENT_SECRET: 'fuzz-github-secret',
          GITHUB_URL: 'http://127.0.0.1:9',
          ACME_CLIENT_ID: 'fuzz-acme',
          ACME_CLIENT_SECRET: 'fuzz-acme-secret',
          ACME_ISSUER: 'http://127.0.0.1:9/acme',
        },
      });
      routes = parseRoutes(fuzz.app.printRoutes({ commonPrefix: false }));
      credentials = await freshCredentials();
    });
    after(() => fuzz?.close());

    /** Logs in through the forms (JSON), as a browser would; returns the session cookie and CSRF token. */
    async function sessionFor(path: '/login' | '/admin/login', email: string, password: string) {
      const cookieName = path === '/login' ? 'gatehouse_session' : 'gatehouse_admin_session';
      const remoteAddress = `10.200.${refreshes % 250}.${path === '/login' ? 1 : 2}`;
      const page = await fuzz.app.inject({ url: path, remoteAddress });
      const guest = page.cookies.find((c) => c.name === cookieName)!.value;
      const csrf = /name="_token" value="([^"]+)"/.exec(page.body)![1]!;
      const login = await fuzz.app.inject({
        method: 'POST',
        url: path,
        remoteAddress,
        headers: { cookie: `${cookieName}=${guest}`, accept: 'application/json', 'x-csrf-token': csrf },
        payload: { email, password },
      });
      assert.equal(login.statusCode, 204, login.body);
      const id = login.cookies.find((c) => c.name === cookieName)!.value;
      const next = await fuzz.app.inject({
        url: path === '/login' ? '/dashboard' : '/admin',
        headers: { cookie: `${cookieName}=${id}` },
      });
      const token = /name="_token" value="([^"]+)"/.exec(next.body)?.[1] ?? csrf;
      return { cookie: `${cookieName}=${id}`, csrf: token };
    }

    /** A user with a token and a web session, and an admin with a panel session. */
    async function freshCredentials(): Promise<Credentials> {
      refreshes++;
      const user = await fuzz.createUser({ email: `seed${refreshes}@example.com` });
      const admin = await fuzz.createUser({ email: `admin${refreshes}@example.com`, panelAccess: true });
      const issued = await fuzz.app.inject({
        method: 'POST',
        url: '/api/tokens',
        remoteAddress: `10.201.${refreshes % 250}.1`,
        payload: { email: user.email, password: user.password, device_name: 'fuzz' },
      });
      assert.equal(issued.statusCode, 200, issued.body);
      const token = issued.json().token as string;
      const web = await sessionFor('/login', user.email, user.password);
      const panel = await sessionFor('/admin/login', admin.email, admin.password);
      return {
        email: user.email,
        password: user.password,
        userId: user.id,
        adminId: admin.id,
        token,
        tokenId: Number(token.split('|')[0]),
        webCookie: web.cookie,
        webCsrf: web.csrf,
        adminCookie: panel.cookie,
        adminCsrf: panel.csrf,
        metricsToken: METRICS_TOKEN,
        ...(await seededOrganization(user.id)),
        clientId: await seededClient(user.id),
      };
    }

    /** A client the seeded user allowed, for /user/connected-apps/{id} and /admin/clients/{id}. */
    async function seededClient(userId: number) {
      const now = { now: Date.now() };
      const created = await fuzz.services.oauth.clients.create(
        {
          name: `Fuzz RP ${refreshes}`,
          redirectUris: ['https://rp.example/callback'],
          postLogoutRedirectUris: [],
          backchannelLogoutUri: null,
          grantTypes: [],
          scope: null,
          public: false,
          trusted: false,
        },
        now,
      );
      assert.ok(created.ok);
      await fuzz.services.oauth.consents.remember(userId, created.client.clientId, ['openid', 'email'], now);
      return created.client.clientId;
    }

    /** An organization the seeded user owns, for the /orgs/{slug}… routes (rows written directly). */
    async function seededOrganization(userId: number) {
      const now = Date.now();
      const orgSlug = `fuzz-org-${refreshes}`;
      const orgId = await insertOrganization(fuzz.db, { name: `Fuzz Org ${refreshes}`, slug: orgSlug, now });
      await insertMembership(fuzz.db, { organizationId: orgId, userId, role: 'owner', now });
      return { orgSlug, orgId };
    }

    /** The fuzzer may have revoked the token, logged a session out or disabled the user: start afresh. */
    async function credentialsStillWork(): Promise<boolean> {
      const [api, web, panel] = await Promise.all([
        fuzz.app.inject({ url: '/api/user', headers: { authorization: `Bearer ${credentials.token}` } }),
        fuzz.app.inject({ url: '/dashboard', headers: { cookie: credentials.webCookie } }),
        fuzz.app.inject({ url: '/admin', headers: { cookie: credentials.adminCookie } }),
      ]);
      return api.statusCode === 200 && web.statusCode === 200 && panel.statusCode === 200;
    }

    function fill(text: string): string {
      return text
        .replaceAll('{userId}', String(credentials.userId))
        .replaceAll('{adminId}', String(credentials.adminId))
        .replaceAll('{tokenId}', String(credentials.tokenId))
        .replaceAll('{orgSlug}', credentials.orgSlug)
        .replaceAll('{orgId}', String(credentials.orgId))
        .replaceAll('{clientId}', credentials.clientId)
        .replaceAll('{email}', encodeURIComponent(credentials.email));
    }

    /** The seeded account's address and password where the generator put placeholders (JSON or form). */
    function fillSecrets(text: string): string {
      const swap = (value: string) => JSON.stringify(value).slice(1, -1);
      return text
        .replace(/\{email\}|%7Bemail%7D/g, (m) =>
          m.startsWith('%') ? encodeURIComponent(credentials.email) : swap(credentials.email),
        )
        .replace(/\{password\}|%7Bpassword%7D/g, (m) =>
          m.startsWith('%') ? encodeURIComponent(credentials.password) : swap(credentials.password),
        )
        .replace(/\{orgSlug\}|%7BorgSlug%7D/g, credentials.orgSlug)
        .replace(/\{orgId\}|%7BorgId%7D/g, String(credentials.orgId));
    }

    function toInject(request: FuzzRequest): InjectOptions {
      let index = 0;
      const path = request.route.url.replace(/:[A-Za-z_]+|\*/g, () => fill(request.params[index++ % 3]!));
      const search = request.query
        .map(
          ([k, v]) =>
            `${encodeURIComponent(k)}=${fill(encodeURIComponent(v.replace(/[\ud800-\udfff]/g, '')))}`,
        )
        .join('&');
      const admin = path.startsWith('/admin');
      const csrf = admin ? credentials.adminCsrf : credentials.webCsrf;
      const headers: Record<string, string> = {};
      for (const [name, choice] of Object.entries(request.headers)) {
        if (typeof choice === 'string') headers[name] = choice;
        else if (choice.credential === 'session')
          headers[name] = admin ? credentials.adminCookie : credentials.webCookie;
        else headers[name] = `${choice.prefix ?? ''}${credentials[choice.credential]}`;
      }
      if (request.csrf === 'header') headers['x-csrf-token'] = csrf;
      const { payload, type } = encodeBody(request.body, request.csrf === 'field' ? csrf : null);
      const contentType = request.contentType ?? type;
      if (contentType !== null && payload !== undefined) headers['content-type'] = contentType;
      return {
        method: (request.method ?? request.route.method) as InjectOptions['method'],
        url: search ? `${path}?${search}` : path,
        headers,
        remoteAddress: request.remoteAddress,
        ...(payload !== undefined ? { payload } : {}),
      };
    }

    function encodeBody(
      body: BodyChoice,
      csrfField: string | null,
    ): { payload?: string | Buffer; type: string | null } {
      switch (body.kind) {
        case 'none':
          return { type: null };
        case 'json':
          return {
            payload: fillSecrets(
              JSON.stringify(csrfField ? { ...body.value, _token: csrfField } : body.value),
            ),
            type: 'application/json',
          };
        case 'form': {
          const form = new URLSearchParams();
          for (const [k, v] of Object.entries(body.value)) {
            for (const item of Array.isArray(v) ? v : [v]) {
              form.append(k, typeof item === 'object' && item !== null ? JSON.stringify(item) : String(item));
            }
          }
          if (csrfField) form.set('_token', csrfField);
          return { payload: fillSecrets(form.toString()), type: 'application/x-www-form-urlencoded' };
        }
        case 'raw':
          return { payload: body.text, type: 'text/plain' };
        case 'bytes':
          return { payload: Buffer.from(body.bytes), type: 'application/octet-stream' };
        case 'big':
          return { payload: BIG_BODY, type: 'application/x-www-form-urlencoded' };
        case 'deep-json':
          return { payload: DEEP_JSON, type: 'application/json' };
        case 'deep-form':
          return { payload: DEEP_FORM, type: 'application/x-www-form-urlencoded' };
      }
    }

    function assertClean(response: LightMyRequestResponse, label: string): void {
      assert.ok(
        response.statusCode < 500,
        `${label} → ${response.statusCode} ${response.body.slice(0, 300)}`,
      );
      assert.doesNotMatch(response.body, LEAK, `${label}: internal detail in the body`);
      const type = String(response.headers['content-type'] ?? '');
      if (type.startsWith('application/json') && response.body !== '') {
        assert.doesNotThrow(() => JSON.parse(response.body), `${label}: invalid JSON body`);
      }
      if (type.startsWith('text/html')) {
        assert.ok(!response.body.includes('<script>alert(1)</script>'), `${label}: input echoed unescaped`);
        assert.ok(!response.body.includes('<img src=x onerror'), `${label}: input echoed unescaped`);
      }
    }

    test(`${RUNS} generated requests: no 5xx, no leak, rejected requests change nothing`, {
      timeout: RUNS * 100 + 60_000,
    }, async (t) => {
      const started = performance.now();
      const statuses = new Map<number, number>();
      const routesHit = new Set<string>();
      let runs = 0;
      await fc.assert(
        fc.asyncProperty(fuzzRequest(routes), async (request) => {
          runs++;
          if (runs % 250 === 0 && !(await credentialsStillWork())) credentials = await freshCredentials();
          const options = toInject(request);
          const label = `${options.method} ${String(options.url).slice(0, 120)}`;
          const before = await snapshot(fuzz);
          const response = await fuzz.app.inject(options);
          statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
          routesHit.add(`${request.route.method} ${request.route.url}`);
          assertClean(response, label);
          if (response.statusCode < 400) {
            // A reset request finishes its work after the answer (equal timing for unknown addresses);
            // let it land before the next request's "before".
            if (String(options.url).startsWith('/forgot-password'))
              await new Promise((r) => setTimeout(r, 30));
            return;
          }
          const now = await snapshot(fuzz);
          const added = await fuzz.db
            .selectFrom('audit_log')
            .select('event')
            .where('id', '>', before.audit)
            .execute();
          for (const { event } of added)
            assert.ok(REFUSAL_AUDITS.has(event), `${label} → ${response.statusCode} audited ${event}`);
          assert.deepEqual(
            { ...now, audit: 0 },
            { ...before, audit: 0 },
            `${label} → ${response.statusCode} changed data`,
          );
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      const seconds = (performance.now() - started) / 1000;
      t.diagnostic(
        `${runs} requests in ${seconds.toFixed(1)} s (${Math.round(runs / seconds)}/s), ${refreshes} credential sets`,
      );
      t.diagnostic(
        `statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`,
      );
      if (runs >= routes.length * 30) assert.equal(routesHit.size, routes.length, 'every route was fuzzed');
    });

    test('the service is healthy afterwards and stored names/addresses hold no line breaks', async () => {
      const health = await fuzz.app.inject({ url: '/health' });
      assert.equal(health.statusCode, 200);
      assert.deepEqual(health.json(), { status: 'ok' });
      assert.equal((await fuzz.app.inject({ url: '/ready' })).statusCode, 200);
      const users = await fuzz.db.selectFrom('users').select(['name', 'email']).execute();
      const control = /[\p{Cc}]/u;
      for (const u of users) assert.doesNotMatch(`${u.name}${u.email}`, control, JSON.stringify(u));
      const recipients = await fuzz.db.selectFrom('mail_outbox').select('recipient').execute();
      for (const r of recipients) assert.doesNotMatch(r.recipient, /[\p{Cc}\s]/u);
      // No error was logged: every refusal above was an ordinary answer, not a caught exception.
      const errors = fuzz.logs.filter((line) => /"level":(50|60)/.test(line));
      assert.deepEqual(errors.slice(0, 3), []);
    });
  });
}
