import { randomBytes } from 'node:crypto';
import { generateSecret } from '../src/auth/tokens/token-format.ts';
import { openSqliteFile } from '../src/db/sqlite-handles.ts';
import { sha256Hex } from '../src/lib/crypto.ts';

export interface LargeSeedOptions {
  readonly users: number;
  readonly tokens: number;
  /** Tokens whose plaintext we keep, spread evenly over the id range, for the load to use. */
  readonly usable: number;
  /** One precomputed argon2id hash for every user: hashing a million passwords would take hours. */
  readonly passwordHash: string;
  /** Organizations (docs/guides/organizations.md), and memberships spread over the users. */
  readonly organizations: number;
  readonly memberships: number;
  readonly progress?: (line: string) => void;
}

export interface LargeSeed {
  /** `Bearer <id>|<secret>` header values of the usable tokens. */
  readonly authorizations: string[];
  readonly seconds: number;
}

const CHUNK = 100_000;

/**
 * Fills an already migrated SQLite file with `users` users and `tokens` tokens (the tokens spread
 * evenly over the users) in one transaction of prepared inserts. Journaling and fsync are off for
 * the load — the file is a throwaway made only for this run — and WAL is switched back on afterwards,
 * as the service expects.
 */
export function seedLargeSqlite(filename: string, options: LargeSeedOptions): LargeSeed {
  const started = performance.now();
  // Not `new SqliteDatabase`: on Node 24 a reclaimed statement aborts the process (db/sqlite-handles.ts).
  const db = openSqliteFile(filename);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -1048576'); // 1 GiB: the random-order unique index on token stays in memory
  const now = Date.now();
  const insertUser = db.prepare(
    `insert into users (id, name, email, password, email_verified_at, locale, can_access_panel,
       disabled_at, created_at, updated_at) values (?, ?, ?, ?, ?, 'en', 0, null, ?, ?)`,
  );
  const insertToken = db.prepare(
    `insert into personal_access_tokens (id, user_id, name, token, abilities, last_used_at, expires_at,
       created_at, updated_at) values (?, ?, ?, ?, '["*"]', ?, null, ?, ?)`,
  );
  const usableIds = new Set(
    Array.from(
      { length: options.usable },
      (_, i) => Math.floor(((i + 0.5) * options.tokens) / options.usable) + 1,
    ),
  );
  const authorizations: string[] = [];
  const log = options.progress ?? (() => {});
  const insertOrganization = db.prepare(
    'insert into organizations (id, name, slug, created_at, updated_at) values (?, ?, ?, ?, ?)',
  );
  const insertMembership = db.prepare(
    `insert into organization_memberships (organization_id, user_id, role, created_at, updated_at)
       values (?, ?, ?, ?, ?)`,
  );

  /** The users of the usable tokens: the load's requests are theirs. */
  const usableUsers: number[] = [];
  db.transaction(() => {
    for (let id = 1; id <= options.users; id++) {
      const created = now - (options.users - id) * 1000;
      insertUser.run(
        id,
        `User ${id}`,
        `user${id}@large.bench.test`,
        options.passwordHash,
        created,
        created,
        created,
      );
      if (id % 250_000 === 0) log(`  users ${id.toLocaleString('en')}`);
    }
    const perUser = options.tokens / options.users;
    let random = Buffer.alloc(0);
    for (let id = 1; id <= options.tokens; id++) {
      const index = (id - 1) % CHUNK;
      if (index === 0) random = randomBytes(32 * CHUNK);
      const userId = Math.min(options.users, Math.floor((id - 1) / perUser) + 1);
      let hash: string;
      let lastUsed: number | null = null;
      if (usableIds.has(id)) {
        const secret = generateSecret('');
        hash = sha256Hex(secret);
        // Used a moment ago, as a live client's token is: the once-a-minute last_used_at write is not
        // what this scenario measures.
        lastUsed = now;
        authorizations.push(`Bearer ${id}|${secret}`);
      } else {
        // Stands for the SHA-256 of a secret nobody holds: same shape, same index behaviour.
        hash = random.toString('hex', index * 32, index * 32 + 32);
      }
      insertToken.run(id, userId, `device ${id}`, hash, lastUsed, now, now);
      if (id % 1_000_000 === 0) log(`  tokens ${id.toLocaleString('en')}`);
      if (usableIds.has(id)) usableUsers.push(userId);
    }
    seedOrganizations(options, usableUsers, {
      organization: (id, name, slug) => insertOrganization.run(id, name, slug, now, now),
      membership: (organizationId, userId, role) =>
        insertMembership.run(organizationId, userId, role, now, now),
    });
    log(
      `  organizations ${options.organizations.toLocaleString('en')}, memberships ${options.memberships.toLocaleString('en')}`,
    );
  })();

  db.pragma('journal_mode = WAL');
  db.close();
  return { authorizations, seconds: (performance.now() - started) / 1000 };
}

const ROLES = ['owner', 'admin', 'member', 'member', 'member'] as const;
/** Memberships of each user the load signs in as: their GET /api/user lists this many organizations. */
export const MEMBERSHIPS_PER_LOAD_USER = 3;

/**
 * `organizations` organizations (`org-<id>`), then `memberships` memberships: three for each user the load
 * signs in as (so every measured answer carries three), the rest spread over all users by a fixed
 * stride, one per user and organization (the unique pair), as many as asked.
 */
function seedOrganizations(
  options: LargeSeedOptions,
  loadUsers: readonly number[],
  insert: {
    organization(id: number, name: string, slug: string): void;
    membership(organizationId: number, userId: number, role: string): void;
  },
): void {
  if (options.organizations === 0) return;
  for (let id = 1; id <= options.organizations; id++)
    insert.organization(id, `Organization ${id}`, `org-${id}`);
  const taken = new Set<string>();
  let written = 0;
  const add = (organizationId: number, userId: number) => {
    const key = `${organizationId}:${userId}`;
    if (written >= options.memberships || taken.has(key)) return;
    taken.add(key);
    insert.membership(organizationId, userId, ROLES[written % ROLES.length]!);
    written++;
  };
  for (const userId of loadUsers) {
    for (let k = 0; k < MEMBERSHIPS_PER_LOAD_USER; k++)
      add(((userId * 31 + k * 7) % options.organizations) + 1, userId);
  }
  for (let i = 0; written < options.memberships && i < options.memberships * 4; i++) {
    add((i % options.organizations) + 1, ((i * 7919) % options.users) + 1);
  }
}
