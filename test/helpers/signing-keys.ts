import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../../src/db/connection.ts';
import type { Db } from '../../src/db/schema.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { insertSigningKey } from '../../src/oauth/signing-keys.repository.ts';
import type { NewSigningKeyRow } from '../../src/oauth/signing-keys.table.ts';
import { signingKeys } from '../../src/oauth/signing-keys.ts';
import { databaseConfig } from './databases.ts';
import { createMigratedDatabase } from './migrated-databases.ts';
import { RUN_ID, runFolder } from './test-run.ts';

/**
 * The OpenID provider's signing keys for test apps, made once per test run. The provider makes its
 * keys at its first start, a 2048-bit RSA key among them: about 330 ms of CPU on the 2-core CI machine,
 * and the suite starts hundreds of apps (267 in test/http and test/security alone), each on an empty
 * database. So the keys are made once (by the production code, signingKeys().ensure(), sealed with the
 * test APP_KEY) and written into each new app's database before the app starts. The first process of
 * the run to need them writes them to the run's folder (its own file, renamed into place); the others
 * read that. An app that must make its own, as a new installation does, asks for none
 * (`freshSigningKeys` in helpers/app.ts); servers started as processes always make their own.
 */
let made: Promise<NewSigningKeyRow[]> | undefined;

export async function writeTestSigningKeys(db: Db, appKey: Buffer): Promise<void> {
  made ??= runKeys(appKey);
  for (const row of await made) await insertSigningKey(db, row);
}

async function runKeys(appKey: Buffer): Promise<NewSigningKeyRow[]> {
  if (RUN_ID === null) return makeKeys(appKey);
  const file = join(runFolder(), 'signing-keys.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as NewSigningKeyRow[];
  const rows = await makeKeys(appKey);
  mkdirSync(runFolder(), { recursive: true });
  const building = join(runFolder(), `signing-keys.${process.pid}.json`);
  writeFileSync(building, JSON.stringify(rows));
  renameSync(building, file);
  return rows;
}

/** The rows a first start writes, made on a scratch copy of the migrated SQLite template. */
async function makeKeys(appKey: Buffer): Promise<NewSigningKeyRow[]> {
  const scratch = await createMigratedDatabase('sqlite');
  const handle = openDatabase(databaseConfig('sqlite', scratch.url));
  try {
    await signingKeys({ db: handle.db, appKey, clock: systemClock, retentionMs: 0 }).ensure();
    const rows = await handle.db.selectFrom('oauth_signing_keys').selectAll().orderBy('id').execute();
    return rows.map(({ id: _id, ...row }) => row);
  } finally {
    await handle.close();
    await scratch.drop();
  }
}
