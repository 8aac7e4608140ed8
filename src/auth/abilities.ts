/** `*` or `<resource>:<action>`, both parts lower-case [a-z0-9_-]. */
export const ABILITY_PATTERN = /^(\*|[a-z0-9_-]+:[a-z0-9_-]+)$/;

export const ALL_ABILITIES: readonly string[] = Object.freeze(['*']);

/** Sanctum's tokenCan: a token holds an ability when it lists it exactly or lists `*`. */
export function can(abilities: readonly string[], ability: string): boolean {
  return abilities.includes('*') || abilities.includes(ability);
}

const parsed = new Map<string, readonly string[]>();
const PARSED_LIMIT = 1000;

/**
 * Abilities as stored (JSON text); anything unreadable grants nothing. Every bearer request reads
 * its token's list, and tokens share few distinct lists (most hold ["*"]): each text is parsed once
 * into a frozen array (the memo is bounded, so odd lists cannot grow it without limit).
 */
export function parseAbilities(stored: string): readonly string[] {
  let abilities = parsed.get(stored);
  if (abilities === undefined) {
    abilities = Object.freeze(readAbilities(stored));
    if (parsed.size >= PARSED_LIMIT) parsed.clear();
    parsed.set(stored, abilities);
  }
  return abilities;
}

function readAbilities(stored: string): string[] {
  try {
    const value: unknown = JSON.parse(stored);
    return Array.isArray(value) ? value.filter((a): a is string => typeof a === 'string') : [];
  } catch {
    return [];
  }
}
