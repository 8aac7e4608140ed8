import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type Kysely, type Migration, type MigrationResultSet, Migrator } from 'kysely';
import { forMigrations } from './mysql-schema.ts';
import type { Database } from './schema.ts';

const migrationsFolder = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

/**
 * Migrations are the timestamped files in db/migrations, compiled to .js in dist/ (scripts/build.mjs);
 * their order is their file name's order, and their name is the file's without the extension.
 */
async function loadMigrations(): Promise<Record<string, Migration>> {
  const files = (await readdir(migrationsFolder)).filter((f) =>
    /^\d{4}_\d{2}_\d{2}_\d{6}_[a-z0-9_]+\.js$/.test(f),
  );
  const migrations: Record<string, Migration> = {};
  for (const file of files.sort()) {
    migrations[file.replace(/\.js$/, '')] = await import(pathToFileURL(join(migrationsFolder, file)).href);
  }
  return migrations;
}

export async function migrateToLatest(db: Kysely<Database>): Promise<string[]> {
  const migrator = new Migrator({
    // Migrations describe the schema as it was, so they see an untyped database.
    db: (await forMigrations(db)) as unknown as Kysely<unknown>,
    provider: { getMigrations: loadMigrations },
    migrationTableName: 'migrations',
    migrationLockTableName: 'migrations_lock',
  });
  const result: MigrationResultSet = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error');
    const reason = result.error instanceof Error ? result.error.message : String(result.error);
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${reason}`);
  }
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
