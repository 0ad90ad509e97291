/**
 * The periodic snapshot and the observers' states after a batch's commit (load2000, issue 12), on each
 * store (issue 15): the snapshot is its own write after the commands it follows, through the store
 * interface; a storage fault there is handled as for a failed batch (writes refused until a retry
 * succeeds, nothing reverted: the commands are committed); observers' states are computed from
 * committed changes only, once each. The worker's path (replies, then the snapshot, then the states,
 * on PostgreSQL each awaited in order) is run by a server with a snapshot after every command.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GameHost } from '../../server/host/game-host.js';
import type { WorldWrite } from '../../server/store/store.js';
import { startTestServer, tempDir, writeLittleWorld, WsClient } from '../server/helpers.js';
import { storeKinds } from '../server/stores.js';

for (const kind of storeKinds()) {
  describe.skipIf(kind.skip)(`the periodic snapshot and observers' states after the commit (${kind.name})`, () => {
    const tmp = tempDir();
    beforeAll(() => kind.setup());
    afterAll(async () => {
      await kind.teardown();
      tmp.cleanup();
    });

    it('writes the snapshot after the commit of the batch, not in it, at the last committed command', async () => {
      const host = await GameHost.openAsync({ ...kind.hostConfig(tmp.dir, 'snap'), world: writeLittleWorld(tmp.dir), snapshotEvery: 2 });
      try {
        const writes: WorldWrite[] = [];
        const write = host.store.write.bind(host.store);
        host.store.write = (w: WorldWrite) => {
          writes.push(w);
          return write(w);
        };
        host.prepare('kitty', 'get shovel');
        host.prepare('kitty', 'get candle');
        const results = await host.commitAsync();
        expect(results.map((r) => r.ok)).toEqual([true, true]);
        // The commands' write holds their events only; the snapshot is due, not yet written.
        expect(writes).toHaveLength(1);
        expect(writes[0]!.snapshot).toBeUndefined();
        expect(host.store.latestSnapshot()!.reason).toBe('seed');
        await host.snapshotStep();
        expect(writes).toHaveLength(2);
        expect(writes[1]!.events).toBeUndefined();
        const snap = host.store.latestSnapshot()!;
        expect(snap).toMatchObject({ reason: 'periodic', seq: results[1]!.seq });
        expect(JSON.stringify(snap.state)).toBe(host.world.serialize());
        // Not due again until two more commands.
        await host.snapshotStep();
        expect(writes).toHaveLength(2);
        // submitAsync writes the snapshot when one comes due after its command.
        await host.submitAsync('kitty', 'drop shovel');
        expect(writes).toHaveLength(3);
        await host.submitAsync('kitty', 'drop candle');
        expect(writes).toHaveLength(5);
        expect(host.store.latestSnapshot()).toMatchObject({ reason: 'periodic', seq: host.store.lastSeq() });
      } finally {
        await host.closeAsync();
      }
    });

    it('a storage fault on the snapshot write: writes refused until a retry succeeds, nothing reverted, the snapshot written then', async () => {
      const host = await GameHost.openAsync({ ...kind.hostConfig(tmp.dir, 'snapfault'), world: writeLittleWorld(tmp.dir), snapshotEvery: 1, storageRetryMs: 200 });
      try {
        const write = host.store.write.bind(host.store);
        let refuseSnapshots = true;
        const code = kind.name === 'sqlite' ? 'SQLITE_FULL' : 'PG_53100';
        host.store.write = (w: WorldWrite) => {
          if (refuseSnapshots && w.snapshot && !w.events) {
            const err = Object.assign(new Error('the disk is full'), { code });
            return host.store.sync ? (() => { throw err; })() : Promise.reject(err);
          }
          return write(w);
        };
        const got = await host.submitAsync('kitty', 'get shovel');
        // The command is committed and acknowledged as such; the snapshot after it was refused.
        expect(got).toMatchObject({ ok: true, storage: null });
        expect(host.storageFault).toMatchObject({ code });
        expect(host.store.latestSnapshot()!.reason).toBe('seed');
        // Nothing reverted: the command is in the log and in the world.
        expect(host.state('kitty')!.character.carrying.map((o) => o.id)).toEqual(['shovel']);
        // Writes are refused until the retry is due, reads served.
        expect(await host.submitAsync('kitty', 'drop shovel')).toMatchObject({ ok: false, failed: 'storage', storage: { code } });
        expect(await host.submitAsync('kitty', 'inventory')).toMatchObject({ ok: true, seq: 0 });
        refuseSnapshots = false;
        await new Promise((r) => setTimeout(r, 250));
        const retried = await host.submitAsync('kitty', 'drop shovel');
        expect(retried).toMatchObject({ ok: true, storage: null });
        expect(host.storageFault).toBeNull();
        expect(host.store.latestSnapshot()).toMatchObject({ reason: 'periodic', seq: retried.seq });
      } finally {
        await host.closeAsync();
      }
      expect((await kind.logged(tmp.dir, 'snapfault', { limit: 10 })).map((r) => r.input)).toEqual(['get shovel', 'drop shovel']);
    });

    it("observers' states after the commit only, one each however many commands changed their room", async () => {
      const host = await GameHost.openAsync({ ...kind.hostConfig(tmp.dir, 'observers'), world: writeLittleWorld(tmp.dir) });
      try {
        host.watched.add('kitty');
        host.watched.add('orc');
        host.prepare('gardener', 'drop apple');
        host.prepare('gardener', 'drop pebble');
        // Nothing committed yet: no observer's state may be computed.
        expect(host.staleObservers).toBe(0);
        expect(() => host.observerStates()).toThrow(/not committed/);
        await host.commitAsync();
        expect(host.staleObservers).toBe(2);
        const states = host.observerStates();
        expect(Object.keys(states).sort()).toEqual(['kitty', 'orc']);
        expect(states.kitty!.objects.map((o) => o.id)).toEqual(expect.arrayContaining(['apple', 'pebble']));
        expect(host.observerStates()).toEqual({});
        // Speech changes nothing: no fresh states.
        await host.submitAsync('gardener', 'say hello');
        expect(host.staleObservers).toBe(0);
      } finally {
        await host.closeAsync();
      }
    });

    it('through the worker: answers, a snapshot after every command, and the observer sees each committed change', async () => {
      const server = await startTestServer({ ...kind.serverOptions(tmp.dir, 'worker'), snapshotEvery: 1 }, tmp.dir);
      try {
        const gardener = await WsClient.open(server.wsUrl);
        await gardener.guest('gardener');
        const kitty = await WsClient.open(server.wsUrl);
        await kitty.guest('kitty');
        for (const [cmd, id] of [['drop apple', 'apple'], ['drop pebble', 'pebble'], ['drop sack', 'sack']] as const) {
          const { result } = await gardener.command(cmd);
          expect(result.ok, `${cmd}: ${result.text}`).toBe(true);
          await kitty.event('drops');
          const state = await kitty.next((f) => f.type === 'state' && f.objects.some((o) => o.id === id), `kitty's state with the ${id}`);
          expect(state.type).toBe('state');
        }
        // A burst: every command answered, in order, while snapshots are written between the batches.
        const burst = Array.from({ length: 12 }, (_, i) => gardener.command(i % 2 ? 'drop apple' : 'get apple'));
        const results = await Promise.all(burst);
        expect(results.every((r) => r.result.ok)).toBe(true);
        const seqs = results.map((r) => r.result.seq!);
        expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
        await kitty.close();
        await gardener.close();
      } finally {
        await server.close();
      }
    });
  });
}
