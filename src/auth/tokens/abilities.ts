/** `*` or `<resource>:<action>`, both parts lower-case [a-z0-9_-]. */
export const ABILITY_PATTERN = /^(\*|[a-z0-9_-]+:[a-z0-9_-]+)$/;

export const ALL_ABILITIES: readonly string[] = Object.freeze(['*']);

/** Sanctum's tokenCan: a token holds an ability when it lists it exactly or lists `*`. */
export function can(abilities: readonly string[], ability: string): boolean {
  return abilities.includes('*') || abilities.includes(ability);
}

/**
 * Abilities as stored (JSON text); anything unreadable grants nothing. Parsed when a token is loaded
 * (services.ts keeps loaded tokens, frozen), not on every request.
 */
export function parseAbilities(stored: string): readonly string[] {
  try {
    const value: unknown = JSON.parse(stored);
    return Array.isArray(value) ? value.filter((a): a is string => typeof a === 'string') : [];
  } catch {
    return [];
  }
}
