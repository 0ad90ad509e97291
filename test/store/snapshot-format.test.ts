/**
 * How a world's snapshot is kept in the SQLite file: deflated (a big world's JSON is mostly repetition, and
 * its commit is the game thread's longest write), read back exactly; a database whose snapshots an earlier
 * lightmud wrote as JSON text still opens where it left off. A real SQLite file.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { GameHost } from '../../server/host/game-host.js';
import { openDb } from '../../server/store/db.js';
import { tempDir, writeLittleWorld } from '../server/helpers.js';

describe('snapshots in the SQLite file', () => {
  it('are stored deflated and read back exactly; a text snapshot of an earlier version still restores', () => {
    const tmp = tempDir();
    try {
      const file = join(tmp.dir, 'w.db');
      const host = GameHost.open({ db: file, world: writeLittleWorld(tmp.dir) });
      expect(host.submit('kitty', 'get shovel').ok).toBe(true);
      const json = host.world.serialize();
      host.close();
      // close() wrote a snapshot of the world as it is.
      const db = openDb(file);
      const row = db.prepare('SELECT reason, state, length(state) AS bytes FROM snapshots ORDER BY id DESC LIMIT 1').get() as { reason: string; state: unknown; bytes: number };
      expect(Buffer.isBuffer(row.state)).toBe(true);
      expect(row.bytes).toBeLessThan(json.length / 2);
      // As an earlier version left it: the newest snapshot as JSON text.
      db.prepare("UPDATE snapshots SET state = ? WHERE id = (SELECT max(id) FROM snapshots)").run(json);
      db.close();

      const again = GameHost.open({ db: file });
      expect(again.world.serialize()).toBe(json);
      expect(again.submit('kitty', 'inventory').text).toContain('shovel');
      again.close();
    } finally {
      tmp.cleanup();
    }
  });
});
