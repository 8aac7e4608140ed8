import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countRows, describeApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';

await describeApp('web session core', (ctx) => {
  test('login rotates the session id, logout kills it server-side', async () => {
    const { app, createUser } = ctx();
    const user = await createUser();
    const browser = new Browser(app);
    const form = await browser.get('/login');
    assert.equal(form.statusCode, 200);
    const guestId = browser.cookies.get('gatehouse_session');
    assert.ok(guestId, 'guest gets a session cookie for CSRF');
    assert.ok(browser.csrf);

    const login = await browser.post('/login', { email: user.email, password: user.password });
    assert.equal(login.statusCode, 302);
    assert.equal(login.headers.location, '/dashboard');
    const loggedInId = browser.cookies.get('gatehouse_session');
    assert.notEqual(loggedInId, guestId);

    assert.equal((await browser.get('/dashboard')).statusCode, 200);
    const old = await app.inject({ url: '/dashboard', cookies: { gatehouse_session: guestId! } });
    assert.equal(old.statusCode, 302);

    await browser.get('/dashboard');
    const logout = await browser.post('/logout');
    assert.equal(logout.statusCode, 302);
    assert.equal(logout.headers.location, '/');
    const replay = await app.inject({ url: '/dashboard', cookies: { gatehouse_session: loggedInId! } });
    assert.equal(replay.statusCode, 302);
    assert.equal(replay.headers.location, '/login');
  });

  test('failed login: 422 form with auth.failed, no redirect; 419 without token', async () => {
    const { app, createUser, db } = ctx();
    const user = await createUser();
    const browser = new Browser(app);
    await browser.get('/login');
    const failed = await browser.post('/login', { email: user.email, password: 'wrong-password' });
    assert.equal(failed.statusCode, 422);
    assert.match(failed.body, /These credentials do not match our records\./);
    assert.match(failed.body, new RegExp(`value="${user.email}"`));
    assert.doesNotMatch(failed.body, /wrong-password/);
    const sessions = await countRows(db, 'sessions');
    const noToken = await browser.post('/login', { _token: '', email: user.email, password: user.password });
    assert.equal(noToken.statusCode, 419);
    assert.equal(await countRows(db, 'sessions'), sessions);
  });

  test('intended URL and remember-me cookie restore a session', async () => {
    const { app, createUser } = ctx();
    const user = await createUser();
    const browser = new Browser(app);
    const bounced = await browser.get('/dashboard');
    assert.equal(bounced.headers.location, '/login');
    await browser.get('/login');
    const login = await browser.post('/login', { email: user.email, password: user.password, remember: '1' });
    assert.equal(login.headers.location, '/dashboard');
    assert.ok(browser.cookies.get('gatehouse_remember'));
    browser.cookies.delete('gatehouse_session');
    const restored = await browser.get('/dashboard');
    assert.equal(restored.statusCode, 200);
    assert.ok(browser.cookies.get('gatehouse_session'));
  });
});
