// The WAL checkpointer's thread (server/store/wal-checkpointer.ts): its own connection to the SQLite file,
// a PASSIVE checkpoint every intervalMs (it never blocks the writer), its outcome posted to the owner.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { file, intervalMs, sync } = workerData;
const db = new Database(file, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
db.pragma(`synchronous = ${sync === 'normal' ? 'NORMAL' : 'FULL'}`);

const timer = setInterval(() => {
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    if (r.log > 0) parentPort.postMessage({ type: 'checkpoint' });
  } catch (err) {
    parentPort.postMessage({ type: 'error', message: err instanceof Error ? err.message : String(err) });
  }
}, intervalMs);

parentPort.on('message', (m) => {
  if (m !== 'close') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
