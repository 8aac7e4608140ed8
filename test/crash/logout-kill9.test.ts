import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { hash } from '@node-rs/argon2';
import { createLocalJWKSet, decodeJwt, type JSONWebKeySet, jwtVerify } from 'jose';
import { OWASP_ARGON2ID } from '../../src/auth/passwords/passwords.ts';
import { openDatabase } from '../../src/db/connection.ts';
import { TEST_APP_KEY } from '../helpers/app.ts';
import { runCliInProcess } from '../helpers/cli.ts';
import { eventually, HttpClient, startServer } from '../helpers/process.ts';
import { freePort } from '../helpers/smtp-sink.ts';
import { insertUserRow } from '../helpers/users.ts';

/**
 * docs/guides/oidc-provider.md "Logout" against `kill -9`: a back-channel logout notice written while the
 * relying party is down stays in the outbox through a crash of the process, and the restarted server
 * delivers it — signed, for the session the ID token named — once the relying party is back.
 */
const folder = mkdtempSync(join(tmpdir(), 'gatehouse-logout-kill9-'));
after(() => rmSync(folder, { recursive: true, force: true }));

/** The relying party's back-channel endpoint on `port`, recording each logout_token it is sent. */
function listen(port: number, tokens: string[]): Promise<Server> {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const token = new URLSearchParams(body).get('logout_token');
      if (token) tokens.push(token);
      response.writeHead(200).end();
    });
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

test('a logout notice survives kill -9 and is delivered after the restart', async () => {
  const port = await freePort();
  const rpPort = await freePort();
  const filename = join(folder, 'gatehouse.sqlite');
  const env = { DATABASE_URL: `sqlite:${filename}`, MAIL_MAILER: 'log', LOG_LEVEL: 'warn' };
  let server = await startServer({ port, env, readyTimeoutMs: 120_000 });
  const issuer = server.url;
  try {
    const handle = openDatabase({ dialect: 'sqlite', filename });
    const password = 'logout-kill9-password-7';
    try {
      await insertUserRow(handle.db, {
        email: 'kill9@example.com',
        passwordHash: await hash(password, { algorithm: 2, ...OWASP_ARGON2ID }),
      });
    } finally {
      await handle.close();
    }
    const redirectUri = `http://127.0.0.1:${rpPort}/callback`;
    const created = await runCliInProcess(
      [
        ...['clients:create', '--name', 'Crash RP', '--trusted', '--redirect-uri', redirectUri],
        ...['--backchannel-logout-uri', `http://127.0.0.1:${rpPort}/backchannel`, '--json'],
      ],
      { ...env, APP_URL: issuer, APP_KEY: TEST_APP_KEY },
      folder,
    );
    assert.equal(created.code, 0, created.stderr);
    const rp = JSON.parse(created.stdout) as { client_id: string; client_secret: string };

    // Signed in to Gatehouse, then to the relying party (code flow with PKCE, by hand).
    const browser = new HttpClient(server.url);
    await browser.get('/login');
    assert.equal((await browser.post('/login', { email: 'kill9@example.com', password })).status, 302);
    const verifier = randomBytes(32).toString('base64url');
    const authorize = new URL(`${issuer}/oauth/authorize`);
    for (const [key, value] of Object.entries({
      client_id: rp.client_id,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'openid',
      state: 'kill9',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }))
      authorize.searchParams.set(key, value);
    let next = `${authorize.pathname}${authorize.search}`;
    let code: string | null = null;
    for (let hop = 0; hop < 10 && code === null; hop++) {
      const response = await browser.get(next);
      const location =
        response.headers.get('location') ?? /url=(.+)$/i.exec(response.headers.get('refresh') ?? '')?.[1];
      assert.ok(location, `stuck at ${next}: ${response.status} ${response.body.slice(0, 200)}`);
      const target = new URL(location, issuer);
      if (target.href.startsWith(redirectUri)) code = target.searchParams.get('code');
      else next = `${target.pathname}${target.search}`;
    }
    assert.ok(code, 'a code');
    const exchanged = await fetch(`${issuer}/oauth/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${rp.client_id}:${rp.client_secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
      }),
    });
    assert.equal(exchanged.status, 200);
    const sid = decodeJwt(((await exchanged.json()) as { id_token: string }).id_token)['sid'];
    assert.ok(typeof sid === 'string');

    // The relying party is down: the logout is written, tried, and scheduled again.
    await browser.get('/dashboard');
    assert.equal((await browser.post('/logout')).status, 302);
    const pending = async () => {
      const db = openDatabase({ dialect: 'sqlite', filename });
      try {
        return await db.db.selectFrom('oauth_logout_outbox').selectAll().execute();
      } finally {
        await db.close();
      }
    };
    // Killed between attempts (a crash during one leaves the row to its lease, 2 minutes, then to any
    // instance: test/http/oauth-logout.test.ts).
    await eventually(
      async () => ((await pending())[0]?.last_error ? true : undefined),
      20_000,
      'a first attempt, failed',
    );
    await server.kill9();
    const [row] = await pending();
    assert.equal(row!.sent_at, null, 'not delivered before the crash');
    assert.ok(row!.last_error, 'the failed attempt is recorded');

    // Back up, with the relying party listening: the notice goes out, once, for that session.
    const tokens: string[] = [];
    const receiver = await listen(rpPort, tokens);
    try {
      server = await startServer({ port, env, readyTimeoutMs: 120_000 });
      await eventually(() => (tokens.length > 0 ? true : undefined), 30_000, 'the logout token');
      const jwks = createLocalJWKSet((await (await fetch(`${issuer}/oauth/jwks`)).json()) as JSONWebKeySet);
      const { payload } = await jwtVerify(tokens[0]!, jwks, {
        issuer,
        audience: rp.client_id,
        typ: 'logout+jwt',
      });
      assert.equal(payload['sid'], sid);
      assert.ok(payload['events']);
      await eventually(async () => ((await pending())[0]?.sent_at ? true : undefined), 10_000, 'marked sent');
      assert.equal(tokens.length, 1, 'delivered once');
    } finally {
      receiver.close();
    }
  } finally {
    await server.stop();
  }
});
