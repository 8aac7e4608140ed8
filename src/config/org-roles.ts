import { ConfigError } from './parsers.ts';

/** A role of an organization and the abilities it carries into `/api/user`-style answers and claims. */
export interface OrgRoleDefinition {
  readonly name: string;
  readonly abilities: readonly string[];
}

/** The three roles every installation has; their powers inside Gatehouse are fixed (orgs/policy.ts). */
export const BUILT_IN_ROLES = ['owner', 'admin', 'member'] as const;

/** A role name: short, lower-case, safe in a header (`org:<slug>:<role>`) and a claim. */
const ROLE_NAME = /^[a-z][a-z0-9_-]{0,31}$/;
/** An ability as the applications read it: `billing:read`, `deploy`, `*`. */
const ABILITY = /^(\*|[a-z0-9_-]{1,64}(:[a-z0-9_-]{1,64})?)$/;

/**
 * ORG_ROLES (docs/guides/organizations.md): `name=ability,ability;name=ability`. A new name adds a role
 * (its holders are members as far as Gatehouse is concerned: only owners and admins manage); `admin` or
 * `member` give the built-in roles abilities. `owner` cannot be redefined: it always holds `*`. Unset:
 * the three built-in roles, `owner` with `*`, the others with none.
 */
export function orgRoles(raw: string | undefined): OrgRoleDefinition[] {
  const abilities = new Map<string, string[]>([
    ['owner', ['*']],
    ['admin', []],
    ['member', []],
  ]);
  const defined = new Set<string>();
  for (const entry of (raw ?? '').split(';')) {
    const text = entry.trim();
    if (text === '') continue;
    const at = text.indexOf('=');
    const name = (at === -1 ? text : text.slice(0, at)).trim();
    if (!ROLE_NAME.test(name)) {
      throw new ConfigError(
        'ORG_ROLES',
        `must list roles as name=ability,ability;… with names like billing (lower-case letters, digits, _ and -; got "${name}")`,
      );
    }
    if (name === 'owner')
      throw new ConfigError('ORG_ROLES', 'cannot redefine owner (it holds every ability)');
    if (defined.has(name)) throw new ConfigError('ORG_ROLES', `names the role "${name}" twice`);
    defined.add(name);
    const list =
      at === -1
        ? []
        : text
            .slice(at + 1)
            .split(',')
            .map((ability) => ability.trim())
            .filter(Boolean);
    for (const ability of list) {
      if (!ABILITY.test(ability)) {
        throw new ConfigError(
          'ORG_ROLES',
          `role "${name}": abilities are words like posts:read or deploy (got "${ability}")`,
        );
      }
    }
    abilities.set(name, [...new Set(list)]);
  }
  return [...abilities].map(([name, list]) => ({ name, abilities: list }));
}
