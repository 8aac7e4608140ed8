import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { sendJson, signedInBrowser } from '../helpers/account.ts';
import { describeEachDialect, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { extractLinks, startSmtpSink } from '../helpers/smtp-sink.ts';

const sink = await startSmtpSink();
after(() => sink.close());

const pendingOf = async (t: TestApp, id: number) =>
  (await t.db.selectFrom('users').select('pending_email').where('id', '=', id).executeTakeFirstOrThrow())
    .pending_email;

/** A path of this app from an absolute link in a mail. */
const local = (link: string) => link.replace('http://gatehouse.test', '');

/**
 * docs/guides/account.md "Change your e-mail address" (issue 27, item 8, ASVS V3.7.1): when a change is
 * requested, the *current* address is told at once, with a link that cancels it — a stolen session cannot
 * move the account to another mailbox unnoticed. The link works without signing in (its signature names
 * the account and the pending address); opening it only shows a button (mail scanners open links), and
 * the button cancels.
 */
await describeEachDialect(
  'an e-mail change is told to the old address, with a way to cancel',
  (ctx) => {
    test('the old address gets a mail with a cancel link; the button cancels, the change link then fails', async () => {
      const t = ctx();
      t.services.outbox.start();
      after(() => t.services.outbox.stop());
      const { user, browser } = await signedInBrowser(t);
      const newAddress = `moved-${Date.now()}@example.net`;
      const request = await sendJson(browser, 'PUT', '/user/profile-information', {
        name: user.name,
        email: newAddress,
      });
      assert.equal(request.statusCode, 200, request.body);

      const notice = await sink.waitForMail((m) => m.envelope.to[0] === user.email);
      assert.match(notice.subject, /change of your e-mail address/i);
      assert.ok(notice.text.includes(newAddress), 'the mail names the address asked for');
      const cancel = extractLinks(notice).find((l) => l.includes('/email/cancel-change/'));
      assert.ok(cancel, `a cancel link: ${extractLinks(notice).join(' ')}`);
      const change = await sink.waitForMail((m) => m.envelope.to[0] === newAddress);
      const changeLink = extractLinks(change).find((l) => l.includes('/email/change/'))!;

      // Opening it (a stranger's browser: the owner need not be signed in) changes nothing yet.
      const owner = new Browser(t.app);
      const page = await owner.get(local(cancel));
      assert.equal(page.statusCode, 200, page.body);
      assert.ok(page.body.includes(newAddress));
      assert.equal(await pendingOf(t, user.id), newAddress, 'a GET cancels nothing (mail scanners)');
      // A tampered link is refused.
      const forged = await owner.get(local(cancel).replace(/signature=[0-9a-f]/, 'signature=z'));
      assert.equal(forged.statusCode, 403);

      const done = await owner.post(local(cancel));
      assert.ok(done.statusCode < 400, `${done.statusCode} ${done.body}`);
      assert.equal(await pendingOf(t, user.id), null, 'the change is cancelled');
      const audit = await t.db
        .selectFrom('audit_log')
        .select('event')
        .where('subject_id', '=', user.id)
        .where('event', '=', 'user.email_change_cancelled')
        .execute();
      assert.equal(audit.length, 1);

      // The link sent to the new address no longer works.
      const late = await browser.get(local(changeLink), { accept: 'application/json' });
      assert.equal(late.statusCode, 403, late.body);
      const row = await t.db
        .selectFrom('users')
        .select('email')
        .where('id', '=', user.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.email, user.email);
    });
  },
  { env: sink.env },
);
