/**
 * WAL checkpoints of the world's SQLite file on a thread of their own. SQLite copies the write-ahead log back
 * into the database file (a checkpoint) on the committing connection once the log passes 1,000 pages: with
 * --sync full that is a write and an fsync of megabytes, and it held the game thread for 100-400 ms on a busy
 * disk (2,000 players: every command waiting behind it, several times a minute). Here the game's connection
 * leaves checkpoints to this thread, which runs a PASSIVE one every second on its own connection (it copies
 * what is committed and never blocks the writer); the game's connection checkpoints by itself again only if
 * the log passes `backstopPages` (this thread stopped, or a reader held it back). Durability is unchanged:
 * every commit is in the log, fsynced, before it is acknowledged.
 */
import { Worker } from 'node:worker_threads';
import type { Db } from './db.js';

const THREAD = new URL('./wal-checkpointer-thread.mjs', import.meta.url);

export interface WalCheckpointerOptions {
  intervalMs?: number;
  /** The game connection's own checkpoint threshold while this runs (pages; default 16,384, 64 MB at 4 KB). */
  backstopPages?: number;
  sync?: 'full' | 'normal';
  log?: { warn(obj: object, msg: string): void };
}

export class WalCheckpointer {
  private readonly worker: Worker;
  private closed = false;
  /** Checkpoints run with something in the log (tests read it). */
  checkpoints = 0;

  constructor(private readonly db: Db, opts: WalCheckpointerOptions = {}) {
    db.pragma(`wal_autocheckpoint = ${opts.backstopPages ?? 16_384}`);
    // A log reset after a checkpoint keeps its file; this bounds the file left behind.
    db.pragma('journal_size_limit = 67108864');
    this.worker = new Worker(THREAD, { workerData: { file: db.name, intervalMs: opts.intervalMs ?? 1000, sync: opts.sync ?? 'full' } });
    this.worker.unref();
    this.worker.on('message', (m: { type: 'checkpoint' } | { type: 'error'; message: string }) => {
      if (m.type === 'checkpoint') this.checkpoints++;
      else opts.log?.warn({ file: db.name, err: m.message }, 'a WAL checkpoint failed; the game\'s connection checkpoints by itself past its backstop');
    });
    this.worker.on('error', (err) => {
      opts.log?.warn({ file: db.name, err: err.message }, 'the WAL checkpointer stopped; the game\'s connection checkpoints by itself again');
      this.restoreAuto();
    });
  }

  private restoreAuto(): void {
    if (this.db.open) this.db.pragma('wal_autocheckpoint = 1000');
  }

  /** Stop checkpointing here (the thread closes its connection); the game's connection checkpoints by itself again. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.worker.postMessage('close');
    this.restoreAuto();
  }
}
