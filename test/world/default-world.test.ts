/** The bundled world loads, validates, is big enough, keeps its conventions, and is one connected map. */
import { describe, expect, it } from 'vitest';
import { execute, World } from '../../server/engine/index.js';
import { lintWorld, unreachableRooms } from '../../server/engine/world-lint.js';
import { DEFAULT_WORLD, loadWorld } from '../../server/world-io/load-world.js';

describe('the bundled world', () => {
  const loaded = loadWorld(DEFAULT_WORLD);
  const w = new World(loaded.state);

  it('has at least 40 rooms in at least 8 LIGHT categories, 120 characters and 400 objects', () => {
    expect(w.rooms().length).toBeGreaterThanOrEqual(40);
    expect(new Set(w.rooms().map((r) => r.category.toLowerCase())).size).toBeGreaterThanOrEqual(8);
    expect(w.characters().length).toBeGreaterThanOrEqual(120);
    expect(w.objects().length).toBeGreaterThanOrEqual(400);
  });

  it('has a start room and every room reachable from every other', () => {
    expect(loaded.start).toBe('town-square');
    expect(unreachableRooms(loaded.state)).toEqual([]);
    // and really walkable: from the start, a breadth-first walk by `go` reaches every room
    const walker = w.clone();
    const me = walker.characters()[0]!.id;
    const seen = new Set<string>();
    const queue = [loaded.start!];
    while (queue.length) {
      const room = queue.shift()!;
      if (seen.has(room)) continue;
      seen.add(room);
      for (const exit of walker.room(room)!.exits) {
        walker.move(me, room, 'in');
        const out = execute(walker, me, `go ${exit.label}`);
        expect(out.ok, `${room}: go ${exit.label}: ${out.text}`).toBe(true);
        expect(walker.roomOf(me)).toBe(exit.to);
        queue.push(exit.to);
      }
    }
    expect(seen.size).toBe(w.rooms().length);
  });

  it('keeps its writing conventions: 3-5 sentence first-person personas, second-person descriptions', () => {
    expect(lintWorld(loaded.state)).toEqual([]);
  });

  it('has every affordance in real numbers, and every character holding or standing among things', () => {
    const count = (f: (o: ReturnType<World['objects']>[number]) => boolean) => w.objects().filter(f).length;
    expect(count((o) => o.container)).toBeGreaterThanOrEqual(40);
    expect(count((o) => o.surface)).toBeGreaterThanOrEqual(30);
    expect(count((o) => o.weapon)).toBeGreaterThanOrEqual(40);
    expect(count((o) => o.wearable)).toBeGreaterThanOrEqual(60);
    expect(count((o) => o.food)).toBeGreaterThanOrEqual(40);
    expect(count((o) => o.drink)).toBeGreaterThanOrEqual(30);
    expect(count((o) => !o.gettable)).toBeGreaterThanOrEqual(40);
    for (const r of w.rooms()) {
      expect(w.charactersIn(r.id).length, r.id).toBeGreaterThanOrEqual(2);
      expect(w.objects().filter((o) => w.roomOf(o.id) === r.id && !w.holderOf(o.id)).length, r.id).toBeGreaterThanOrEqual(3);
    }
  });

  it('can be played: the start room answers look, and its people can act', () => {
    const g = w.clone();
    const someone = g.charactersIn('town-square')[0]!.id;
    expect(execute(g, someone, 'look').text).toMatch(/^Market Square|^[A-Z]/);
    expect(execute(g, someone, 'wave').ok).toBe(true);
  });
});
