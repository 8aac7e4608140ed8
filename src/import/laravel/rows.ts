import type { NewAccessTokenRow } from '../../auth/tokens/access-tokens.table.ts';
import { isEmail } from '../../lib/validation.ts';
import { normaliseEmail } from '../../users/user.ts';
import type { NewUserRow } from '../../users/users.table.ts';
import type { LaravelTokenRow, LaravelUserRow } from './source.ts';
import { laravelTimestamp } from './time.ts';

/** Gatehouse's keys are 32-bit (PostgreSQL `serial`, MySQL `int`); a larger Laravel id cannot be kept. */
export const MAX_ID = 2_147_483_647;

export interface RowContext {
  /** --timezone: the zone Laravel wrote its timestamps in. */
  readonly zone: string;
  /** When a row has no created_at at all. */
  readonly now: number;
  /** APP_LOCALE: Laravel keeps no language per user. */
  readonly locale: string;
}

export type Converted<T> = { readonly row: T } | { readonly skip: string };

/** What Gatehouse can verify at login (passwords.ts); other hashes are imported but cannot log in. */
export function isKnownHash(hash: string): boolean {
  return /^\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$/.test(hash) || /^\$argon2(id|i)\$/.test(hash);
}

export function laravelId(value: number | string): number | null {
  const id = typeof value === 'number' ? value : /^\d{1,10}$/.test(value) ? Number(value) : Number.NaN;
  return Number.isInteger(id) && id >= 1 && id <= MAX_ID ? id : null;
}

/**
 * A Laravel user as a Gatehouse user row. The password hash is copied as it is (bcrypt `$2y$`,
 * argon2i/argon2id): it is re-hashed at the first login only if weaker than the configured argon2id.
 * The e-mail is lower-cased, as Gatehouse stores every address.
 */
export function toUserRow(
  source: LaravelUserRow,
  context: RowContext,
): Converted<NewUserRow & { id: number }> {
  const id = laravelId(source.id);
  if (id === null) return { skip: 'id outside 1…2147483647' };
  const email = normaliseEmail(source.email ?? '');
  if (email.length > 255 || !isEmail(email)) return { skip: 'not a valid e-mail address' };
  const name = source.name ?? '';
  if (name.length > 255) return { skip: 'name longer than 255 characters' };
  const times = readTimes(source, ['email_verified_at', 'created_at', 'updated_at'], context.zone);
  if ('skip' in times) return times;
  const created = times.created_at ?? times.updated_at ?? context.now;
  return {
    row: {
      id,
      name,
      email,
      password: source.password ?? '',
      email_verified_at: times.email_verified_at,
      locale: context.locale,
      can_access_panel: 0,
      disabled_at: null,
      created_at: created,
      updated_at: times.updated_at ?? created,
    },
  };
}

/**
 * A Sanctum token row as a Gatehouse token row: the SHA-256 exactly as Laravel stored it (of the
 * secret the client holds, prefix and checksum included when the token had them), so every token a
 * client still holds keeps its one stored hash; name, abilities and times as they are.
 */
export function toTokenRow(
  source: LaravelTokenRow,
  userId: number,
  context: RowContext,
): Converted<NewAccessTokenRow & { id: number }> {
  const id = laravelId(source.id);
  if (id === null) return { skip: 'id outside 1…2147483647' };
  const hash = source.token ?? '';
  if (!/^[0-9a-f]{64}$/.test(hash)) return { skip: 'token column is not a SHA-256 hash' };
  const name = source.name ?? '';
  if (name.length > 255) return { skip: 'name longer than 255 characters' };
  const abilities = readAbilities(source.abilities);
  if (abilities === null) return { skip: 'abilities are not a JSON list of strings' };
  const times = readTimes(source, ['last_used_at', 'expires_at', 'created_at', 'updated_at'], context.zone);
  if ('skip' in times) return times;
  const created = times.created_at ?? times.updated_at ?? context.now;
  return {
    row: {
      id,
      user_id: userId,
      name,
      token: hash,
      abilities: JSON.stringify(abilities),
      last_used_at: times.last_used_at,
      expires_at: times.expires_at,
      created_at: created,
      updated_at: times.updated_at ?? created,
      // Marks the token as Laravel's: only such tokens authenticate in Sanctum's older forms.
      imported_at: context.now,
    },
  };
}

/**
 * Sanctum stores json_encode($abilities), `["*"]` by default. A NULL column grants nothing in Sanctum
 * (its checks would fail), so it grants nothing here either: an empty list. Anything but a list of
 * strings is refused rather than guessed at.
 */
function readAbilities(stored: string | null): string[] | null {
  if (stored === null) return [];
  try {
    const value: unknown = JSON.parse(stored);
    return Array.isArray(value) && value.every((a) => typeof a === 'string') ? value : null;
  } catch {
    return null;
  }
}

function readTimes<K extends string>(
  source: object,
  columns: readonly K[],
  zone: string,
): Record<K, number | null> | { skip: string } {
  const times = {} as Record<K, number | null>;
  for (const column of columns) {
    const value = laravelTimestamp((source as Record<string, unknown>)[column], zone);
    if (value === undefined) return { skip: `unreadable ${column}` };
    times[column] = value;
  }
  return times;
}
