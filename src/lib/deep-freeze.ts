/**
 * Freezes an object and everything it holds, so a value shared between requests (the config, a kept
 * lookup's answer) cannot be changed by one reader under another. Buffers cannot be frozen and are left
 * as they are; an already frozen object is taken to be frozen through.
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value) || Object.isFrozen(value)) {
    return value;
  }
  for (const inner of Object.values(value)) deepFreeze(inner);
  return Object.freeze(value);
}
