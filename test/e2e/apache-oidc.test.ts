import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hash } from '@node-rs/argon2';
import { OWASP_ARGON2ID } from '../../src/auth/passwords/passwords.ts';
import { openDatabase } from '../../src/db/connection.ts';
import { runCliInProcess } from '../helpers/cli.ts';
import { docsBlock, fillIn } from '../helpers/docs-config.ts';
import { eventually, type ServerProcess, startServer } from '../helpers/process.ts';
import {
  APACHE_MODULES,
  APACHE_PATH,
  binarySkip,
  type ProxyProcess,
  startApache,
} from '../helpers/proxies.ts';
import { freePort } from '../helpers/smtp-sink.ts';
import { insertUserRow } from '../helpers/users.ts';

/**
 * A real relying party (docs/integrations/mod-auth-openidc.md): Debian's Apache httpd with
 * mod_auth_openidc, configured with the docs' block, in front of a CGI script that prints the claims it
 * receives; Gatehouse as a real process. Over HTTP with a cookie jar (both servers are on 127.0.0.1, so
 * one jar holds both sites' cookies, as a browser's would).
 */
const skip =
  binarySkip('apache2', APACHE_PATH, 'apt-get install -y apache2') ||
  binarySkip(
    'mod_auth_openidc',
    join(APACHE_MODULES, 'mod_auth_openidc.so'),
    'apt-get install -y libapache2-mod-auth-openidc',
  );

/** A browser over fetch(): one cookie jar (cookies ignore ports), redirects and Refresh followed by hand. */
class Jar {
  readonly cookies = new Map<string, string>();

  async request(url: string, init: { method?: string; form?: Record<string, string> } = {}) {
    // A top-level navigation, as a browser says it. Not fetch(): undici always sends
    // `sec-fetch-mode: cors`, and the module answers such requests 401 instead of sending them to log in.
    const headers: Record<string, string> = {
      accept: 'text/html',
      'sec-fetch-mode': 'navigate',
      'sec-fetch-dest': 'document',
    };
    if (this.cookies.size > 0) headers['cookie'] = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const body = init.form ? new URLSearchParams(init.form).toString() : undefined;
    if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const outgoing = httpRequest(url, { method: init.method ?? 'GET', headers }, resolve);
      outgoing.once('error', reject);
      outgoing.end(body);
    });
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    for (const line of response.headers['set-cookie'] ?? []) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const gone = attributes.some(
        (a) => /^\s*max-age=(0|-)/i.test(a) || /^\s*expires=Thu, 01 Jan 1970/i.test(a),
      );
      if (gone || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const header = (name: string) => {
      const value = response.headers[name];
      return typeof value === 'string' ? value : null;
    };
    return { url, status: response.statusCode!, header, body: Buffer.concat(chunks).toString('utf8') };
  }

  /** Follows redirects and Refresh headers until a page that answers by itself. */
  async follow(start: string, init: { method?: string; form?: Record<string, string> } = {}) {
    let response = await this.request(start, init);
    const visited = [start];
    for (let hop = 0; hop < 25; hop++) {
      const location =
        response.header('location') ?? /url=(.+)$/i.exec(response.header('refresh') ?? '')?.[1];
      if (!location) return { ...response, visited };
      const next = new URL(location, response.url).href;
      visited.push(next);
      response = await this.request(next);
    }
    throw new Error(`too many redirects: ${visited.join(' → ')}`);
  }
}

describe('Apache with mod_auth_openidc signs in through Gatehouse (docs/integrations/mod-auth-openidc.md)', {
  skip,
}, () => {
  let folder: string;
  let gatehouse: ServerProcess;
  let apache: ProxyProcess;
  let app: string;
  let auth: string;
  const user = { email: 'ada@example.com', name: 'Ada Lovelace', password: 'apache-oidc-password-9' };

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'gatehouse-apache-oidc-'));
    const [gatehousePort, apachePort] = [await freePort(), await freePort()];
    auth = `http://127.0.0.1:${gatehousePort}`;
    app = `http://127.0.0.1:${apachePort}`;
    const database = `sqlite:${join(folder, 'gatehouse.sqlite')}`;
    const env = {
      DATABASE_URL: database,
      APP_URL: auth,
      APP_KEY: TEST_KEY,
      STORAGE_PATH: join(folder, 'storage'),
    };
    gatehouse = await startServer({
      port: gatehousePort,
      readyTimeoutMs: 120_000,
      env: { ...env, MAIL_MAILER: 'log', LOG_LEVEL: 'warn' },
    });
    const handle = openDatabase({ dialect: 'sqlite', filename: join(folder, 'gatehouse.sqlite') });
    try {
      await insertUserRow(handle.db, {
        email: user.email,
        name: user.name,
        passwordHash: await hash(user.password, { algorithm: 2, ...OWASP_ARGON2ID }),
      });
    } finally {
      await handle.close();
    }
    const created = await runCliInProcess(
      [
        'clients:create',
        '--name',
        'Intranet (Apache)',
        '--trusted',
        '--redirect-uri',
        `${app}/protected/redirect_uri`,
        '--post-logout-redirect-uri',
        `${app}/loggedout.html`,
        '--backchannel-logout-uri',
        `${app}/protected/redirect_uri?logout=backchannel`,
        '--json',
      ],
      env,
      folder,
    );
    assert.equal(created.code, 0, created.stderr);
    const registered = JSON.parse(created.stdout) as { client_id: string; client_secret: string };
    const site = fillIn(docsBlock('integrations/mod-auth-openidc.md', 'mod-auth-openidc'), [
      ['https://auth.example.com', auth],
      ['https://app.example.com', app],
      ['CLIENT_ID', registered.client_id],
      ['CLIENT_SECRET', registered.client_secret],
      ['a-long-random-passphrase', 'apache-oidc-test-passphrase'],
    ]);
    apache = await startApache(
      [
        site,
        // The test's application: a page for after logout, and a CGI script behind the protection.
        'DocumentRoot {{dir}}',
        '<Directory {{dir}}>',
        '    Require all granted',
        '</Directory>',
        'ScriptAlias /protected/claims {{dir}}/claims.cgi',
      ].join('\n'),
      apachePort,
      ['authz_user', 'alias', 'cgi', 'auth_openidc'],
      {
        'claims.cgi': {
          text: '#!/bin/sh\nprintf "Content-Type: text/plain\\n\\n"\nenv | grep "^OIDC_CLAIM_" | sort\n',
          mode: 0o755,
        },
        'loggedout.html': {
          text: '<!doctype html><title>Signed out</title><p>Signed out of the intranet.</p>\n',
        },
      },
    );
  });

  after(async () => {
    await apache?.stop();
    await gatehouse?.stop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  const failure = (what: string) => `${what}\napache: ${apache.output.slice(-15).join('\n')}`;

  async function outboxRows() {
    const handle = openDatabase({ dialect: 'sqlite', filename: join(folder, 'gatehouse.sqlite') });
    try {
      return await handle.db.selectFrom('oauth_logout_outbox').selectAll().execute();
    } finally {
      await handle.close();
    }
  }

  /** A guest at /protected/claims, through Gatehouse's login, back at the claims. */
  async function signIn(jar: Jar) {
    const login = await jar.follow(`${app}/protected/claims`);
    assert.equal(
      new URL(login.url).origin,
      auth,
      failure(`not at Gatehouse: ${login.visited.join(' → ')} ${login.status} ${login.body.slice(0, 600)}`),
    );
    assert.equal(new URL(login.url).pathname, '/login');
    const token = /name="_token" value="([^"]+)"/.exec(login.body)?.[1];
    assert.ok(token, 'the login form');
    const back = await jar.follow(`${auth}/login`, {
      method: 'POST',
      form: { _token: token, email: user.email, password: user.password },
    });
    assert.equal(back.status, 200, failure(`${back.visited.join(' → ')}\n${back.body.slice(0, 300)}`));
    assert.equal(back.url, `${app}/protected/claims`, back.visited.join(' → '));
    return back;
  }

  test('a guest goes through /login at Gatehouse and comes back signed in; the claims reach the app', async () => {
    const jar = new Jar();
    const claims = await signIn(jar);
    assert.match(claims.body, /^OIDC_CLAIM_email=ada@example\.com$/m);
    assert.match(claims.body, /^OIDC_CLAIM_name=Ada Lovelace$/m);
    assert.match(claims.body, /^OIDC_CLAIM_sub=\d+$/m);
    assert.match(claims.body, /^OIDC_CLAIM_amr=pwd$/m);
    // Signed in at both: the app answers without a detour, Gatehouse shows the dashboard.
    assert.equal((await jar.request(`${app}/protected/claims`)).status, 200);
    assert.equal((await jar.request(`${auth}/dashboard`)).status, 200);
  });

  test("RP-initiated logout through the module's logout URL ends both sessions", async () => {
    const jar = new Jar();
    await signIn(jar);
    const logout = `${app}/protected/redirect_uri?logout=${encodeURIComponent(`${app}/loggedout.html`)}`;
    const confirm = await jar.follow(logout);
    assert.equal(new URL(confirm.url).pathname, '/oauth/logout', failure(confirm.visited.join(' → ')));
    const action = /<form method="post" action="([^"]+)"/.exec(confirm.body)?.[1];
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(confirm.body)?.[1];
    assert.ok(action && xsrf, 'the confirmation form');
    const done = await jar.follow(new URL(action, auth).href, {
      method: 'POST',
      form: { xsrf, logout: 'yes' },
    });
    assert.equal(done.url, `${app}/loggedout.html`, done.visited.join(' → '));
    assert.match(done.body, /Signed out of the intranet/);
    // Both sessions are gone: Gatehouse wants a login, and so does the app (through Gatehouse).
    assert.equal((await jar.request(`${auth}/dashboard`)).status, 302);
    const again = await jar.follow(`${app}/protected/claims`);
    assert.equal(new URL(again.url).pathname, '/login', again.visited.join(' → '));
  });

  test('back-channel logout: signing out at Gatehouse ends the Apache session', async () => {
    const jar = new Jar();
    await signIn(jar);
    const before = await outboxRows();
    const dashboard = await jar.request(`${auth}/dashboard`);
    const token = /name="_token" value="([^"]+)"/.exec(dashboard.body)?.[1];
    assert.ok(token);
    const out = await jar.request(`${auth}/logout`, { method: 'POST', form: { _token: token } });
    assert.equal(out.status, 302);
    // Only the Gatehouse cookie was dropped: the module's session cookie is still in the jar, and the
    // session it names is ended by the logout token Gatehouse POSTs to the module (the outbox worker).
    assert.ok([...jar.cookies.keys()].some((name) => name.startsWith('mod_auth_openidc_session')));
    await eventually(
      async () => {
        const response = await jar.request(`${app}/protected/claims`);
        return response.status === 302 && new URL(response.header('location')!).origin === auth
          ? true
          : undefined;
      },
      15_000,
      failure('the Apache session to end'),
    );
    // It was the logout token: Gatehouse's outbox delivered it to the module (a 2xx), once.
    const fresh = await eventually(async () => {
      const rows = (await outboxRows()).filter((row) => !before.some((old) => old.id === row.id));
      return rows.every((row) => row.sent_at !== null) ? rows : undefined;
    });
    assert.equal(fresh.length, 1, JSON.stringify(fresh));
    assert.ok(fresh[0]!.sent_at !== null && fresh[0]!.last_error === null, JSON.stringify(fresh));
  });
});

const TEST_KEY = `base64:${Buffer.alloc(32, 11).toString('base64')}`;
