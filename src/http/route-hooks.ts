/**
 * A route option's hooks as a list (Fastify takes none, one, or an array): for plugins that attach a
 * hook to the routes that need it in `onRoute`, instead of running a global hook on every request.
 */
export function hooksOf<T>(hooks: T | readonly T[] | undefined): T[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? [...hooks] : [hooks as T];
}
