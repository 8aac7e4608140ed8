/**
 * Who may do what in an organization (docs/guides/organizations.md) — every role check lives here, and
 * the use cases ask before they write; routes never look at a role.
 *
 * - Any member sees the organization and may leave it.
 * - Owners and admins manage: rename, invite, cancel invitations, change roles, remove members.
 * - Only owners touch the owner role: an admin can neither grant it (by invitation or role change) nor
 *   change or remove an owner. An organization may have several owners.
 * - Only an owner deletes the organization.
 * - The last owner can neither leave nor be demoted (use cases count owners under the organization's
 *   row lock, orgs.repository.ts lockOrganization).
 */

export const OWNER = 'owner';
const MANAGERS: ReadonlySet<string> = new Set([OWNER, 'admin']);

export function canManage(role: string): boolean {
  return MANAGERS.has(role);
}

export function canDeleteOrganization(role: string): boolean {
  return role === OWNER;
}

/** Whether `actor` may hand out `role` (an invitation, or a member's new role). */
export function canGrant(actor: string, role: string): boolean {
  return canManage(actor) && (actor === OWNER || role !== OWNER);
}

/** Whether `actor` may change anything about a member holding `role`: an owner is an owner's business. */
export function canActOn(actor: string, role: string): boolean {
  return canManage(actor) && (actor === OWNER || role !== OWNER);
}

/** Whether `actor` may change the role of a member holding `current` to `next`. */
export function canChangeRole(actor: string, current: string, next: string): boolean {
  return canGrant(actor, next) && canActOn(actor, current);
}

/** Whether `actor` may remove a member holding `role`; leaving (`self`) is every member's right. */
export function canRemove(actor: string, role: string, self: boolean): boolean {
  return self || canActOn(actor, role);
}

/**
 * Whether a change would leave no owner: the last owner leaving, removed or given another role.
 * `owners` counts them (read under the organization's row lock), asked only when an owner is changed.
 */
export async function leavesNoOwner(
  role: string,
  nextRole: string | null,
  owners: () => Promise<number>,
): Promise<boolean> {
  return role === OWNER && nextRole !== OWNER && (await owners()) <= 1;
}
