import type { OrgDetail } from '../../orgs/organizations.ts';

/** GET /orgs/{slug} as JSON (docs/guides/organizations.md); times are ISO 8601. */
export function detailJson(org: OrgDetail) {
  return {
    id: org.id,
    slug: org.slug,
    name: org.name,
    role: org.role,
    abilities: org.abilities,
    members: org.members.map((m) => ({ id: m.id, name: m.name, email: m.email, role: m.role })),
    invitations: org.invitations.map(invitationJson),
  };
}

export function invitationJson(invitation: { id: number; email: string; role: string; expiresAt: number }) {
  return {
    id: invitation.id,
    email: invitation.email,
    role: invitation.role,
    expires_at: new Date(invitation.expiresAt).toISOString(),
  };
}
