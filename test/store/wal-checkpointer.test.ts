/**
 * The WAL checkpointer (server/store/wal-checkpointer.ts) with a real SQLite file: while it runs, the committing
 * connection leaves checkpoints to it (its own threshold raised to the backstop), the checkpointer copies the
 * committed log into the database file on its own thread, and once it is closed the connection checkpoints by
 * itself again. Nothing committed is lost either way.
 */
import { describe, expect, it } from 'vitest';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { openDb } from '../../server/store/db.js';
import { WalCheckpointer } from '../../server/store/wal-checkpointer.js';
import { tempDir } from '../server/helpers.js';

describe('WAL checkpoints on a thread of their own', () => {
  it('copies the committed log while the writer commits, and hands checkpoints back when closed', async () => {
    const tmp = tempDir();
    try {
      const db = openDb(join(tmp.dir, 'c.db'));
      db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, x TEXT)');
      const cp = new WalCheckpointer(db, { intervalMs: 20 });
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(16_384);
      const insert = db.prepare('INSERT INTO t (x) VALUES (?)');
      for (let i = 0; i < 200; i++) insert.run('x'.repeat(1000));
      const t0 = Date.now();
      while (cp.checkpoints === 0 && Date.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 20));
      expect(cp.checkpoints).toBeGreaterThan(0);
      // The rows are in the database file itself now, not only in the log (the writer never checkpointed: 200 KB
      // is far below its backstop).
      expect(statSync(join(tmp.dir, 'c.db')).size).toBeGreaterThan(200 * 1000);
      cp.close();
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
      expect((db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n).toBe(200);
      db.close();
    } finally {
      tmp.cleanup();
    }
  });
});
