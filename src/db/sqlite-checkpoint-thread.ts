import { parentPort, workerData } from 'node:worker_threads';
import { openSqliteFile } from './sqlite-handles.ts';

/*
 * The checkpointing thread of one SQLite database (sqlite-checkpoints.ts starts it from this file's
 * compiled twin in dist/): a connection of its own to the same file that copies what the WAL holds back
 * into the database file every `everyMs`. PASSIVE never waits for a lock nor holds up a reader or a
 * writer of the service's connection; what it cannot copy yet it copies on a later round.
 */

/** What the thread is started with. */
export interface CheckpointThreadData {
  readonly filename: string;
  readonly everyMs: number;
}

const { filename, everyMs } = workerData as CheckpointThreadData;
const database = openSqliteFile(filename, { fileMustExist: true });
// The checkpoint syncs the database file before the WAL may be reused, as the service's connection would.
database.exec('pragma synchronous = NORMAL; pragma busy_timeout = 0');
const checkpoint = database.prepare('pragma wal_checkpoint(PASSIVE)');

const timer = setInterval(() => {
  try {
    checkpoint.get();
  } catch {
    // SQLITE_BUSY and the like: another connection is checkpointing; the next round tries again.
  }
}, everyMs);

const port = parentPort!;
port.on('message', (message: unknown) => {
  if (message !== 'close') return;
  clearInterval(timer);
  database.close();
  port.close();
});
port.postMessage('ready');
