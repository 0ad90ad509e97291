/**
 * Issue 12, 8: a database that turns read-only under the game (SQLITE_READONLY, made real with SQLite's
 * query_only on the game's own connection): actions are refused saying so and change nothing, reads are
 * served, and once writes work again the next action is saved and play goes on.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GameHost } from '../../server/host/game-host.js';
import { tempDir, writeLittleWorld } from '../server/helpers.js';

describe('a read-only database under the game host', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it('refuses writes with the reason, serves reads, reverts nothing-saved changes, and recovers', async () => {
    const host = GameHost.open({ db: join(tmp.dir, 'ro.db'), world: writeLittleWorld(tmp.dir), storageRetryMs: 200 });
    try {
      host.watched.add('kitty');
      expect(host.submit('kitty', 'get shovel')).toMatchObject({ ok: true });
      const seqBefore = host.store.lastSeq();

      host.db.pragma('query_only = ON');
      const refused = host.submit('kitty', 'drop shovel');
      expect(refused).toMatchObject({ ok: false, seq: 0, failed: 'storage', text: expect.stringContaining('its database is read-only'), storage: { code: expect.stringMatching(/^SQLITE_READONLY/) } });
      // Nothing half-done: kitty still holds the shovel, in memory as on disk.
      expect(host.state('kitty')!.character.carrying.map((o) => o.id)).toEqual(['shovel']);
      expect(host.storageFault).not.toBeNull();
      // Reads are served and not logged.
      expect(host.submit('kitty', 'inventory')).toMatchObject({ ok: true, seq: 0, text: expect.stringContaining('shovel') });
      expect(host.submit('kitty', 'look')).toMatchObject({ ok: true, seq: 0 });
      // Until the retry is due, writes are refused without being tried.
      expect(host.submit('kitty', 'say hello')).toMatchObject({ ok: false, failed: 'storage' });
      // An admin operation too.
      expect(host.admin({ op: 'save', actor: 'kitty' }, null)).toMatchObject({ ok: false, text: expect.stringContaining('read-only') });
      expect(host.store.lastSeq()).toBe(seqBefore);

      host.db.pragma('query_only = OFF');
      await new Promise((r) => setTimeout(r, 250));
      const saved = host.submit('kitty', 'drop shovel');
      expect(saved).toMatchObject({ ok: true, storage: null });
      expect(saved.seq).toBeGreaterThan(seqBefore);
      expect(host.storageFault).toBeNull();
      expect(host.state('kitty')!.character.carrying).toEqual([]);
    } finally {
      host.close();
    }
  });
});
