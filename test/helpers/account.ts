import assert from 'node:assert/strict';
import type { TestApp } from './app.ts';
import { Browser } from './browser-session.ts';

/** A user signed in through the login form, in a browser of their own (optionally remembered). */
export async function signedInBrowser(
  t: TestApp,
  options: {
    remember?: boolean;
    user?: Awaited<ReturnType<TestApp['createUser']>>;
    headers?: Record<string, string>;
  } = {},
) {
  const user = options.user ?? (await t.createUser());
  const browser = new Browser(t.app, options.headers);
  await browser.get('/login');
  const login = await browser.post('/login', {
    email: user.email,
    password: user.password,
    ...(options.remember ? { remember: '1' } : {}),
  });
  assert.equal(login.statusCode, 302, login.body);
  await browser.get('/dashboard'); // the new session's CSRF token
  return { user, browser };
}

/** An admin signed in to the panel through its login form, on the overview (its CSRF token held). */
export async function signedInAdmin(t: TestApp, name = 'Panel Admin') {
  const admin = await t.createUser({ panelAccess: true, name });
  const browser = new Browser(t.app);
  await browser.get('/admin/login');
  const login = await browser.post('/admin/login', { email: admin.email, password: admin.password });
  assert.equal(login.statusCode, 302, login.body);
  await browser.get('/admin');
  return { admin, browser };
}

/** A JSON request with the browser's cookie and CSRF header, any method. */
export function sendJson(
  browser: Browser,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  body?: object,
  headers: Record<string, string> = {},
) {
  return browser.app
    .inject({
      method,
      url,
      ...(body === undefined ? {} : { payload: body }),
      headers: {
        accept: 'application/json',
        cookie: browser.cookieHeader(),
        ...(browser.csrf ? { 'x-csrf-token': browser.csrf } : {}),
        ...headers,
      },
    })
    .then((response) => browser.absorb(response));
}

/** The audit events recorded about a user, oldest first. */
export async function auditEvents(t: TestApp, userId: number, prefix = ''): Promise<string[]> {
  const rows = await t.db
    .selectFrom('audit_log')
    .select('event')
    .where('subject_id', '=', userId)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.event).filter((e) => e.startsWith(prefix));
}
