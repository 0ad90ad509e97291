/** `again` survives a crash: the log holds the command it ran, so a replay from a snapshot does the same. On each store. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GameHost } from '../../server/host/game-host.js';
import { tempDir, writeLittleWorld } from './helpers.js';
import { storeKinds } from './stores.js';

for (const kind of storeKinds()) {
  describe.skipIf(kind.skip)(`again and the command log (${kind.name})`, () => {
    const tmp = tempDir();
    beforeAll(() => kind.setup());
    afterAll(async () => {
      await kind.teardown();
      tmp.cleanup();
    });

    it('a replay after the snapshot repeats what again did', async () => {
      const config = { ...kind.hostConfig(tmp.dir, 'again'), world: writeLittleWorld(tmp.dir) };
      const host = await GameHost.openAsync({ ...config, snapshotEvery: 2 });
      expect((await host.submitAsync('gardener', 'look')).ok).toBe(true);
      expect((await host.submitAsync('gardener', 'get candle')).ok).toBe(true); // the second command: a snapshot
      const again = await host.submitAsync('gardener', 'again'); // after the snapshot, only in the log
      expect(again.ok).toBe(true);
      expect(again.action).toBe('get candle');
      // As after a crash: the store's connection goes without a shutdown snapshot (on PostgreSQL, the world's lock with it).
      await host.store.close();
      // a second host recovers: the snapshot, then the log
      const recovered = await GameHost.openAsync(config);
      expect(recovered.info).toMatchObject({ restored: 'snapshot', replayed: 1, diverged: 0 });
      expect(recovered.state('gardener')!.character.carrying.filter((o) => o.name === 'candle')).toHaveLength(2);
      await recovered.closeAsync();
    });
  });
}
