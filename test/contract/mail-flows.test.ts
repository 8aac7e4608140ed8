import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type PasswordResetDeps,
  requestPasswordReset,
  resetPassword,
} from '../../src/auth/password-reset/password-reset.ts';
import {
  checkVerificationLink,
  markEmailVerified,
  queueVerificationMail,
  type VerificationSettings,
  verificationLink,
} from '../../src/auth/verification/email-verification.ts';
import { fakeClock } from '../../src/lib/clock.ts';
import { hmacSha256Hex, sha1Hex } from '../../src/lib/crypto.ts';
import { createMailing } from '../../src/mail/mailing.ts';
import { openPayload } from '../../src/mail/outbox.ts';
import { createPayloadCipher } from '../../src/mail/payload-cipher.ts';
import { countRows, describeEachDialect, type TestApp } from '../helpers/app.ts';

const clock = fakeClock(Date.UTC(2026, 6, 1, 12));
const MINUTE = 60_000;

function settings(ctx: TestApp): VerificationSettings {
  return { appUrl: ctx.config.appUrl, appKey: ctx.config.appKey, expireMinutes: 60 };
}

function resetDeps(ctx: TestApp): PasswordResetDeps {
  return {
    db: ctx.db,
    hasher: ctx.services.hasher,
    mailing: createMailing(ctx.config, ctx.services.i18n, ctx.services.outbox),
    expireMinutes: ctx.config.passwordResetExpireMinutes,
    throttle: {
      limiter: ctx.services.limiter,
      perClient: { max: 5, windowSeconds: 60 },
      perAccount: { max: 20, windowSeconds: 900 },
    },
  };
}

/** The messages waiting in the outbox for `email`, opened (the worker is not started here). */
async function queued(ctx: TestApp, email: string) {
  const cipher = createPayloadCipher(ctx.config.appKey);
  const rows = await ctx.db
    .selectFrom('mail_outbox')
    .selectAll()
    .where('recipient', '=', email)
    .orderBy('id')
    .execute();
  return rows.map((r) => openPayload(cipher, r.payload));
}

const audit = () => ({ ip: '127.0.0.1', now: clock.now() });

await describeEachDialect(
  'mail flows (domain)',
  (ctx) => {
    test('verification links: shape, HMAC over the APP_URL link, expiry, other user, tampering', async () => {
      const app = ctx();
      const user = { id: 42, email: 'ada@example.com' };
      const s = settings(app);
      const link = verificationLink(s, user, clock.now());
      const expires = Math.floor(clock.now() / 1000) + 3600;
      const unsigned = `http://gatehouse.test/email/verify/42/${sha1Hex('ada@example.com')}?expires=${expires}`;
      assert.equal(link.url, `${unsigned}&signature=${hmacSha256Hex(app.config.appKey, unsigned)}`);
      const presented = {
        id: '42',
        hash: sha1Hex(user.email),
        expires: String(expires),
        signature: link.signature,
      };
      assert.equal(checkVerificationLink(s, user, presented, clock.now()), 'valid');
      assert.equal(checkVerificationLink(s, user, presented, expires * 1000), 'expired');
      assert.equal(
        checkVerificationLink(s, { id: 43, email: user.email }, presented, clock.now()),
        'other-user',
      );
      assert.equal(
        checkVerificationLink(s, { id: 42, email: 'new@example.com' }, presented, clock.now()),
        'other-user',
      );
      for (const bad of [
        { ...presented, expires: String(expires + 1) },
        { ...presented, signature: link.signature.replace(/^./, (c) => (c === '0' ? '1' : '0')) },
        { ...presented, signature: undefined },
        { ...presented, signature: ['x'] },
        { ...presented, id: '042' },
        { ...presented, hash: 'zz' },
      ]) {
        assert.equal(checkVerificationLink(s, user, bad, clock.now()), 'invalid', JSON.stringify(bad));
      }
      const otherKey = { ...s, appKey: Buffer.alloc(32, 9) };
      assert.equal(checkVerificationLink(otherKey, user, presented, clock.now()), 'invalid');
    });

    test('20 concurrent verifications: exactly one winner and one audit row', async () => {
      const app = ctx();
      const user = await app.createUser({ verified: false });
      const results = await Promise.all(
        Array.from({ length: 20 }, () => markEmailVerified(app.db, user.id, audit())),
      );
      assert.equal(results.filter(Boolean).length, 1);
      const rows = await app.db
        .selectFrom('audit_log')
        .selectAll()
        .where('event', '=', 'email.verified')
        .where('subject_id', '=', user.id)
        .execute();
      assert.equal(rows.length, 1);
    });

    test('a verification mail queued in a rolled-back transaction does not exist', async () => {
      const app = ctx();
      const before = await countRows(app.db, 'mail_outbox');
      const mailing = createMailing(app.config, app.services.i18n, app.services.outbox);
      await assert.rejects(
        app.db.transaction().execute(async (trx) => {
          await queueVerificationMail(
            trx,
            mailing,
            settings(app),
            { id: 1, email: 'x@example.com', name: 'X', locale: 'de' },
            clock.now(),
          );
          throw new Error('registration failed');
        }),
      );
      assert.equal(await countRows(app.db, 'mail_outbox'), before);
    });

    test('reset requests: unknown addresses queue nothing; one mail a minute; newer replaces older', async () => {
      const app = ctx();
      const deps = resetDeps(app);
      const user = await app.createUser();
      const before = await countRows(app.db, 'mail_outbox');
      await requestPasswordReset(deps, 'nobody@example.com', 'en', audit());
      assert.equal(await countRows(app.db, 'mail_outbox'), before);

      await Promise.all(
        Array.from({ length: 10 }, () => requestPasswordReset(deps, user.email.toUpperCase(), 'fr', audit())),
      );
      let mails = await queued(app, user.email);
      assert.equal(mails.length, 1, 'concurrent requests queue one mail');
      assert.equal(mails[0]!.locale, 'fr');
      const first = mails[0]!.secrets[0]!;
      assert.ok(first.length >= 43, '256-bit token');
      const row = await app.db
        .selectFrom('password_reset_tokens')
        .selectAll()
        .where('user_id', '=', user.id)
        .executeTakeFirstOrThrow();
      assert.notEqual(row.token_hash, first, 'only the hash is stored');

      clock.advance(59_000);
      await requestPasswordReset(deps, user.email, 'en', audit());
      assert.equal((await queued(app, user.email)).length, 1, 'throttled within the minute');

      clock.advance(2_000);
      await requestPasswordReset(deps, user.email, 'en', audit());
      mails = await queued(app, user.email);
      assert.equal(mails.length, 2);
      const second = mails[1]!.secrets[0]!;
      const input = { email: user.email, password: 'a much better passphrase' };
      assert.deepEqual(await resetPassword(deps, { ...input, token: first }, 'en', audit()), {
        status: 'invalid',
        reason: 'other_link',
      });
      assert.equal((await resetPassword(deps, { ...input, token: second }, 'en', audit())).status, 'reset');
    });

    test('20 concurrent resets with one token: one succeeds, all is revoked in the same transaction', async () => {
      const app = ctx();
      const deps = resetDeps(app);
      const user = await app.createUser();
      const token = await app.issueToken(user.email, user.password);
      await app.db
        .insertInto('sessions')
        .values({
          id: 'x'.repeat(64),
          guard: 'web',
          user_id: user.id,
          data: '{}',
          ip_address: null,
          user_agent: null,
          created_at: clock.now(),
          last_activity: clock.now(),
        })
        .execute();
      await app.db
        .insertInto('remember_tokens')
        .values({
          selector: 's'.repeat(16),
          validator_hash: 'h',
          user_id: user.id,
          guard: 'web',
          expires_at: clock.now() + MINUTE,
          created_at: clock.now(),
          last_used_at: null,
        })
        .execute();
      clock.advance(2 * MINUTE);
      await requestPasswordReset(deps, user.email, 'en', audit());
      const mails = await queued(app, user.email);
      const secret = mails.at(-1)!.secrets[0]!;
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          resetPassword(
            deps,
            { token: secret, email: user.email, password: `new passphrase number ${i}` },
            'es',
            audit(),
          ),
        ),
      );
      const winners = results.filter((r) => r.status === 'reset');
      assert.equal(winners.length, 1);
      const stored = await app.db
        .selectFrom('users')
        .select('password')
        .where('id', '=', user.id)
        .executeTakeFirstOrThrow();
      const index = results.findIndex((r) => r.status === 'reset');
      assert.ok(await app.services.hasher.verify(stored.password, `new passphrase number ${index}`));
      for (const table of [
        'sessions',
        'remember_tokens',
        'personal_access_tokens',
        'password_reset_tokens',
      ] as const) {
        const left = await app.db
          .selectFrom(table)
          .select('user_id')
          .where('user_id', '=', user.id)
          .execute();
        assert.equal(left.length, 0, table);
      }
      const me = await app.app.inject({ url: '/api/user', headers: { authorization: `Bearer ${token}` } });
      assert.equal(me.statusCode, 401);
      const notices = (await queued(app, user.email)).filter((m) => m.kind === 'password-changed');
      assert.equal(notices.length, 1);
      assert.equal(notices[0]!.locale, 'es');
      const audits = await app.db
        .selectFrom('audit_log')
        .select('event')
        .where('event', '=', 'password.reset')
        .where('subject_id', '=', user.id)
        .execute();
      assert.equal(audits.length, 1);
    });

    test('reset tokens expire after PASSWORD_RESET_EXPIRE minutes', async () => {
      const app = ctx();
      const deps = resetDeps(app);
      const user = await app.createUser();
      clock.advance(2 * MINUTE);
      await requestPasswordReset(deps, user.email, 'en', audit());
      const secret = (await queued(app, user.email)).at(-1)!.secrets[0]!;
      clock.advance(60 * MINUTE);
      const result = await resetPassword(
        deps,
        { token: secret, email: user.email, password: 'late passphrase here' },
        'en',
        audit(),
      );
      assert.deepEqual(result, { status: 'invalid', reason: 'expired' });
      const wrongEmail = await resetPassword(
        deps,
        { token: secret, email: 'other@example.com', password: 'late passphrase here' },
        'en',
        audit(),
      );
      assert.deepEqual(wrongEmail, { status: 'invalid', reason: 'unknown_address' });
    });
  },
  { overrides: { clock } },
);
