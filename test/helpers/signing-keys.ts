import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { openDatabase } from '../../src/db/connection.ts';
import type { Db } from '../../src/db/schema.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { insertSigningKey } from '../../src/oauth/signing-keys.repository.ts';
import type { NewSigningKeyRow } from '../../src/oauth/signing-keys.table.ts';
import { signingKeys } from '../../src/oauth/signing-keys.ts';
import { databaseConfig } from './databases.ts';
import { createMigratedDatabase } from './migrated-databases.ts';
import { RUN_ID, runFile } from './test-run.ts';

/**
 * The OpenID provider's signing keys for test apps, made once per test run. The provider makes its
 * keys at its first start, a 2048-bit RSA key among them: about 330 ms of CPU on the 2-core CI machine,
 * and the suite starts hundreds of apps (267 in test/http and test/security alone), each on an empty
 * database. So the keys are made once per APP_KEY (by the production code, signingKeys().ensure(),
 * sealed with that key) and written into each new app's database before the app starts. The first
 * process of the run to need them writes them to a run file (helpers/test-run.ts runFile); the others
 * read that. An app that must make its own, as a new installation does, asks for none
 * (`freshSigningKeys` in helpers/app.ts); servers started as processes always make their own.
 */
const made = new Map<string, Promise<NewSigningKeyRow[]>>();

export async function writeTestSigningKeys(db: Db, appKey: Buffer): Promise<void> {
  // Keyed by a digest of the APP_KEY: rows sealed with one key are useless to an app with another.
  const id = createHash('sha256').update(appKey).digest('hex').slice(0, 16);
  let rows = made.get(id);
  if (rows === undefined) {
    rows = runKeys(id, appKey);
    made.set(id, rows);
  }
  for (const row of await rows) await insertSigningKey(db, row);
}

async function runKeys(id: string, appKey: Buffer): Promise<NewSigningKeyRow[]> {
  if (RUN_ID === null) return makeKeys(appKey);
  const file = await runFile(`signing-keys.${id}.json`, async (path) =>
    writeFileSync(path, JSON.stringify(await makeKeys(appKey))),
  );
  return JSON.parse(readFileSync(file, 'utf8')) as NewSigningKeyRow[];
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
