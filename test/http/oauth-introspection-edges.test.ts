import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import * as client from 'openid-client';
import { describeApp } from '../helpers/app.ts';
import {
  basicAuth,
  codeFlow,
  consentedTokens,
  introspectRequest,
  registerClient,
  relyingParty,
  serviceParty,
  signedInBrowser,
} from '../helpers/oidc.ts';

/**
 * POST /oauth/introspect at its edges (a security review's cases): what the direct answer must leave
 * to the library (a Basic value the library refuses as malformed, another authentication mechanism),
 * secrets rotated and clients deleted, several requests on one keep-alive socket, bodies that never
 * arrive or are cut off, and a client's own token before and after its secret is rotated.
 */
const FORM = 'application/x-www-form-urlencoded';
const b64 = (id: string, secret: string) => Buffer.from(`${id}:${secret}`).toString('base64');

/** A base64 the library refuses (isValidBase64) but Buffer.from decodes to the same credentials. */
function badlyPadded(id: string, secret: string) {
  const bare = b64(id, secret).replace(/=+$/, '');
  const rest = bare.length % 4;
  if (rest === 0) return `Basic ${bare}A`;
  return `Basic ${bare}${rest === 2 ? '=' : '=='}`;
}

function rawRequest(body: string, authorization: string) {
  return (
    `POST /oauth/introspect HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${FORM}\r\n` +
    `Authorization: ${authorization}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

function collect(socket: Socket) {
  let text = '';
  socket.on('data', (chunk) => (text += chunk.toString('latin1')));
  return () => text;
}

await describeApp(
  'oauth introspection edges',
  (ctx) => {
    test('a Basic value the library refuses as malformed goes to the library: 400', async () => {
      const app = ctx();
      const { rp, tokens } = await consentedTokens(app);
      const header = badlyPadded(rp.clientId, rp.secret!);
      const library = await introspectRequest(app, header, {
        token: tokens.access_token,
        token_type_hint: 'refresh_token',
      });
      const direct = await introspectRequest(app, header, { token: tokens.access_token });
      assert.equal(library.statusCode, 400, library.body);
      assert.equal(library.json().error, 'invalid_request');
      assert.equal(direct.statusCode, library.statusCode, `direct: ${direct.body}`);
    });

    test('an OAuth-Client-Attestation header with Basic goes to the library, which refuses two mechanisms', async () => {
      const app = ctx();
      const { rp, tokens } = await consentedTokens(app);
      const header = basicAuth(rp.clientId, rp.secret!);
      const extra = { 'oauth-client-attestation': 'a.b.c' };
      const library = await introspectRequest(
        app,
        header,
        { token: tokens.access_token, token_type_hint: 'refresh_token' },
        extra,
      );
      const direct = await introspectRequest(app, header, { token: tokens.access_token }, extra);
      assert.equal(direct.statusCode, library.statusCode, `library ${library.body} / direct ${direct.body}`);
    });

    test('a public client with a password, a secret with a `+`: the library refuses both', async () => {
      const app = ctx();
      const { rp, tokens } = await consentedTokens(app);
      const pub = await registerClient(app, { public: true });
      const p = await introspectRequest(app, basicAuth(pub.clientId, 'anything'), {
        token: tokens.access_token,
      });
      assert.equal(p.statusCode, 401, p.body);
      // A `+` is decoded as a space by the library (RFC 6749 §2.3.1): a wrong secret.
      const plus = await introspectRequest(app, basicAuth(rp.clientId, `${rp.secret}+`), {
        token: tokens.access_token,
      });
      assert.equal(plus.statusCode, 401);
    });

    test('a public client cannot introspect, not even its own token: invalid_client, 401', async () => {
      const app = ctx();
      const user = await app.createUser();
      const pub = await registerClient(app, { public: true });
      const browser = await signedInBrowser(app, user.email, user.password);
      const { tokens } = await codeFlow(browser, await relyingParty(app, pub), { scope: 'openid' });
      const asPublic = (url: string) =>
        app.app.inject({
          method: 'POST',
          url,
          headers: { 'content-type': FORM },
          payload: new URLSearchParams({ token: tokens.access_token, client_id: pub.clientId }).toString(),
        });
      const response = await asPublic('/oauth/introspect');
      assert.equal(response.statusCode, 401, response.body);
      assert.equal(response.json().error, 'invalid_client');
      assert.match(String(response.headers['www-authenticate']), /^Basic realm=/);
      assert.equal(response.json().active, undefined, 'nothing about the token');
      // Revoking its own token stays open to it (RFC 7009 §2.1).
      const revoked = await asPublic('/oauth/revoke');
      assert.equal(revoked.statusCode, 200, revoked.body);
    });

    test('old secret after rotation, deleted client: refused', async () => {
      const app = ctx();
      const { rp, tokens } = await consentedTokens(app);
      const old = basicAuth(rp.clientId, rp.secret!);
      assert.equal((await introspectRequest(app, old, { token: tokens.access_token })).json().active, true);
      const rotated = await app.services.oauth.clients.rotateSecret(rp.clientId, { now: Date.now() });
      assert.ok(rotated && rotated !== 'public');
      const stale = await introspectRequest(app, old, { token: tokens.access_token });
      assert.equal(stale.statusCode, 401, stale.body);
      const fresh = basicAuth(rp.clientId, rotated.secret);
      assert.equal((await introspectRequest(app, fresh, { token: tokens.access_token })).statusCode, 200);
      await app.services.oauth.clients.delete(rp.clientId, { now: Date.now() });
      const gone = await introspectRequest(app, fresh, { token: tokens.access_token });
      assert.equal(gone.statusCode, 401, gone.body);
    });

    test('keep-alive: pipelined direct, declined and direct requests on one socket', async () => {
      const app = ctx();
      const { rp, tokens } = await consentedTokens(app);
      await app.app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = app.app.server.address() as AddressInfo;
      const ok = basicAuth(rp.clientId, rp.secret!);
      const body = (token: string) => new URLSearchParams({ token }).toString();
      const socket = connect(port, '127.0.0.1');
      const text = collect(socket);
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(
        rawRequest(body(tokens.access_token), ok) +
          rawRequest(body(tokens.refresh_token!), ok) +
          rawRequest(body(tokens.access_token), basicAuth(rp.clientId, 'wrong')) +
          rawRequest(body(tokens.access_token), ok),
      );
      const deadline = Date.now() + 5000;
      while ((text().match(/HTTP\/1\.1 /g) ?? []).length < 4 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      socket.destroy();
      const statuses = [...text().matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1]);
      assert.deepEqual(statuses, ['200', '200', '401', '200'], text());
      assert.equal((text().match(/"active":true/g) ?? []).length, 3);
    });

    test('a client that stops sending: 408 at REQUEST_TIMEOUT, nothing left behind', async () => {
      const app = ctx();
      const { rp } = await consentedTokens(app);
      if (!app.app.server.listening) await app.app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = app.app.server.address() as AddressInfo;
      const socket = connect(port, '127.0.0.1');
      const text = collect(socket);
      await new Promise((resolve) => socket.once('connect', resolve));
      const started = Date.now();
      socket.write(
        `POST /oauth/introspect HTTP/1.1\r\nHost: x\r\nContent-Type: ${FORM}\r\n` +
          `Authorization: ${basicAuth(rp.clientId, rp.secret!)}\r\nContent-Length: 500\r\n\r\ntoken=abc`,
      );
      await new Promise((resolve) => socket.once('close', resolve));
      const waited = Date.now() - started;
      assert.match(text(), /^HTTP\/1\.1 408/);
      assert.ok(waited < 4000, `closed after ${waited} ms`);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const errors = app.logs.filter((line) => /"level":(50|60)/.test(line));
      assert.deepEqual(errors, []);
    });

    test('a client that disconnects mid-body: no error, app still answers', async () => {
      const app = ctx();
      const { rp, tokens } = await consentedTokens(app);
      if (!app.app.server.listening) await app.app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = app.app.server.address() as AddressInfo;
      const socket = connect(port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(
        `POST /oauth/introspect HTTP/1.1\r\nHost: x\r\nContent-Type: ${FORM}\r\n` +
          `Authorization: ${basicAuth(rp.clientId, rp.secret!)}\r\nContent-Length: 500\r\n\r\ntoken=abc`,
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const after = await introspectRequest(app, basicAuth(rp.clientId, rp.secret!), {
        token: tokens.access_token,
      });
      assert.equal(after.statusCode, 200);
      const errors = app.logs.filter((line) => /"level":(50|60)/.test(line));
      assert.deepEqual(errors, []);
    });
    test('client_credentials token: userinfo refuses; introspection direct = library, also after rotation', async () => {
      const app = ctx();
      const service = await registerClient(app, {
        grantTypes: ['client_credentials'],
        scope: 'posts:read',
        redirectUris: [],
      });
      const cc = await client.clientCredentialsGrant(await serviceParty(app, service), {
        scope: 'posts:read',
      });
      const info = await app.app.inject({
        url: '/oauth/userinfo',
        headers: { authorization: `Bearer ${cc.access_token}` },
      });
      assert.equal(info.statusCode, 401);
      const auth = basicAuth(service.clientId, service.secret!);
      const d1 = await introspectRequest(app, auth, { token: cc.access_token });
      const l1 = await introspectRequest(app, auth, {
        token: cc.access_token,
        token_type_hint: 'refresh_token',
      });
      assert.deepEqual(d1.json(), l1.json());
      assert.equal(d1.json().active, true);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const rotated = await app.services.oauth.clients.rotateSecret(service.clientId, { now: Date.now() });
      assert.ok(rotated && rotated !== 'public');
      const auth2 = basicAuth(service.clientId, rotated.secret);
      const d2 = await introspectRequest(app, auth2, { token: cc.access_token });
      const l2 = await introspectRequest(app, auth2, {
        token: cc.access_token,
        token_type_hint: 'refresh_token',
      });
      assert.deepEqual(d2.json(), l2.json());
      assert.equal(d2.json().active, false);
    });
  },
  { env: { REQUEST_TIMEOUT: '1' } },
);
