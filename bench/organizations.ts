import { randomBytes } from 'node:crypto';
import type { OrgMembership } from '../src/orgs/memberships.ts';

/**
 * docs/guides/organizations.md: the bench user belongs to BENCH_ROLES.length organizations, so that
 * bearer GET /api/user and forward auth carry memberships as a real member's do. The bare baseline
 * (bare-server.ts) answers the same shape with names and slugs of the same lengths, so the ratio counts
 * only what Gatehouse adds: the memberships lookup.
 */
export const BENCH_ROLES = ['owner', 'admin', 'member'] as const;

/** `bench-org-<12 hex>-<n>`: unique per run (a server database may hold several runs). */
export function benchOrganizations(run = randomBytes(6).toString('hex')) {
  return BENCH_ROLES.map((role, index) => ({
    slug: `bench-org-${run}-${index + 1}`,
    name: `Bench Organization ${index + 1}`,
    role,
  }));
}

/** What GET /api/user answers for those memberships (ids as a fresh database gives them). */
export function benchMemberships(): OrgMembership[] {
  return benchOrganizations('000000000000').map((org, index) => ({ id: index + 1, ...org, abilities: [] }));
}
