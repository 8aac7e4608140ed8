import { openSqliteFile } from '../../src/db/sqlite-handles.ts';
import { loadMysql2Promise, loadPg } from '../../src/lib/packages-on-demand.ts';
import { createTestDatabase, type DialectName, type TestDatabase } from './databases.ts';

/**
 * A database shaped exactly as a Laravel 11 application leaves it: the tables of its default
 * migrations (users, password_reset_tokens, sessions) and Sanctum's personal_access_tokens, in the
 * SQL Laravel's schema grammar writes for each driver — bigint ids, `timestamp` columns on MySQL and
 * PostgreSQL, text dates on SQLite, MySQL's case-insensitive utf8mb4_unicode_ci — plus a `teams`
 * table whose tokens (tokenable_type App\Models\Team) are not Gatehouse's to import.
 */
const SCHEMA: Record<DialectName, string[]> = {
  mysql: [
    "create table `users` (`id` bigint unsigned not null auto_increment primary key, `name` varchar(255) not null, `email` varchar(255) not null, `email_verified_at` timestamp null, `password` varchar(255) not null, `remember_token` varchar(100) null, `created_at` timestamp null, `updated_at` timestamp null) default character set utf8mb4 collate 'utf8mb4_unicode_ci'",
    'alter table `users` add unique `users_email_unique`(`email`)',
    "create table `password_reset_tokens` (`email` varchar(255) not null, `token` varchar(255) not null, `created_at` timestamp null, primary key (`email`)) default character set utf8mb4 collate 'utf8mb4_unicode_ci'",
    "create table `sessions` (`id` varchar(255) not null, `user_id` bigint unsigned null, `ip_address` varchar(45) null, `user_agent` text null, `payload` longtext not null, `last_activity` int not null, primary key (`id`)) default character set utf8mb4 collate 'utf8mb4_unicode_ci'",
    "create table `teams` (`id` bigint unsigned not null auto_increment primary key, `name` varchar(255) not null, `created_at` timestamp null, `updated_at` timestamp null) default character set utf8mb4 collate 'utf8mb4_unicode_ci'",
    "create table `personal_access_tokens` (`id` bigint unsigned not null auto_increment primary key, `tokenable_type` varchar(255) not null, `tokenable_id` bigint unsigned not null, `name` varchar(255) not null, `token` varchar(64) not null, `abilities` text null, `last_used_at` timestamp null, `expires_at` timestamp null, `created_at` timestamp null, `updated_at` timestamp null) default character set utf8mb4 collate 'utf8mb4_unicode_ci'",
    'alter table `personal_access_tokens` add index `personal_access_tokens_tokenable_type_tokenable_id_index`(`tokenable_type`, `tokenable_id`)',
    'alter table `personal_access_tokens` add unique `personal_access_tokens_token_unique`(`token`)',
  ],
  postgres: [
    'create table "users" ("id" bigserial not null primary key, "name" varchar(255) not null, "email" varchar(255) not null, "email_verified_at" timestamp(0) without time zone null, "password" varchar(255) not null, "remember_token" varchar(100) null, "created_at" timestamp(0) without time zone null, "updated_at" timestamp(0) without time zone null)',
    'alter table "users" add constraint "users_email_unique" unique ("email")',
    'create table "password_reset_tokens" ("email" varchar(255) not null, "token" varchar(255) not null, "created_at" timestamp(0) without time zone null, primary key ("email"))',
    'create table "sessions" ("id" varchar(255) not null, "user_id" bigint null, "ip_address" varchar(45) null, "user_agent" text null, "payload" text not null, "last_activity" integer not null, primary key ("id"))',
    'create table "teams" ("id" bigserial not null primary key, "name" varchar(255) not null, "created_at" timestamp(0) without time zone null, "updated_at" timestamp(0) without time zone null)',
    'create table "personal_access_tokens" ("id" bigserial not null primary key, "tokenable_type" varchar(255) not null, "tokenable_id" bigint not null, "name" varchar(255) not null, "token" varchar(64) not null, "abilities" text null, "last_used_at" timestamp(0) without time zone null, "expires_at" timestamp(0) without time zone null, "created_at" timestamp(0) without time zone null, "updated_at" timestamp(0) without time zone null)',
    'create index "personal_access_tokens_tokenable_type_tokenable_id_index" on "personal_access_tokens" ("tokenable_type", "tokenable_id")',
    'alter table "personal_access_tokens" add constraint "personal_access_tokens_token_unique" unique ("token")',
  ],
  sqlite: [
    'create table "users" ("id" integer primary key autoincrement not null, "name" varchar not null, "email" varchar not null, "email_verified_at" datetime, "password" varchar not null, "remember_token" varchar, "created_at" datetime, "updated_at" datetime)',
    'create unique index "users_email_unique" on "users" ("email")',
    'create table "password_reset_tokens" ("email" varchar not null, "token" varchar not null, "created_at" datetime, primary key ("email"))',
    'create table "sessions" ("id" varchar not null, "user_id" integer, "ip_address" varchar, "user_agent" text, "payload" text not null, "last_activity" integer not null, primary key ("id"))',
    'create table "teams" ("id" integer primary key autoincrement not null, "name" varchar not null, "created_at" datetime, "updated_at" datetime)',
    'create table "personal_access_tokens" ("id" integer primary key autoincrement not null, "tokenable_type" varchar not null, "tokenable_id" integer not null, "name" varchar not null, "token" varchar not null, "abilities" text, "last_used_at" datetime, "expires_at" datetime, "created_at" datetime, "updated_at" datetime)',
    'create index "personal_access_tokens_tokenable_type_tokenable_id_index" on "personal_access_tokens" ("tokenable_type", "tokenable_id")',
    'create unique index "personal_access_tokens_token_unique" on "personal_access_tokens" ("token")',
  ],
};

export interface LaravelUser {
  id: number;
  name: string;
  email: string;
  password: string;
  email_verified_at: string | null;
  remember_token?: string | null;
  created_at: string | null;
  updated_at: string | null;
}

export interface LaravelToken {
  id: number;
  tokenable_type: string;
  tokenable_id: number;
  name: string;
  token: string;
  abilities: string | null;
  last_used_at: string | null;
  expires_at: string | null;
  created_at: string | null;
  updated_at: string | null;
}

export interface LaravelDatabase extends TestDatabase {
  /** Runs one statement on the source (to break it on purpose, for instance). */
  exec(statement: string): Promise<void>;
}

/** Carbon's storage format: 'Y-m-d H:i:s' in the app timezone (UTC here). */
export function laravelTime(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 19).replace('T', ' ');
}

export async function createLaravelDatabase(
  dialect: DialectName,
  rows: { users: LaravelUser[]; tokens: LaravelToken[]; teams?: { id: number; name: string }[] },
): Promise<LaravelDatabase> {
  const database = await createTestDatabase(dialect);
  const run = await runner(dialect, database.url);
  try {
    for (const statement of SCHEMA[dialect]) await run(statement, []);
    const q = (name: string) => (dialect === 'mysql' ? `\`${name}\`` : `"${name}"`);
    const insert = async (table: string, row: object) => {
      const columns = Object.keys(row);
      const marks = columns.map((_, i) => (dialect === 'postgres' ? `$${i + 1}` : '?'));
      await run(
        `insert into ${q(table)} (${columns.map(q).join(', ')}) values (${marks.join(', ')})`,
        Object.values(row),
      );
    };
    for (const user of rows.users) await insert('users', user);
    for (const team of rows.teams ?? []) await insert('teams', team);
    for (const token of rows.tokens) await insert('personal_access_tokens', token);
  } finally {
    await run.close();
  }
  return {
    url: database.url,
    drop: database.drop,
    async exec(statement) {
      const once = await runner(dialect, database.url);
      try {
        await once(statement, []);
      } finally {
        await once.close();
      }
    },
  };
}

type Runner = ((statement: string, values: unknown[]) => Promise<void>) & { close(): Promise<void> };

async function runner(dialect: DialectName, url: string): Promise<Runner> {
  if (dialect === 'sqlite') {
    // Through openSqliteFile like every SQLite handle: none may be left to the garbage collector (Node 24).
    const db = openSqliteFile(url.slice('sqlite:'.length));
    return Object.assign(
      async (statement: string, values: unknown[]) => void db.prepare(statement).run(...values),
      {
        close: async () => void db.close(),
      },
    );
  }
  if (dialect === 'postgres') {
    const client = new (loadPg().Client)({ connectionString: url });
    await client.connect();
    return Object.assign(
      async (statement: string, values: unknown[]) => void (await client.query(statement, values)),
      {
        close: () => client.end(),
      },
    );
  }
  // Like Laravel's MySQL connection (no 'timezone' in config/database.php): the server's own session
  // time zone, which the import reads back with too.
  const connection = await loadMysql2Promise().createConnection({ uri: url });
  return Object.assign(
    async (statement: string, values: unknown[]) => void (await connection.query(statement, values)),
    {
      close: () => connection.end(),
    },
  );
}
