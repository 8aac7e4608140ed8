import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { escapeLike, searchUserRows } from '../../src/admin/panel.repository.ts';
import { storeResetToken } from '../../src/auth/password-reset/password-resets.repository.ts';
import { insertSessionRowIfAbsent } from '../../src/auth/sessions/sessions.repository.ts';
import { deleteTokens, insertToken } from '../../src/auth/tokens/access-tokens.repository.ts';
import { isUniqueViolation } from '../../src/db/errors.ts';
import {
  deleteIdentityRow,
  findIdentity,
  insertIdentity,
  listIdentities,
  otherSignInWays,
} from '../../src/identities/identities.repository.ts';
import { insertOutboxRow } from '../../src/mail/outbox.repository.ts';
import { claimDueRows } from '../../src/outbox/leased-rows.ts';
import { insertPost } from '../../src/posts/posts.repository.ts';
import { NO_PASSWORD } from '../../src/users/user.ts';
import { deleteUserRow, insertUser, updateUser } from '../../src/users/users.repository.ts';
import { insertWebhookRows } from '../../src/webhooks/webhook-outbox.repository.ts';
import { describeEachDialect } from '../helpers/app.ts';
import { compiled, ROOT } from '../helpers/paths.ts';
import { covered, covers } from './storage/contract.ts';
import { credentialsContract } from './storage/credentials.ts';
import { identitiesContract } from './storage/identities.ts';
import { oauthContract } from './storage/oauth.ts';
import { orgsContract } from './storage/orgs.ts';
import { outboxesContract } from './storage/outboxes.ts';
import { rememberMeContract } from './storage/remember-me.ts';
import { sessionsContract } from './storage/sessions.ts';
import { tokensContract } from './storage/tokens.ts';
import { usersContract } from './storage/users.ts';

/**
 * The storage behaviour the use cases rely on, identical on SQLite, PostgreSQL and MariaDB/MySQL
 * (lucia's adapter-test idea): every exported function of every *.repository.ts under src/, through its
 * signature — the statements that are written differently per dialect (db/portable.ts and the
 * repositories that branch), the comparisons the schema decides, and the conditional writes that
 * decide races (of concurrent calls exactly one wins). The HTTP suites run on SQLite only
 * (helpers/app.ts describeApp): what differs between the databases is proven here.
 */
let counter = 0;
const newUser = (email = `storage${++counter}-${Date.now()}@example.com`) => {
  const now = Date.now();
  return {
    name: 'Storage',
    email,
    password: 'x',
    email_verified_at: null,
    locale: 'en',
    can_access_panel: 0,
    created_at: now,
    updated_at: now,
  };
};

await describeEachDialect('storage contract', (ctx) => {
  covers([insertUser], 'an insert gives back the stored row with its defaults and new id', async () => {
    const { db } = ctx();
    const first = await insertUser(db, newUser());
    const second = await insertUser(db, { ...newUser(), locale: 'de' });
    assert.equal(second.id, first.id + 1);
    assert.equal(second.locale, 'de');
    assert.equal(first.can_access_panel, 0);
    assert.equal(first.disabled_at, null, 'a column the insert left out has its default');
    assert.equal(typeof first.created_at, 'number');
  });

  covers(
    [insertUser],
    'a second row with the same e-mail is a unique violation, recognised on every dialect',
    async () => {
      const { db } = ctx();
      const email = `dup${Date.now()}@example.com`;
      await insertUser(db, newUser(email));
      const error = await insertUser(db, newUser(email)).then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(error !== null, 'the insert was refused');
      assert.equal(isUniqueViolation(error), true, String(error));
      assert.equal(isUniqueViolation(new Error('other')), false);
    },
  );

  covers(
    [insertToken, deleteTokens],
    'strings compare byte for byte: case, accents and trailing spaces all differ',
    async () => {
      // The application lower-cases e-mails before storing them; the schema itself never folds case, so
      // these are three different addresses everywhere (MySQL's default collations would say "equal").
      const { db } = ctx();
      const stamp = Date.now();
      for (const email of [`Ada${stamp}@x.test`, `ada${stamp}@x.test`, `adá${stamp}@x.test`]) {
        await insertUser(db, newUser(email));
      }
      const user = await insertUser(db, newUser());
      const token = (name: string) =>
        insertToken(db, {
          user_id: user.id,
          name,
          token: `${name.length}${name}`.padEnd(64, name === 'CI' ? 'a' : name === 'ci' ? 'b' : 'c'),
          abilities: '["*"]',
          last_used_at: null,
          expires_at: null,
          created_at: stamp,
          updated_at: stamp,
        });
      await token('ci');
      await token('ci ');
      await token('CI');
      assert.equal(await deleteTokens(db, user.id, { name: 'ci' }), 1, 'only the exact name');
      const left = await db
        .selectFrom('personal_access_tokens')
        .select('name')
        .where('user_id', '=', user.id)
        .orderBy('name')
        .execute();
      assert.deepEqual(
        left.map((r) => r.name),
        ['CI', 'ci '],
      );
    },
  );

  covers(
    [insertUser, insertPost],
    '4-byte characters survive, and a post body of 65,535 of them fits',
    async () => {
      const { db } = ctx();
      const user = await insertUser(db, { ...newUser(), name: 'Ada 🦄 Lovelace' });
      assert.equal(user.name, 'Ada 🦄 Lovelace');
      const body = '🦄'.repeat(65_535);
      const post = await insertPost(db, {
        user_id: user.id,
        title: '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
        body,
        created_at: Date.now(),
        updated_at: Date.now(),
      });
      assert.equal(post.body, body);
      assert.equal(post.title, '𝔘𝔫𝔦𝔠𝔬𝔡𝔢');
    },
  );

  covers([updateUser], 'an update that matches a row reports it, even when nothing changes', async () => {
    const { db } = ctx();
    const user = await insertUser(db, newUser());
    assert.equal(await updateUser(db, user.id, { name: user.name }), true);
    assert.equal(await updateUser(db, user.id + 10_000, { name: 'x' }), false);
  });

  covers(
    [searchUserRows, escapeLike],
    'a search term with %, _, ! or \\ matches those characters literally',
    async () => {
      const { db } = ctx();
      const stamp = Date.now();
      for (const name of [`50% off ${stamp}`, `50x off ${stamp}`, `a_b!c\\d ${stamp}`, `aXb!c\\d ${stamp}`]) {
        await insertUser(db, { ...newUser(), name });
      }
      const names = async (query: string) =>
        (await searchUserRows(db, { query, newestFirst: false, limit: 10, offset: 0 })).rows.map(
          (r) => r.name,
        );
      assert.deepEqual(await names(`50% off ${stamp}`), [`50% off ${stamp}`]);
      assert.deepEqual(await names(`a_b!c\\d ${stamp}`), [`a_b!c\\d ${stamp}`]);
      assert.deepEqual(await names(`A_B!C\\D ${stamp}`), [`a_b!c\\d ${stamp}`], 'case-insensitive search');
    },
  );

  covers(
    [insertSessionRowIfAbsent],
    'of 10 concurrent inserts of one session id, exactly one reports that it inserted',
    async () => {
      const { db } = ctx();
      const user = await insertUser(db, newUser());
      const id = `race-${Date.now()}`.padEnd(64, '0');
      const now = Date.now();
      const results = await Promise.all(
        Array.from({ length: 10 }, () =>
          insertSessionRowIfAbsent(db, {
            id,
            guard: 'web',
            user_id: user.id,
            data: '{}',
            ip_address: null,
            user_agent: null,
            created_at: now,
            last_activity: now,
          }),
        ),
      );
      assert.equal(results.filter(Boolean).length, 1);
    },
  );

  covers(
    [storeResetToken],
    'a reset token is stored by one of 10 concurrent requests, then replaced only after the window',
    async () => {
      const { db } = ctx();
      const user = await insertUser(db, newUser());
      const now = Date.now();
      const store = (hash: string, at: number) =>
        db.transaction().execute((trx) => storeResetToken(trx, user.id, hash, at, 60_000));
      const first = await Promise.all(Array.from({ length: 10 }, (_, i) => store(`first-${i}`, now)));
      assert.equal(first.filter(Boolean).length, 1, 'one new row');
      const again = await Promise.all(Array.from({ length: 10 }, (_, i) => store(`again-${i}`, now + 1000)));
      assert.equal(again.filter(Boolean).length, 0, 'within the minute nothing is replaced');
      const later = await Promise.all(
        Array.from({ length: 10 }, (_, i) => store(`later-${i}`, now + 61_000)),
      );
      assert.equal(later.filter(Boolean).length, 1, 'after the minute exactly one replaces it');
      const row = await db
        .selectFrom('password_reset_tokens')
        .selectAll()
        .where('user_id', '=', user.id)
        .executeTakeFirstOrThrow();
      assert.match(row.token_hash, /^later-\d$/);
      assert.equal(row.created_at, now + 61_000);
    },
  );

  covers(
    [insertOutboxRow],
    'two concurrent outbox claims never take the same row, and together take every due row',
    async () => {
      const { db, services } = ctx();
      const now = Date.now() + 3_600_000; // past anything the app's own worker queued
      const ids: number[] = [];
      for (let i = 0; i < 20; i++) {
        ids.push(
          await insertOutboxRow(db, {
            kind: 'storage-test',
            recipient: `claim${i}@example.com`,
            payload: 'sealed',
            attempts: 0,
            available_at: now - 1000,
            locked_until: null,
            sent_at: null,
            failed_at: null,
            last_error: null,
            created_at: now - 1000,
          }),
        );
      }
      const dialect = services.database.dialect;
      const claims = await Promise.all(
        Array.from({ length: 4 }, () =>
          claimDueRows(services.database.db, dialect, 'mail_outbox', now, 120_000, 10),
        ),
      );
      const claimed = claims.flat().filter((row) => ids.includes(row.id));
      assert.equal(new Set(claimed.map((r) => r.id)).size, claimed.length, 'no row claimed twice');
      assert.equal(claimed.length, 20, 'every due row claimed');
      for (const row of claimed) {
        assert.equal(row.locked_until, now + 120_000);
        assert.equal(row.attempts, 1);
      }
    },
  );

  covers(
    [insertWebhookRows],
    'claims scoped to one webhook endpoint take only its rows, and never one row twice',
    async () => {
      const { db, services } = ctx();
      const now = Date.now() + 3_600_000;
      const row = (i: number, endpoint: 'a' | 'b') => ({
        message_id: `msg_storage_${i}`,
        type: 'user.login',
        endpoint_hash: endpoint.repeat(64),
        endpoint: `http://${endpoint}.example/hooks`,
        payload: '{}',
        attempts: 0,
        available_at: now - 1000,
        locked_until: null,
        sent_at: null,
        failed_at: null,
        last_status: null,
        last_error: null,
        created_at: now - 1000,
      });
      await insertWebhookRows(db, [
        ...Array.from({ length: 10 }, (_, i) => row(i, 'a')),
        ...Array.from({ length: 10 }, (_, i) => row(i, 'b')),
      ]);
      const dialect = services.database.dialect;
      const claimed: Awaited<ReturnType<typeof claimDueRows<'webhook_outbox'>>> = [];
      const claim = async (endpoint: 'a' | 'b') => {
        const rows = await claimDueRows(services.database.db, dialect, 'webhook_outbox', now, 60_000, 6, {
          column: 'endpoint_hash',
          value: endpoint.repeat(64),
        });
        assert.ok(rows.length <= 6, 'never more than the limit');
        assert.ok(
          rows.every((r) => r.endpoint_hash === endpoint.repeat(64)),
          'only the scope is claimed',
        );
        claimed.push(...rows);
        return rows.length;
      };
      // Two rounds of four concurrent claims, two per endpoint. On a table this small MySQL may scan past
      // the endpoint index and briefly lock another endpoint's rows, which a concurrent claim then skips
      // (SKIP LOCKED): a row may wait for a later poll, never be taken twice. Then claims one at a time
      // until none takes anything: every due row is claimed in the end.
      for (let round = 0; round < 2; round++) await Promise.all((['a', 'a', 'b', 'b'] as const).map(claim));
      for (const endpoint of ['a', 'b'] as const) while ((await claim(endpoint)) > 0);
      assert.equal(new Set(claimed.map((r) => r.id)).size, claimed.length, 'no row claimed twice');
      assert.equal(claimed.length, 20, 'every due row claimed');
    },
  );

  covers(
    [insertIdentity, findIdentity, listIdentities],
    'an identity is one (provider, subject): linked to one user only, byte for byte, one per provider per user',
    async () => {
      const { db } = ctx();
      const [ada, bob] = [await insertUser(db, newUser()), await insertUser(db, newUser())];
      const subject = `sub-${Date.now()}`;
      const identity = (userId: number, provider: string, sub: string) => {
        const now = Date.now();
        return insertIdentity(db, {
          user_id: userId,
          provider,
          subject: sub,
          email: 'ada@example.com',
          email_verified: 1,
          created_at: now,
          updated_at: now,
          last_used_at: null,
        });
      };
      const id = await identity(ada.id, 'acme', subject);
      const refused = (promise: Promise<unknown>) =>
        promise.then(
          () => null,
          (e: unknown) => e,
        );
      assert.equal(
        isUniqueViolation(await refused(identity(bob.id, 'acme', subject))),
        true,
        'linked to another user',
      );
      assert.equal(
        isUniqueViolation(await refused(identity(ada.id, 'acme', `${subject}-2`))),
        true,
        'a second acme identity',
      );
      // Subjects are opaque: another case or a trailing space is another person (MySQL's default collation
      // would call them equal and refuse, or find the wrong user).
      await identity(bob.id, 'acme', subject.toUpperCase());
      await identity(bob.id, 'github', subject);
      assert.equal((await findIdentity(db, 'acme', subject))?.id, id);
      assert.equal((await findIdentity(db, 'acme', subject.toUpperCase()))?.user_id, bob.id);
      assert.equal(await findIdentity(db, 'acme', `${subject} `), undefined);
      assert.deepEqual(
        (await listIdentities(db, bob.id)).map((i) => i.provider),
        ['acme', 'github'],
      );
    },
  );

  covers(
    [insertIdentity],
    'of 10 concurrent links of one identity to 10 users, exactly one succeeds',
    async () => {
      const { db } = ctx();
      const users = await Promise.all(Array.from({ length: 10 }, () => insertUser(db, newUser())));
      const subject = `race-${Date.now()}`;
      const now = Date.now();
      const results = await Promise.allSettled(
        users.map((user) =>
          insertIdentity(db, {
            user_id: user.id,
            provider: 'acme',
            subject,
            email: null,
            email_verified: 0,
            created_at: now,
            updated_at: now,
            last_used_at: null,
          }),
        ),
      );
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      for (const r of results) if (r.status === 'rejected') assert.equal(isUniqueViolation(r.reason), true);
    },
  );

  covers(
    [otherSignInWays, deleteIdentityRow],
    'the other ways to sign in count a password, passkeys and other identities; a deleted user takes its identities',
    async () => {
      const { db } = ctx();
      const user = await insertUser(db, { ...newUser(), password: NO_PASSWORD });
      const now = Date.now();
      const link = (provider: string) =>
        insertIdentity(db, {
          user_id: user.id,
          provider,
          subject: `${provider}-${user.id}`,
          email: null,
          email_verified: 0,
          created_at: now,
          updated_at: now,
          last_used_at: null,
        });
      const acme = await link('acme');
      assert.deepEqual(await otherSignInWays(db, user.id, acme), {
        password: false,
        passkeys: 0,
        identities: 0,
      });
      const github = await link('github');
      assert.deepEqual(await otherSignInWays(db, user.id, acme), {
        password: false,
        passkeys: 0,
        identities: 1,
      });
      await updateUser(db, user.id, { password: 'x' });
      assert.equal((await otherSignInWays(db, user.id, acme)).password, true);
      assert.equal(await deleteIdentityRow(db, user.id + 1, github), false, 'only its owner unlinks it');
      assert.equal(await deleteIdentityRow(db, user.id, github), true);
      await deleteUserRow(db, user.id);
      assert.equal(await findIdentity(db, 'acme', `acme-${user.id}`), undefined, 'cascaded');
    },
  );

  for (const suite of [
    usersContract,
    tokensContract,
    sessionsContract,
    rememberMeContract,
    credentialsContract,
    outboxesContract,
    oauthContract,
    orgsContract,
    identitiesContract,
  ])
    suite(ctx);
});

/** The compiled repository modules (every *.repository.js under dist/src/): what the contract must cover. */
function repositoryFiles(folder = compiled('src')): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return repositoryFiles(path);
    return entry.name.endsWith('.repository.js') ? [path] : [];
  });
}

test('the storage contract covers every exported function of every repository', async () => {
  const files = repositoryFiles();
  assert.ok(files.length >= 18, `repositories found: ${files.length}`);
  const missing: string[] = [];
  for (const file of files) {
    const exports = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(exports))
      if (typeof value === 'function' && !covered.has(value as () => unknown))
        missing.push(`${relative(join(ROOT, 'dist'), file)}: ${name}`);
  }
  assert.deepEqual(missing, [], 'add a contract test (test/contract/storage/) for each');
});
