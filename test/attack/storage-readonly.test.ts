/**
 * Issue 12, 8: a database that turns read-only under the game: actions are refused saying so and change
 * nothing, reads are served, and once writes work again the next action is saved and play goes on.
 * Run against each store (issue 15): SQLite made read-only with query_only on the game's own connection
 * (SQLITE_READONLY), PostgreSQL with default_transaction_read_only on the world's writer connection
 * (SQLSTATE 25006).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GameHost } from '../../server/host/game-host.js';
import { tempDir, writeLittleWorld } from '../server/helpers.js';
import { storeKinds } from '../server/stores.js';

for (const kind of storeKinds()) {
  describe.skipIf(kind.skip)(`a read-only database under the game host (${kind.name})`, () => {
    const tmp = tempDir();
    beforeAll(() => kind.setup());
    afterAll(async () => {
      await kind.teardown();
      tmp.cleanup();
    });

    it('refuses writes with the reason, serves reads, reverts nothing-saved changes, and recovers', async () => {
      const host = await GameHost.openAsync({ ...kind.hostConfig(tmp.dir, 'ro'), world: writeLittleWorld(tmp.dir), storageRetryMs: 200 });
      try {
        host.watched.add('kitty');
        expect(await host.submitAsync('kitty', 'get shovel')).toMatchObject({ ok: true });
        const seqBefore = host.store.lastSeq();

        await kind.readOnly(host, true);
        const refused = await host.submitAsync('kitty', 'drop shovel');
        expect(refused).toMatchObject({ ok: false, seq: 0, failed: 'storage', text: expect.stringContaining('its database is read-only'), storage: { code: expect.stringMatching(/^(SQLITE_READONLY|PG_25006)/) } });
        // Nothing half-done: kitty still holds the shovel, in memory as on disk.
        expect(host.state('kitty')!.character.carrying.map((o) => o.id)).toEqual(['shovel']);
        expect(host.storageFault).not.toBeNull();
        // Reads are served and not logged.
        expect(await host.submitAsync('kitty', 'inventory')).toMatchObject({ ok: true, seq: 0, text: expect.stringContaining('shovel') });
        expect(await host.submitAsync('kitty', 'look')).toMatchObject({ ok: true, seq: 0 });
        // Until the retry is due, writes are refused without being tried.
        expect(await host.submitAsync('kitty', 'say hello')).toMatchObject({ ok: false, failed: 'storage' });
        // An admin operation too.
        expect(await host.adminAsync({ op: 'save', actor: 'kitty' }, null)).toMatchObject({ ok: false, text: expect.stringContaining('read-only') });
        expect(host.store.lastSeq()).toBe(seqBefore);

        await kind.readOnly(host, false);
        await new Promise((r) => setTimeout(r, 250));
        const saved = await host.submitAsync('kitty', 'drop shovel');
        expect(saved).toMatchObject({ ok: true, storage: null });
        expect(saved.seq).toBeGreaterThan(seqBefore);
        expect(host.storageFault).toBeNull();
        expect(host.state('kitty')!.character.carrying).toEqual([]);
      } finally {
        await host.closeAsync();
      }
      // What the database holds: the two saved actions, not the refused ones.
      expect((await kind.logged(tmp.dir, 'ro', { limit: 10 })).map((r) => r.input)).toEqual(['get shovel', 'drop shovel']);
    });
  });
}
