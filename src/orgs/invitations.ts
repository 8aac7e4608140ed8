import { type AuditContext, recordAudit } from '../audit/audit.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { MINUTE } from '../lib/clock.ts';
import { randomToken, sha256Hex, sha256Matches } from '../lib/crypto.ts';
import type { Mailing } from '../mail/mailing.ts';
import { normaliseEmail, type User } from '../users/user.ts';
import { findUserByEmail } from '../users/users.repository.ts';
import { accessOf, type OrgRefusal, orgDetails } from './access.ts';
import {
  checkInvitationLink,
  type InvitationLinkSettings,
  invitationLink,
  type PresentedInvitation,
} from './invitation-links.ts';
import {
  consumeInvitation,
  deleteExpiredInvitation,
  deleteInvitation,
  findInvitation,
  insertInvitation,
} from './invitations.repository.ts';
import { orgInvitationMessage } from './mails.ts';
import type { OrgDeps, OrgSummary } from './organizations.ts';
import {
  findMembership,
  findOrganizationById,
  insertMembership,
  lockOrganization,
} from './orgs.repository.ts';
import type { InvitationRow } from './orgs.table.ts';
import { canGrant } from './policy.ts';

/**
 * Invitations (docs/guides/organizations.md): owners and admins invite an address with a role; the mail
 * carries a signed, single-use link (invitation-links.ts) valid ORG_INVITATION_EXPIRE minutes, whose
 * secret is stored only as a hash. Only the user whose *verified* address is the invited one (NFC,
 * case-insensitive: users/user.ts normaliseEmail) can accept it; everyone else is told so and nothing
 * changes.
 */

export interface InvitationDeps extends OrgDeps {
  readonly mailing: Mailing;
  readonly links: InvitationLinkSettings;
  readonly expireMinutes: number;
}

export interface PendingInvitation {
  readonly id: number;
  readonly email: string;
  readonly role: string;
  readonly expiresAt: number;
}

export type InviteResult =
  | { readonly status: 'invited'; readonly invitation: PendingInvitation }
  | { readonly status: OrgRefusal | 'already_member' | 'already_invited' };

/** POST /orgs/{slug}/invitations: the row, its audit row and its mail in one transaction. */
export async function inviteMember(
  deps: InvitationDeps,
  slug: string,
  actorId: number,
  input: { readonly email: string; readonly role: string; readonly locale: string },
  audit: AuditContext,
): Promise<InviteResult> {
  const email = normaliseEmail(input.email);
  try {
    const result = await deps.db.transaction().execute(async (trx): Promise<InviteResult> => {
      const access = await accessOf(trx, slug, actorId, { lock: true });
      if (access === null) return { status: 'not_found' };
      if (!canGrant(access.role, input.role)) return { status: 'forbidden' };
      const { organization } = access;
      const invitee = await findUserByEmail(trx, email);
      if (invitee && (await findMembership(trx, organization.id, invitee.id))) {
        return { status: 'already_member' };
      }
      await deleteExpiredInvitation(trx, organization.id, email, audit.now);
      const token = randomToken(32);
      const expiresAt = audit.now + deps.expireMinutes * MINUTE;
      const id = await insertInvitation(trx, {
        organization_id: organization.id,
        email,
        role: input.role,
        token_hash: sha256Hex(token),
        invited_by: actorId,
        expires_at: expiresAt,
        created_at: audit.now,
      });
      await recordAudit(trx, 'org.invitation.sent', audit, invitee?.id ?? null, {
        ...orgDetails(organization),
        invitation_id: id,
        email,
        role: input.role,
      });
      const link = invitationLink(deps.links, id, token, expiresAt);
      await deps.mailing.queue.enqueue(
        trx,
        orgInvitationMessage(
          deps.mailing.context,
          // The invitee's own language when they have an account, else the inviting request's.
          { email, locale: invitee?.locale ?? input.locale },
          {
            organization: organization.name,
            role: input.role,
            url: link.url,
            token,
            signature: link.signature,
            expiresInMinutes: deps.expireMinutes,
          },
        ),
      );
      return { status: 'invited', invitation: { id, email, role: input.role, expiresAt } };
    });
    if (result.status === 'invited') deps.mailing.queue.wake();
    return result;
  } catch (error) {
    // The unique pair (organization, address) decides between two invitations of one address.
    if (isUniqueViolation(error)) return { status: 'already_invited' };
    throw error;
  }
}

/** DELETE /orgs/{slug}/invitations/{id}: owners and admins (an owner's invitation, owners only). */
export async function cancelInvitation(
  deps: OrgDeps,
  slug: string,
  actorId: number,
  invitationId: number,
  audit: AuditContext,
): Promise<'cancelled' | OrgRefusal> {
  return deps.db.transaction().execute(async (trx) => {
    const access = await accessOf(trx, slug, actorId, { lock: true });
    if (access === null) return 'not_found';
    const { organization } = access;
    const invitation = await findInvitation(trx, invitationId);
    if (invitation === undefined || invitation.organization_id !== organization.id) return 'not_found';
    if (!canGrant(access.role, invitation.role)) return 'forbidden';
    await deleteInvitation(trx, organization.id, invitationId);
    await recordAudit(trx, 'org.invitation.cancelled', audit, null, {
      ...orgDetails(organization),
      invitation_id: invitationId,
      email: invitation.email,
      role: invitation.role,
    });
    return 'cancelled';
  });
}

/** Why a link cannot be accepted by this user, or `open` with what it offers. */
export type InvitationStatus =
  | { readonly status: 'invalid' | 'expired' | 'other_address' | 'unverified' }
  | { readonly status: 'open'; readonly organization: OrgSummary };

type Judgement = 'invalid' | 'expired' | 'other_address' | 'unverified' | 'ok';

/**
 * The row's verdict on a signed link for `user`: its secret (constant time), its expiry, then the
 * address — the user's own, verified, and the invited one (both normalised: NFC, lower-case).
 */
function judge(row: InvitationRow | undefined, token: string, user: User, now: number): Judgement {
  if (row === undefined || !sha256Matches(token, row.token_hash)) return 'invalid';
  if (row.expires_at <= now) return 'expired';
  if (normaliseEmail(user.email) !== row.email) return 'other_address';
  if (user.emailVerifiedAt === null) return 'unverified';
  return 'ok';
}

/** GET /org-invitations/{id}: what the link offers this user (nothing is changed). */
export async function invitationFor(
  deps: InvitationDeps,
  link: PresentedInvitation,
  user: User,
  now: number,
): Promise<InvitationStatus> {
  const checked = checkInvitationLink(deps.links, link, now);
  if (checked.status !== 'signed') return { status: checked.status };
  const row = await findInvitation(deps.db, checked.id);
  const verdict = judge(row, checked.token, user, now);
  if (verdict !== 'ok') return { status: verdict };
  const organization = await findOrganizationById(deps.db, row!.organization_id);
  if (organization === undefined) return { status: 'invalid' };
  return { status: 'open', organization: summary(organization, row!.role) };
}

export type AcceptResult =
  | { readonly status: 'accepted' | 'already_member'; readonly organization: OrgSummary }
  | { readonly status: 'invalid' | 'expired' | 'other_address' | 'unverified' };

/**
 * POST /org-invitations/{id}: the user joins with the invited role. The invitation is spent by one
 * conditional DELETE under the organization's row lock, so of any number of concurrent acceptances of
 * one link exactly one adds the membership (reported as the webhook org.member.added); a replay finds
 * nothing and changes nothing.
 */
export async function acceptInvitation(
  deps: InvitationDeps,
  link: PresentedInvitation,
  user: User,
  audit: AuditContext,
): Promise<AcceptResult> {
  const checked = checkInvitationLink(deps.links, link, audit.now);
  if (checked.status !== 'signed') return { status: checked.status };
  return deps.db.transaction().execute(async (trx): Promise<AcceptResult> => {
    const row = await findInvitation(trx, checked.id);
    const verdict = judge(row, checked.token, user, audit.now);
    if (verdict !== 'ok') return { status: verdict };
    const invitation = row!;
    const organization = await lockOrganization(trx, invitation.organization_id);
    if (organization === undefined || !(await consumeInvitation(trx, invitation.id, invitation.token_hash))) {
      return { status: 'invalid' };
    }
    const existing = await findMembership(trx, organization.id, user.id);
    if (existing !== undefined) {
      return { status: 'already_member', organization: summary(organization, existing.role) };
    }
    await insertMembership(trx, {
      organizationId: organization.id,
      userId: user.id,
      role: invitation.role,
      now: audit.now,
    });
    await recordAudit(trx, 'org.invitation.accepted', audit, user.id, {
      ...orgDetails(organization),
      invitation_id: invitation.id,
      role: invitation.role,
    });
    return { status: 'accepted', organization: summary(organization, invitation.role) };
  });
}

function summary(organization: { id: number; slug: string; name: string }, role: string): OrgSummary {
  return { id: organization.id, slug: organization.slug, name: organization.name, role };
}
