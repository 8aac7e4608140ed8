import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sessionKey } from '../../src/auth/sessions/sessions.ts';
import { fakeClock } from '../../src/lib/clock.ts';
import { auditEvents, sendJson, signedInBrowser } from '../helpers/account.ts';
import { describeApp } from '../helpers/app.ts';

const clock = fakeClock(Date.UTC(2026, 7, 1, 9));
const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';
const SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

await describeApp(
  'account: browser sessions (docs/guides/account.md)',
  (ctx) => {
    test('the list: device, IP, current, remembered; opaque ids; a remembered browser whose session ended stays listed', async () => {
      const t = ctx();
      const { user, browser } = await signedInBrowser(t, { headers: { 'user-agent': FIREFOX } });
      clock.advance(1000);
      const { browser: phone } = await signedInBrowser(t, {
        user,
        remember: true,
        headers: { 'user-agent': SAFARI },
      });
      const list = (await browser.get('/user/sessions', { accept: 'application/json' })).json() as Record<
        string,
        unknown
      >[];
      assert.equal(list.length, 2);
      assert.deepEqual(Object.keys(list[0]!).sort(), [
        'browser',
        'id',
        'ip_address',
        'is_current',
        'last_active_at',
        'platform',
        'remembered',
        'user_agent',
      ]);
      const [first, second] = list;
      assert.equal(first!.browser, 'Mobile Safari 17');
      assert.equal(first!.platform, 'iOS 17.5');
      assert.equal(first!.remembered, true);
      assert.equal(first!.is_current, false);
      assert.equal(second!.browser, 'Firefox 128');
      assert.equal(second!.platform, 'Windows 10');
      assert.equal(second!.is_current, true);
      assert.equal(second!.remembered, false);
      assert.equal(second!.ip_address, '127.0.0.1');
      const cookie = browser.cookies.get('gatehouse_session')!;
      for (const entry of list) {
        assert.match(String(entry.id), /^[0-9a-f]{40}$/);
        assert.notEqual(entry.id, cookie);
        assert.notEqual(entry.id, sessionKey(cookie));
      }
      // The phone's session ends (idle, server-side) but its remember-me cookie still works: still listed.
      await t.db
        .deleteFrom('sessions')
        .where('id', '=', sessionKey(phone.cookies.get('gatehouse_session')!))
        .execute();
      const after = (await browser.get('/user/sessions', { accept: 'application/json' })).json() as Record<
        string,
        unknown
      >[];
      assert.equal(after.length, 2);
      const remembered = after.find((s) => s.is_current === false)!;
      assert.equal(remembered.remembered, true);
      assert.equal(remembered.browser, 'Mobile Safari 17');
      // The page lists both.
      const page = await browser.get('/profile');
      assert.match(page.body, /Mobile Safari 17 · iOS 17\.5/);
      assert.match(page.body, /This browser/);
    });

    test("DELETE one: its session and its remember-me token end; another user's id is 404", async () => {
      const t = ctx();
      const { user, browser } = await signedInBrowser(t);
      const { browser: other } = await signedInBrowser(t, {
        user,
        remember: true,
        headers: { 'user-agent': SAFARI },
      });
      const { browser: stranger } = await signedInBrowser(t);
      const list = (await browser.get('/user/sessions', { accept: 'application/json' })).json() as {
        id: string;
        is_current: boolean;
      }[];
      const target = list.find((s) => !s.is_current)!;
      const foreign = await sendJson(stranger, 'DELETE', `/user/sessions/${target.id}`);
      assert.equal(foreign.statusCode, 404);
      assert.equal((await sendJson(browser, 'DELETE', `/user/sessions/${'0'.repeat(40)}`)).statusCode, 404);
      const ended = await browser.post(`/user/sessions/${target.id}`, { _method: 'DELETE' });
      assert.equal(ended.statusCode, 302);
      assert.equal(ended.headers.location, '/profile#browser-sessions');
      assert.equal(
        (await other.get('/dashboard')).statusCode,
        302,
        'neither the session nor the remember cookie signs it in',
      );
      const rows = await t.db
        .selectFrom('remember_tokens')
        .select('id')
        .where('user_id', '=', user.id)
        .execute();
      assert.equal(rows.length, 0);
      assert.ok((await auditEvents(t, user.id)).includes('user.session_ended'));
    });

    test('DELETE other-browser-sessions: password required; every other session and remember token ends, this one stays', async () => {
      const t = ctx();
      const { user, browser } = await signedInBrowser(t, { remember: true });
      const { browser: b2 } = await signedInBrowser(t, { user, remember: true });
      const { browser: b3 } = await signedInBrowser(t, { user });
      const missing = await sendJson(browser, 'DELETE', '/user/other-browser-sessions', {});
      assert.equal(missing.statusCode, 422);
      const wrong = await sendJson(browser, 'DELETE', '/user/other-browser-sessions', {
        password: 'wrong password',
      });
      assert.equal(wrong.statusCode, 422);
      assert.deepEqual(wrong.json().errors, { password: ['The provided password was incorrect.'] });
      assert.equal((await b2.get('/dashboard')).statusCode, 200, 'a wrong password changes nothing');
      const ok = await sendJson(browser, 'DELETE', '/user/other-browser-sessions', {
        password: user.password,
      });
      assert.equal(ok.statusCode, 204);
      assert.equal((await b2.get('/dashboard')).statusCode, 302);
      assert.equal((await b3.get('/dashboard')).statusCode, 302);
      assert.equal((await browser.get('/dashboard')).statusCode, 200);
      const tokens = await t.db
        .selectFrom('remember_tokens')
        .select('id')
        .where('user_id', '=', user.id)
        .execute();
      assert.equal(tokens.length, 1, "only this browser's remember-me token is left");
      const list = (await browser.get('/user/sessions', { accept: 'application/json' })).json() as unknown[];
      assert.equal(list.length, 1);
    });

    test('guests: 401 JSON, 302 for pages; CSRF 419', async () => {
      const t = ctx();
      const json = await t.app.inject({ url: '/user/sessions', headers: { accept: 'application/json' } });
      assert.equal(json.statusCode, 401);
      const page = await t.app.inject({ url: '/user/sessions' });
      assert.equal(page.statusCode, 302);
      const { browser } = await signedInBrowser(t);
      const noCsrf = await t.app.inject({
        method: 'DELETE',
        url: '/user/other-browser-sessions',
        payload: { password: 'x' },
        headers: { accept: 'application/json', cookie: browser.cookieHeader() },
      });
      assert.equal(noCsrf.statusCode, 419);
    });
  },
  { overrides: { clock } },
);
