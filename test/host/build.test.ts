/** The builder rules (server/host/build.ts) on a World, and the game host keeping what they make over a reopen of its store (SQLite, PostgreSQL). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { World, buildWorldState } from '../../server/engine/index.js';
import { build, parseCreate } from '../../server/host/build.js';
import { GameHost } from '../../server/host/game-host.js';
import { storeKinds } from '../server/stores.js';
import { LITTLE_WORLD } from '../fixtures/little-world.js';
import { tempDir, writeLittleWorld } from '../server/helpers.js';

const little = () => new World(buildWorldState([{ file: 'little', data: LITTLE_WORLD }]).state);

describe('builder rules', () => {
  it('digs a room with the way back, and names the way back by the room for a label that is no direction', () => {
    const w = little();
    const r = build(w, 'kitty', 'dig', 'e  Herb   Bed');
    expect(r.ok).toBe(true);
    const bed = w.room(r.created![0]!)!;
    expect(bed).toMatchObject({ name: 'Herb Bed', category: 'Farm', exits: [{ label: 'west', to: 'garden' }] });
    expect(w.room('garden')!.exits).toEqual([{ label: 'north', to: 'shed' }, { label: 'east', to: bed.id }]);
    const stairs = build(w, 'kitty', 'dig', '"cellar stairs" Cellar');
    expect(stairs.ok).toBe(true);
    expect(w.room(stairs.created![0]!)!.exits).toEqual([{ label: 'walled garden', to: 'garden' }]);
    expect(w.room('garden')!.exits.map((e) => e.label)).toEqual(['north', 'east', 'cellar stairs']);
  });

  it('refuses over-long names and text (the world file limits) and changes nothing', () => {
    const w = little();
    const before = JSON.stringify(w.toJSON());
    expect(build(w, 'kitty', 'dig', `east ${'x'.repeat(81)}`).text).toMatch(/at most 80 characters/);
    expect(build(w, 'kitty', 'describe', `here = ${'y'.repeat(4001)}`).text).toMatch(/at most 4000 characters \(that one has 4001\)/);
    expect(build(w, 'kitty', 'create', `${'z'.repeat(81)}`).text).toMatch(/at most 80 characters/);
    expect(build(w, 'kitty', 'create', `box = ${'y'.repeat(4001)}`).text).toMatch(/at most 4000 characters/);
    expect(JSON.stringify(w.toJSON())).toBe(before);
    expect(build(w, 'kitty', 'describe', `here = ${'y'.repeat(4000)}`).ok).toBe(true);
  });

  it('reads @create: the object keyword, = description, with affordances, +flags, and "with" that belongs to the name', () => {
    expect(parseCreate('object Iron Sword = A notched blade. with weapon')).toMatchObject({ ok: true, name: 'iron sword', description: 'A notched blade.' });
    const skep = parseCreate('bee skep with fixed, container and surface');
    expect(skep.ok && [...skep.affordances].sort()).toEqual(['container', 'fixed', 'surface']);
    expect(parseCreate('cup with handles')).toMatchObject({ ok: true, name: 'cup with handles', description: null });
    expect(parseCreate('rock with not gettable')).toMatchObject({ ok: true, name: 'rock' });
    const old = parseCreate('golden goblet +drink +fixed');
    expect(old.ok && [...old.affordances].sort()).toEqual(['drink', 'fixed']);
    expect(parseCreate('mug +shiny')).toMatchObject({ ok: false, message: expect.stringContaining('Unknown affordance: shiny') });
    const w = little();
    const made = build(w, 'kitty', 'create', 'rock with not gettable');
    expect(w.object(made.created![0]!)).toMatchObject({ name: 'rock', gettable: false, container: false, description: 'You see a rock.' });
  });
});

for (const kind of storeKinds()) {
  describe.skipIf(kind.skip)(`the game host keeps what builders make (${kind.name})`, () => {
    const tmp = tempDir();
    beforeAll(() => kind.setup());
    afterAll(async () => {
      await kind.teardown();
      tmp.cleanup();
    });

    it('logs each change with a snapshot in one transaction: reopened without a clean close, the world is as built', async () => {
      const config = { ...kind.hostConfig(tmp.dir, 'host'), world: writeLittleWorld(tmp.dir) };
      const host = await GameHost.openAsync(config);
      const dug = await host.adminAsync({ op: 'build', actor: 'orc', verb: 'dig', args: 'east Herb Bed' }, 'root');
      expect(dug.ok).toBe(true);
      expect(await host.adminAsync({ op: 'build', actor: 'orc', verb: 'dig', args: 'east Herb Bed' }, 'root')).toMatchObject({ ok: false, text: expect.stringContaining('already an exit "east"') });
      expect((await host.submitAsync('orc', 'go east')).ok).toBe(true);
      expect((await host.adminAsync({ op: 'build', actor: 'orc', verb: 'describe', args: 'here = Bees.' }, 'root')).ok).toBe(true);
      expect((await host.adminAsync({ op: 'create', actor: 'orc', spec: 'hive = Humming. with container, fixed' }, 'root')).ok).toBe(true);
      expect((await host.submitAsync('orc', 'put club in hive')).ok).toBe(false); // wielded: remove it first
      expect((await host.submitAsync('orc', 'remove club')).ok).toBe(true);
      expect((await host.submitAsync('orc', 'put club in hive')).ok).toBe(true);
      const log = (await kind.logged(tmp.dir, 'host', { limit: 10 })).reverse().map((e) => `${e.kind} ${e.input}`);
      expect(log.filter((l) => l.startsWith('admin'))).toEqual(['admin @create hive = Humming. with container, fixed', 'admin @describe here = Bees.', 'admin @dig east Herb Bed']);
      const expected = host.world.toJSON();
      // No close(): no shutdown snapshot, as after a kill -9.
      await host.store.close();
      const again = await GameHost.openAsync(config);
      expect(again.world.toJSON().nodes).toEqual(expected.nodes);
      expect(again.world.toJSON().placement).toEqual(expected.placement);
      await again.closeAsync();
    });
  });
}
