import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { orgRoleCatalogue } from '../../src/orgs/roles.ts';

/** ORG_ROLES and ORG_INVITATION_EXPIRE (docs/guides/organizations.md). */
const storage = mkdtempSync(join(tmpdir(), 'gatehouse-config-orgs-'));
after(() => rmSync(storage, { recursive: true, force: true }));
const load = (env: Record<string, string>) =>
  loadConfig(
    { APP_KEY: `base64:${Buffer.alloc(32, 1).toString('base64')}`, STORAGE_PATH: storage, ...env },
    { readDotEnv: false, cwd: storage },
  );

function stops(env: Record<string, string>, variable: string, words: RegExp) {
  assert.throws(
    () => load(env),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.variable === variable &&
      error.message.startsWith(`Invalid configuration: ${variable} `) &&
      !error.message.includes('\n') &&
      words.test(error.message),
    JSON.stringify(env),
  );
}

test('unset: owner, admin and member; the owner holds every ability; invitations last 7 days', () => {
  const config = load({});
  assert.deepEqual(config.orgRoles, [
    { name: 'owner', abilities: ['*'] },
    { name: 'admin', abilities: [] },
    { name: 'member', abilities: [] },
  ]);
  assert.equal(config.orgInvitationExpireMinutes, 10080);
});

test('ORG_ROLES adds roles and gives the built-in ones abilities; spaces and repeats do not matter', () => {
  const config = load({
    ORG_ROLES: ' billing = invoices:read , invoices:write , invoices:read ; admin=deploy;viewer=;auditor',
  });
  const roles = orgRoleCatalogue(config.orgRoles);
  assert.deepEqual(roles.names, ['owner', 'admin', 'member', 'billing', 'viewer', 'auditor']);
  assert.deepEqual(roles.abilitiesOf('billing'), ['invoices:read', 'invoices:write']);
  assert.deepEqual(roles.abilitiesOf('admin'), ['deploy']);
  assert.deepEqual(roles.abilitiesOf('viewer'), []);
  assert.deepEqual(roles.abilitiesOf('owner'), ['*']);
  assert.equal(roles.has('auditor'), true);
  assert.equal(roles.has('nobody'), false);
  assert.deepEqual(roles.abilitiesOf('nobody'), [], 'a role no longer configured grants nothing');
});

test('a malformed ORG_ROLES stops the start with one line naming it', () => {
  stops({ ORG_ROLES: 'Billing=invoices:read' }, 'ORG_ROLES', /"Billing"/);
  stops({ ORG_ROLES: 'bill ing=x' }, 'ORG_ROLES', /"bill ing"/);
  stops({ ORG_ROLES: '=x' }, 'ORG_ROLES', /""/);
  stops({ ORG_ROLES: 'owner=x' }, 'ORG_ROLES', /cannot redefine owner/);
  stops({ ORG_ROLES: 'a=x;a=y' }, 'ORG_ROLES', /twice/);
  stops({ ORG_ROLES: 'a=in voices' }, 'ORG_ROLES', /"in voices"/);
  stops({ ORG_ROLES: 'a=x:y:z' }, 'ORG_ROLES', /"x:y:z"/);
  stops({ ORG_ROLES: `${'r'.repeat(33)}=x` }, 'ORG_ROLES', /lower-case/);
  stops({ ORG_INVITATION_EXPIRE: 'a week' }, 'ORG_INVITATION_EXPIRE', /whole number/);
  stops({ ORG_INVITATION_EXPIRE: '0' }, 'ORG_INVITATION_EXPIRE', /between 1/);
});

test('ORG_INVITATION_EXPIRE is at most ten years: a longer one would store an expiry no date can hold', () => {
  // 9007199254740991 minutes once started, then stored an invitation whose expires_at is no valid date:
  // the invitation answered 500 after it was saved and mailed, and so did GET /orgs/{slug} and the
  // panel's page of that organization from then on.
  assert.equal(load({ ORG_INVITATION_EXPIRE: '5259600' }).orgInvitationExpireMinutes, 5259600);
  stops({ ORG_INVITATION_EXPIRE: '5259601' }, 'ORG_INVITATION_EXPIRE', /between 1 and 5259600/);
  stops({ ORG_INVITATION_EXPIRE: '9007199254740991' }, 'ORG_INVITATION_EXPIRE', /between 1 and 5259600/);
});
