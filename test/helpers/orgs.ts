import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { mailedLink, queuedMail } from '../races/support.ts';
import { sendJson, signedInBrowser } from './account.ts';
import type { TestApp } from './app.ts';
import type { Browser } from './browser-session.ts';

/** A person in a browser of their own, signed in, who can speak JSON to the organization routes. */
export interface Person {
  readonly user: Awaited<ReturnType<TestApp['createUser']>>;
  readonly browser: Browser;
  json(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    body?: object,
  ): Promise<LightMyRequestResponse>;
  /** POST /user/confirm-password with the right password (for DELETE /orgs/{slug}). */
  confirmPassword(): Promise<void>;
}

export async function person(t: TestApp, input: Parameters<TestApp['createUser']>[0] = {}): Promise<Person> {
  const user = await t.createUser(input);
  const { browser } = await signedInBrowser(t, { user });
  return {
    user,
    browser,
    json: (method, url, body) => sendJson(browser, method, url, body),
    async confirmPassword() {
      const confirmed = await sendJson(browser, 'POST', '/user/confirm-password', {
        password: user.password,
      });
      assert.equal(confirmed.statusCode, 204, confirmed.body);
    },
  };
}

let slugs = 0;
/** A fresh slug, unique in the run. */
export const newSlug = (stem = 'org') => `${stem}-${Date.now().toString(36)}-${++slugs}`;

/** POST /orgs as `owner`; returns the created organization. */
export async function createOrg(owner: Person, slug = newSlug(), name = `Org ${slug}`) {
  const created = await owner.json('POST', '/orgs', { name, slug });
  assert.equal(created.statusCode, 201, created.body);
  return created.json() as { id: number; slug: string; name: string; role: string };
}

/** Invites `email` as `role` through the API and returns the link of the mail sent to it. */
export async function invite(t: TestApp, inviter: Person, slug: string, email: string, role = 'member') {
  const sent = await inviter.json('POST', `/orgs/${slug}/invitations`, { email, role });
  assert.equal(sent.statusCode, 201, sent.body);
  const mail = await queuedMail(t, sent.json().email, 'org-invitation');
  return {
    invitation: sent.json() as { id: number; email: string },
    mail,
    link: mailedLink(mail, '/org-invitations/'),
  };
}

/** The link's parts as the acceptance form posts them. */
export function linkBody(link: URL): { token: string; expires: string; signature: string } {
  return {
    token: link.searchParams.get('token') ?? '',
    expires: link.searchParams.get('expires') ?? '',
    signature: link.searchParams.get('signature') ?? '',
  };
}

/** POST /org-invitations/{id} as `who` (JSON). */
export function accept(who: Person, link: URL, body: Record<string, string> = linkBody(link)) {
  return who.json('POST', link.pathname, body);
}

/** Adds `who` to the organization through an invitation of `inviter`, with `role`. */
export async function join(t: TestApp, inviter: Person, slug: string, who: Person, role = 'member') {
  const { link } = await invite(t, inviter, slug, who.user.email, role);
  const accepted = await accept(who, link);
  assert.equal(accepted.statusCode, 201, accepted.body);
}

/** The memberships of an organization as stored: user id → role. */
export async function rolesIn(t: TestApp, organizationId: number): Promise<Record<number, string>> {
  const rows = await t.db
    .selectFrom('organization_memberships')
    .select(['user_id', 'role'])
    .where('organization_id', '=', organizationId)
    .execute();
  return Object.fromEntries(rows.map((r) => [r.user_id, r.role]));
}
