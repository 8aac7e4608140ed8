/** The largest id a row can have (a signed 32-bit integer: PostgreSQL `serial`): a bigger one names nothing. */
export const MAX_ID = 2_147_483_647;

/**
 * A row id as written in a URL, a form or a token: digits without a leading zero, at most MAX_ID.
 * Null for anything else, so no query ever runs with NaN, a float or an out-of-range number.
 */
export function parseId(text: unknown): number | null {
  if (typeof text !== 'string' || !/^[1-9][0-9]{0,9}$/.test(text)) return null;
  const id = Number(text);
  return id > MAX_ID ? null : id;
}
