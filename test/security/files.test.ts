import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { type ServerProcess, startServer } from '../helpers/process.ts';

const root = mkdtempSync(join(tmpdir(), 'gatehouse-files-'));
const storage = join(root, 'storage');
const database = join(storage, 'database.sqlite');
after(() => rmSync(root, { recursive: true, force: true }));

function mode(path: string): string {
  return (statSync(path).mode & 0o777).toString(8);
}

async function until<T>(what: string, probe: () => T | undefined, ms = 15_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() - started > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Registers through the form (GET for the CSRF token and cookie, then POST): the mail is logged. */
async function register(server: ServerProcess): Promise<void> {
  const page = await fetch(`${server.url}/register`);
  const cookie = page.headers
    .getSetCookie()
    .map((line) => line.split(';', 1)[0])
    .join('; ');
  const token = /name="_token" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const posted = await fetch(`${server.url}/register`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      _token: token,
      name: 'Files Test',
      email: 'files@example.com',
      password: 'a long and unusual passphrase',
      password_confirmation: 'a long and unusual passphrase',
    }),
  });
  assert.equal(posted.status, 302, await posted.text());
}

function serverEnv(trustProxy: string): Record<string, string> {
  return {
    STORAGE_PATH: storage,
    DATABASE_URL: `sqlite:${database}`,
    MAIL_MAILER: 'log',
    TRUST_PROXY: trustProxy,
  };
}

/**
 * docs/security.md "Files": the SQLite database (and its -wal/-shm), storage/ and storage/mail are
 * created readable by the owner only (0600/0700), and ones left with looser modes are tightened.
 * "Logs": a TRUST_PROXY that is a hop count rather than addresses is warned about at start.
 */
test('files: database, -wal/-shm, storage/ and storage/mail are owner-only, created and tightened', async () => {
  // DATABASE_URL's folder must exist (config); made as an operator's shell would, 0755.
  mkdirSync(storage, { mode: 0o755 });
  chmodSync(storage, 0o755);
  const first = await startServer({ env: serverEnv('1') });
  try {
    await register(first);
    const mails = join(storage, 'mail');
    const mail = await until('the logged mail', () =>
      existsSync(mails) ? readdirSync(mails).find((name) => name.endsWith('.eml')) : undefined,
    );
    assert.equal(mode(storage), '700', 'storage/ (made 0755 before the start)');
    assert.equal(mode(mails), '700', 'storage/mail');
    assert.equal(mode(join(mails, mail)), '600', 'the .eml file');
    assert.equal(mode(database), '600', 'the database');
    assert.equal(mode(`${database}-wal`), '600', 'its -wal');
    assert.equal(mode(`${database}-shm`), '600', 'its -shm');
    // TRUST_PROXY as a hop count: one warning line at start.
    const warnings = first.stdout.filter(
      (line) => line.includes('"level":40') && line.includes('TRUST_PROXY'),
    );
    assert.equal(warnings.length, 1, first.stdout.join('\n'));
  } finally {
    await first.stop();
  }

  // Left looser (by an older version, or by hand): tightened at the next start.
  chmodSync(storage, 0o755);
  chmodSync(database, 0o644);
  for (const suffix of ['-wal', '-shm'])
    if (existsSync(`${database}${suffix}`)) chmodSync(`${database}${suffix}`, 0o644);
  const second = await startServer({ env: serverEnv('127.0.0.1') });
  try {
    assert.equal(mode(storage), '700', 'storage/ tightened');
    assert.equal(mode(database), '600', 'the database tightened');
    for (const suffix of ['-wal', '-shm']) assert.equal(mode(`${database}${suffix}`), '600', suffix);
    assert.ok(
      !second.stdout.some((line) => line.includes('"level":40') && line.includes('TRUST_PROXY')),
      'addresses: no warning',
    );
  } finally {
    await second.stop();
  }
});
