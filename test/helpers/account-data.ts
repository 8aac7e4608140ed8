import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { sessionKey } from '../../src/auth/sessions/sessions.ts';
import { sendJson, signedInBrowser } from './account.ts';
import type { TestApp } from './app.ts';
import { Browser } from './browser-session.ts';
import { type Enrolled, enableTwoFactor } from './two-factor.ts';

/** An account holding one of everything the service stores about a user, and every secret of it. */
export interface FullAccount {
  readonly user: { id: number; email: string; password: string; name: string };
  /** Signed in, remembered: the browser that exports or deletes. */
  readonly browser: Browser;
  /** A second browser, signed in without remember-me. */
  readonly other: Browser;
  /** A token made on the account page and one issued with the password (POST /api/tokens). */
  readonly tokens: readonly string[];
  readonly twoFactor: Enrolled;
  readonly pendingEmail: string;
  /** Every secret the account holds, plaintext or stored form: none may ever leave in an export. */
  readonly secrets: readonly string[];
}

let unique = 0;

/**
 * Signs in twice (one browser remembered), makes a token in the browser and one with the password,
 * writes a post, asks for a password reset, asks to change the address (pending) and turns two-factor
 * on (last: logins after it would be challenged). Then reads every secret back from the database.
 */
export async function fullAccount(t: TestApp): Promise<FullAccount> {
  const { user, browser } = await signedInBrowser(t, {
    remember: true,
    headers: { 'user-agent': 'Browser A' },
  });
  const { browser: other } = await signedInBrowser(t, { user, headers: { 'user-agent': 'Browser B' } });
  const created = await sendJson(browser, 'POST', '/user/api-tokens', {
    name: 'exported token',
    abilities: ['posts:read', 'posts:write'],
  });
  assert.equal(created.statusCode, 201, created.body);
  const pageToken = created.json().token as string;
  const apiToken = await t.issueToken(user.email, user.password);
  const post = await t.app.inject({
    method: 'POST',
    url: '/api/posts',
    headers: { authorization: `Bearer ${pageToken}` },
    payload: { title: 'My first post', body: 'Written before leaving.' },
  });
  assert.equal(post.statusCode, 201, post.body);
  const guest = new Browser(t.app);
  await guest.get('/forgot-password');
  const forgot = await guest.post('/forgot-password', { email: user.email });
  assert.equal(forgot.statusCode, 302, forgot.body);
  const pendingEmail = `pending-${Date.now()}-${++unique}@example.net`;
  const change = await sendJson(browser, 'PUT', '/user/profile-information', {
    name: user.name,
    email: pendingEmail,
  });
  assert.equal(change.statusCode, 200, change.body);
  const twoFactor = await enableTwoFactor(t, user);

  const db = t.db;
  const row = await db.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow();
  const tokenRows = await db
    .selectFrom('personal_access_tokens')
    .select('token')
    .where('user_id', '=', user.id)
    .execute();
  const sessionRows = await db.selectFrom('sessions').select('id').where('user_id', '=', user.id).execute();
  const rememberRows = await db
    .selectFrom('remember_tokens')
    .selectAll()
    .where('user_id', '=', user.id)
    .execute();
  const reset = await db
    .selectFrom('password_reset_tokens')
    .select('token_hash')
    .where('user_id', '=', user.id)
    .executeTakeFirstOrThrow();
  const credentials = await db
    .selectFrom('two_factor_credentials')
    .selectAll()
    .where('user_id', '=', user.id)
    .executeTakeFirstOrThrow();
  // A passkey as registration stores it: its credential id and public key identify an authenticator.
  const passkey = {
    credential_hash: createHash('sha256').update(`credential-${user.id}`).digest('hex'),
    credential_id: `exported-credential-id-${user.id}`,
    public_key: `exported-public-key-${user.id}`,
    user_handle: `exported-user-handle-${user.id}`,
  };
  await db
    .insertInto('passkeys')
    .values({
      user_id: user.id,
      ...passkey,
      counter: 7,
      transports: '["internal"]',
      name: 'Work laptop',
      created_at: t.services.clock.now(),
      updated_at: t.services.clock.now(),
      last_used_at: null,
    })
    .execute();
  assert.equal(tokenRows.length, 2);
  assert.equal(rememberRows.length, 1);
  // The session, remember-me and XSRF cookies (not `locale`, whose value is a language code).
  const cookies = [browser, other].flatMap((b) =>
    [...b.cookies].filter(([name]) => /^gatehouse_|^XSRF/.test(name)).map(([, value]) => value),
  );
  const secrets = [
    user.password,
    row.password,
    pageToken,
    apiToken,
    ...[pageToken, apiToken].map((token) => token.split('|')[1]!),
    ...tokenRows.map((r) => r.token),
    ...cookies,
    ...cookies.map((cookie) => sessionKey(cookie)),
    ...sessionRows.map((r) => r.id),
    ...rememberRows.flatMap((r) => [r.selector, r.validator_hash]),
    ...[browser.csrf, other.csrf].filter((csrf): csrf is string => csrf !== null),
    reset.token_hash,
    twoFactor.secret,
    ...twoFactor.recoveryCodes,
    credentials.secret,
    credentials.recovery_codes,
    ...Object.values(passkey),
  ];
  return {
    user,
    browser,
    other,
    tokens: [pageToken, apiToken],
    twoFactor,
    pendingEmail,
    secrets,
  };
}
