import { randomBytes } from 'node:crypto';
import type { PasswordHasher } from '../src/auth/passwords/passwords.ts';
import type { DatabaseConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/connection.ts';
import { migrateToLatest } from '../src/db/migrator.ts';
import { insertMembership, insertOrganization } from '../src/orgs/orgs.repository.ts';
import { insertUser } from '../src/users/users.repository.ts';
import { benchOrganizations } from './organizations.ts';

export interface BenchUser {
  readonly id: number;
  readonly email: string;
  readonly password: string;
}

/**
 * Migrates the database and adds one verified user through the users repository (the domain's own
 * insert, with a real argon2id hash), a member of three organizations (bench/organizations.ts). The
 * e-mail and slugs are unique per run, so a shared server database can hold several runs.
 */
export async function seedUser(database: DatabaseConfig, hasher: PasswordHasher): Promise<BenchUser> {
  const handle = openDatabase(database);
  try {
    await migrateToLatest(handle.db);
    const email = `bench-${randomBytes(6).toString('hex')}@example.com`;
    const password = `bench-${randomBytes(12).toString('base64url')}`;
    const now = Date.now();
    const row = await insertUser(handle.db, {
      name: 'Bench User',
      email,
      password: await hasher.hash(password),
      email_verified_at: now,
      locale: 'en',
      can_access_panel: 0,
      disabled_at: null,
      created_at: now,
      updated_at: now,
    });
    for (const org of benchOrganizations()) {
      const organizationId = await insertOrganization(handle.db, { name: org.name, slug: org.slug, now });
      await insertMembership(handle.db, { organizationId, userId: row.id, role: org.role, now });
    }
    return { id: row.id, email, password };
  } finally {
    await handle.close();
  }
}

/** Removes the run's user again (tokens, sessions and remember tokens cascade), and its organizations. */
export async function removeUser(database: DatabaseConfig, id: number): Promise<void> {
  const handle = openDatabase(database);
  try {
    const owned = await handle.db
      .selectFrom('organization_memberships')
      .select('organization_id')
      .where('user_id', '=', id)
      .execute();
    const ids = owned.map((row) => row.organization_id);
    if (ids.length > 0) await handle.db.deleteFrom('organizations').where('id', 'in', ids).execute();
    await handle.db.deleteFrom('users').where('id', '=', id).execute();
  } finally {
    await handle.close();
  }
}

/** A bearer token through POST /api/tokens, as a client would get one. */
export async function issueToken(baseUrl: string, user: BenchUser): Promise<string> {
  const response = await fetch(`${baseUrl}/api/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ email: user.email, password: user.password, device_name: 'bench' }),
  });
  const body = (await response.json()) as { token?: string };
  if (response.status !== 200 || !body.token) {
    throw new Error(`POST /api/tokens answered ${response.status}: ${JSON.stringify(body)}`);
  }
  return body.token;
}

/**
 * A logged-in browser session: GET /login for the session cookie and the form's CSRF token, then
 * POST /login; the new session cookie (the id is renewed at login) is returned as a Cookie header.
 */
export async function loginSession(baseUrl: string, user: BenchUser): Promise<string> {
  const form = await fetch(`${baseUrl}/login`);
  const html = await form.text();
  const token = /name="_token" value="([^"]+)"/.exec(html)?.[1];
  const guestCookie = cookieHeader(form.headers.getSetCookie());
  if (form.status !== 200 || !token || !guestCookie) {
    throw new Error(`GET /login answered ${form.status} without a CSRF token or session cookie`);
  }
  const login = await fetch(`${baseUrl}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: guestCookie },
    body: new URLSearchParams({ _token: token, email: user.email, password: user.password }).toString(),
  });
  const sessionCookie = cookieHeader(login.headers.getSetCookie(), 'gatehouse_session');
  if (login.status !== 302 || !sessionCookie) {
    throw new Error(`POST /login answered ${login.status} without a new session cookie`);
  }
  return sessionCookie;
}

/** `name=value` pairs of Set-Cookie headers (only `only` when given), joined for a Cookie header. */
function cookieHeader(setCookies: string[], only?: string): string {
  return setCookies
    .map((line) => line.split(';', 1)[0]!)
    .filter((pair) => pair.includes('=') && (only === undefined || pair.startsWith(`${only}=`)))
    .join('; ');
}
