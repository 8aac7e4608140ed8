import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordAudit } from '../../src/audit/audit.ts';
import { fakeClock } from '../../src/lib/clock.ts';
import { describeApp, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';

const clock = fakeClock(Date.UTC(2026, 0, 10, 12, 0, 0));
const MINUTE = 60_000;

/** The number under a stat label on the overview. */
function stat(body: string, label: string): number {
  const match = new RegExp(
    `<span class="stat-label">${label}</span><span class="stat-value">([\\d,.]+)</span>`,
  ).exec(body);
  assert.ok(match, `stat "${label}" is shown`);
  return Number(match[1]!.replace(/[,.]/g, ''));
}

/** The user names listed in the users table, in order. */
function listedNames(body: string): string[] {
  return [...body.matchAll(/<a class="strong" href="\/admin\/users\/\d+">([^<]*)<\/a>/g)].map((m) => m[1]!);
}

const tableRows = (body: string) => (body.match(/<tr>\s*<td/g) ?? []).length;

await describeApp(
  'admin panel pages',
  (ctx) => {
    let admin: Browser;
    const people: Record<string, { id: number; email: string; password: string }> = {};

    test('overview: users, verified, active sessions, live tokens, sign-ins and failures', async () => {
      const t = ctx();
      const make = async (key: string, input: Parameters<TestApp['createUser']>[0]) => {
        people[key] = await t.createUser(input);
        clock.advance(1000);
      };
      await make('root', { name: 'Root Admin', email: 'root@example.com', panelAccess: true });
      await make('ada', { name: 'Ada Lovelace', email: 'ada@example.com' });
      await make('legit', { name: '100% Legit', email: 'legit@example.com' });
      await make('under', { name: 'Under_score', email: 'under@example.com', verified: false });
      await make('gone', { name: 'Dis Abled', email: 'disabled@example.com' });
      const { ada, gone, root } = people as Record<string, { id: number; email: string; password: string }>;

      await t.issueToken(ada!.email, ada!.password);
      await t.issueToken(ada!.email, ada!.password, { expires_in: 60 });
      await t.issueToken(gone!.email, gone!.password);
      for (const user of [gone!, ada!]) {
        const web = new Browser(t.app);
        await web.get('/login');
        assert.equal(
          (await web.post('/login', { email: user.email, password: user.password })).statusCode,
          302,
        );
      }
      await t.db.updateTable('users').set({ disabled_at: clock.now() }).where('id', '=', gone!.id).execute();
      const stranger = new Browser(t.app);
      await stranger.get('/login');
      await stranger.post('/login', { email: ada!.email, password: 'not the password' });
      await stranger.post('/login', { email: 'nobody@example.com', password: 'not the password' });
      admin = new Browser(t.app);
      await admin.get('/admin/login');
      assert.equal(
        (await admin.post('/admin/login', { email: root!.email, password: root!.password })).statusCode,
        302,
      );
      clock.advance(2 * MINUTE);

      const home = await admin.get('/admin');
      assert.equal(home.statusCode, 200);
      assert.equal(stat(home.body, 'Users'), 5);
      assert.match(home.body, /1 disabled · 1 with panel access/);
      assert.equal(stat(home.body, 'Verified users'), 4);
      assert.equal(
        stat(home.body, 'Active sessions'),
        2,
        "Ada's web session and the admin's; not the disabled user's",
      );
      assert.equal(stat(home.body, 'Live API tokens'), 1, 'one expired, one of a disabled user');
      assert.equal(stat(home.body, 'Sign-ins'), 6, '3 token logins, 2 web logins, 1 panel login');
      assert.equal(stat(home.body, 'Failed sign-ins'), 2);
      assert.match(
        home.body,
        /Recent failures[\s\S]*nobody@example\.com/,
        'an unknown address is shown as attempted',
      );
      assert.match(home.body, /Panel sign-in/);
    });

    test('users: search by name or e-mail, case-insensitive, with % and _ taken literally', async () => {
      const search = async (q: string) =>
        listedNames((await admin.get(`/admin/users?q=${encodeURIComponent(q)}`)).body);
      assert.deepEqual(await search('%'), ['100% Legit']);
      assert.deepEqual(await search('_'), ['Under_score']);
      assert.deepEqual(await search('\\'), []);
      assert.deepEqual(await search('ADA'), ['Ada Lovelace']);
      assert.deepEqual(await search('legit@example'), ['100% Legit']);
      assert.ok(
        (await search(String(people['under']!.id))).includes('Under_score'),
        'digits also match the id',
      );
      const none = await admin.get('/admin/users?q=zzz-nobody');
      assert.match(none.body, /No user matches “zzz-nobody”\./);
      const all = await admin.get('/admin/users');
      assert.deepEqual(listedNames(all.body), [
        'Dis Abled',
        'Under_score',
        '100% Legit',
        'Ada Lovelace',
        'Root Admin',
      ]);
      assert.match(all.body, />Disabled</);
      assert.match(all.body, />Unverified</);
      const oldest = await admin.get('/admin/users?sort=oldest');
      assert.equal(listedNames(oldest.body)[0], 'Root Admin');
    });

    test('users: names are escaped; 30 matches come in pages of 25', async () => {
      const t = ctx();
      await t.createUser({ name: '<img src=x onerror=alert(1)>', email: 'xss@example.com' });
      const page = await admin.get('/admin/users?q=xss');
      assert.match(page.body, /&lt;img src=x onerror=alert\(1\)&gt;/);
      assert.doesNotMatch(page.body, /<img src=x/);

      for (let i = 1; i <= 30; i++) {
        await t.createUser({ name: `Bulk ${String(i).padStart(2, '0')}`, email: `bulk${i}@example.com` });
        clock.advance(1000);
      }
      const first = await admin.get('/admin/users?q=bulk');
      assert.equal(tableRows(first.body), 25);
      assert.match(first.body, /1–25 of 30/);
      assert.match(first.body, /href="\/admin\/users\?q=bulk&amp;page=2" rel="next"/);
      assert.equal(listedNames(first.body)[0], 'Bulk 30');
      const second = await admin.get('/admin/users?q=bulk&page=2');
      assert.deepEqual(listedNames(second.body), ['Bulk 05', 'Bulk 04', 'Bulk 03', 'Bulk 02', 'Bulk 01']);
      assert.match(second.body, /26–30 of 30/);
      const beyond = await admin.get('/admin/users?q=bulk&page=99');
      assert.equal(beyond.statusCode, 200);
      assert.equal(tableRows(beyond.body), 5, 'past the end shows the last page');
      const odd = await admin.get('/admin/users?q=bulk&page=-1&sort=%00');
      assert.equal(odd.statusCode, 200);
      assert.equal(tableRows(odd.body), 25);
    });

    test('one user: details, tokens with name, abilities, last use and expiry', async () => {
      const t = ctx();
      const ada = people['ada']!;
      await t.issueToken(ada.email, ada.password, {
        device_name: 'ci-deploy',
        abilities: ['posts:read', 'posts:write'],
      });
      const page = await admin.get(`/admin/users/${ada.id}`);
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /<h1>Ada Lovelace<\/h1>/);
      assert.match(page.body, /ci-deploy/);
      assert.match(page.body, /<code class="chip">posts:read<\/code><code class="chip">posts:write<\/code>/);
      assert.match(page.body, /Never/, 'an unused token shows "Never" as last use');
      assert.match(page.body, /Jan 1[01], 2027/, 'expiry one year on (TOKEN_EXPIRATION)');
      assert.match(page.body, /Grant panel access/);
      const self = await admin.get(`/admin/users/${people['root']!.id}`);
      assert.match(self.body, /This is your own account\./);
      assert.doesNotMatch(self.body, /panel-access\/withdraw/);
    });

    test('audit log: filtered by user (e-mail or #id) and kind, paginated, with time, actor, subject and IP', async () => {
      const t = ctx();
      const ada = people['ada']!;
      const legit = people['legit']!;
      const byEmail = await admin.get(`/admin/audit?user=${encodeURIComponent(ada.email)}`);
      assert.match(byEmail.body, /Entries by or about <a href="\/admin\/users\/\d+">Ada Lovelace<\/a>/);
      assert.match(byEmail.body, /Token issued/);
      assert.match(byEmail.body, /Sign-in failed/);
      assert.doesNotMatch(byEmail.body, /disabled@example\.com/);
      assert.match(
        byEmail.body,
        /<td data-label="IP address" class="mono wrap"><div>127\.0\.0\.1<\/div><\/td>/,
      );
      assert.match(byEmail.body, /UTC<\/time>/);
      const byId = await admin.get(`/admin/audit?user=%23${ada.id}`);
      assert.equal(tableRows(byId.body), tableRows(byEmail.body));
      const unknown = await admin.get('/admin/audit?user=nobody%40example.com');
      assert.match(unknown.body, /No user matches “nobody@example\.com”\./);

      const failures = await admin.get('/admin/audit?group=failures');
      assert.equal((failures.body.match(/>Sign-in failed</g) ?? []).length, 2);
      assert.doesNotMatch(failures.body, />Signed in</);
      const bogus = await admin.get('/admin/audit?group=__proto__');
      assert.equal(bogus.statusCode, 200);

      for (let i = 0; i < 60; i++) {
        await recordAudit(
          t.db,
          'password.reset_requested',
          { ip: '192.0.2.7', now: clock.now() },
          legit.id,
          {},
        );
      }
      const first = await admin.get(`/admin/audit?user=${legit.id}&group=passwords`);
      assert.equal(tableRows(first.body), 50);
      assert.match(first.body, /1–50 of 60/);
      const second = await admin.get(`/admin/audit?user=${legit.id}&group=passwords&page=2`);
      assert.equal(tableRows(second.body), 10);
      assert.match(second.body, /192\.0\.2\.7/);
    });

    test('the panel speaks all four languages', async () => {
      const expected: Record<string, string[]> = {
        de: ['Übersicht', 'Benutzer', 'Protokoll', 'Aktive Sitzungen'],
        fr: ['Vue d’ensemble', 'Utilisateurs', 'Journal d’audit', 'Sessions actives'],
        es: ['Resumen', 'Usuarios', 'Registro de auditoría', 'Sesiones activas'],
        en: ['Overview', 'Users', 'Audit log', 'Active sessions'],
      };
      for (const [lang, words] of Object.entries(expected)) {
        const page = await admin.get(`/admin?lang=${lang}`);
        assert.match(page.body, new RegExp(`<html lang="${lang}">`));
        for (const word of words) assert.ok(page.body.includes(word), `${lang}: ${word}`);
      }
      const german = await admin.get(`/admin/users/${people['ada']!.id}?lang=de`);
      assert.match(german.body, /Konto sperren/);
      const login = await new Browser(admin.app).get('/admin/login?lang=fr');
      assert.match(login.body, /Panneau d’administration/);
    });
  },
  { overrides: { clock } },
);
