import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { nextSteps } from '../../src/next-steps.ts';

const storage = mkdtempSync(join(tmpdir(), 'gatehouse-next-steps-'));
after(() => rmSync(storage, { recursive: true, force: true }));
const KEY = `base64:${Buffer.alloc(32, 1).toString('base64')}`;
const config = (env: Record<string, string>) =>
  loadConfig(
    { APP_KEY: KEY, STORAGE_PATH: join(storage, 'storage'), ...env },
    { readDotEnv: false, cwd: storage },
  );

test('a fresh install: the admin to create, the site, and where mail goes', () => {
  const text = nextSteps(config({}), { adminExists: false, mailLinksShown: true }, storage);
  assert.equal(
    text,
    [
      '',
      'Next steps:',
      '- Create the first admin: npx gatehouse make:admin',
      '  (then sign in to the panel at http://localhost:3000/admin/login)',
      '- Open http://localhost:3000 to sign up or log in.',
      '- Mail is not sent (MAIL_MAILER=log): each mail is written to storage/mail/.',
      '  Its link (verify, reset, …) is printed here as it goes out.',
      '',
      '',
    ].join('\n'),
  );
});

test('once there is an admin, only what still applies; SMTP says where mail goes', () => {
  const text = nextSteps(
    config({ MAIL_MAILER: 'smtp', MAIL_HOST: 'smtp.example.com', APP_URL: 'https://auth.example.com' }),
    { adminExists: true, mailLinksShown: false },
    storage,
  );
  assert.doesNotMatch(text, /make:admin/);
  assert.match(text, /^- Open https:\/\/auth\.example\.com to sign up or log in\.$/m);
  assert.match(
    text,
    /^- Mail goes out through smtp\.example\.com:587 from no-reply@auth\.example\.com \(MAIL_MAILER=smtp\)\.$/m,
  );
});

test('an IP address in APP_URL: passkeys cannot work, and what to write instead', () => {
  for (const [url, suggested] of [
    ['http://127.0.0.1:3000', 'http://localhost:3000'],
    ['http://[::1]:8080', 'http://localhost:8080'],
    ['https://192.0.2.10', 'https://localhost'],
  ]) {
    const text = nextSteps(config({ APP_URL: url! }), { adminExists: true, mailLinksShown: false }, storage);
    assert.match(
      text,
      /^- Passkeys are off: browsers refuse an IP address \(.+\) as a passkey domain\.$/m,
      url,
    );
    assert.ok(text.includes(`  Use a host name in APP_URL, e.g. APP_URL=${suggested}\n`), text);
  }
  const named = nextSteps(config({ APP_URL: 'http://gatehouse.test' }), {
    adminExists: true,
    mailLinksShown: false,
  });
  assert.doesNotMatch(named, /Passkeys/);
});

test('on a pipe the log mailer says how to send mail instead of promising links', () => {
  const text = nextSteps(config({}), { adminExists: true, mailLinksShown: false }, storage);
  assert.match(text, /written to storage\/mail\/\.\n {2}Set MAIL_MAILER=smtp and MAIL_HOST to send it\.\n/);
});
