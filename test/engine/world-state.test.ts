/** The world as data: clone, serialise and reload without loss; deterministic for a seed. */
import { describe, expect, it } from 'vitest';
import { execute, Rng, validActions, World } from '../../server/engine/index.js';
import { littleWorld } from '../fixtures/little-world.js';

function playRandomly(w: World, seed: number, steps: number): string[] {
  const rng = new Rng(seed);
  const log: string[] = [];
  for (let i = 0; i < steps; i++) {
    const actor = rng.pick(w.characters()).id;
    const options = [...validActions(w, actor), 'look', 'n', 's', 'say hi', 'wave'];
    const cmd = rng.pick(options);
    log.push(`${actor}: ${cmd} -> ${execute(w, actor, cmd).text}`);
  }
  return log;
}

describe('world state', () => {
  it('round-trips through JSON without loss', () => {
    const w = littleWorld();
    playRandomly(w, 3, 30);
    const json = JSON.stringify(w.toJSON());
    const back = World.fromJSON(json);
    expect(JSON.stringify(back.toJSON())).toBe(json);
    expect(back.children('garden')).toEqual(w.children('garden'));
    for (const c of w.characters()) expect(validActions(back, c.id)).toEqual(validActions(w, c.id));
  });

  it('clones are independent', () => {
    const w = littleWorld();
    const c = w.clone();
    execute(c, 'gardener', 'get shovel');
    expect(c.placement('shovel')?.parent).toBe('gardener');
    expect(w.placement('shovel')?.parent).toBe('garden');
  });

  it('a copy of one room holds that room and everything in it, in order, and acts there as the world does', () => {
    const w = littleWorld();
    playRandomly(w, 5, 20);
    for (const room of w.rooms()) {
      const part = w.cloneRoom(room.id);
      const inside = w.nodes().filter((n) => n.id === room.id || w.isInside(n.id, room.id)).map((n) => n.id).sort();
      expect(part.nodes().map((n) => n.id).sort()).toEqual(inside);
      for (const id of inside) expect(part.children(id)).toEqual(w.children(id));
      // every action a character there can take is the same in the copy, and doing it leaves the world alone
      for (const c of w.charactersIn(room.id)) {
        expect(validActions(part, c.id)).toEqual(validActions(w, c.id));
        const before = JSON.stringify(w.toJSON());
        for (const a of validActions(part, c.id).filter((x) => !/^(?:go|follow)\b/.test(x)).slice(0, 5)) {
          const mine = w.cloneRoom(room.id);
          const whole = w.clone();
          expect(execute(mine, c.id, a).text).toBe(execute(whole, c.id, a).text);
        }
        expect(JSON.stringify(w.toJSON())).toBe(before);
      }
    }
  });

  it('the same seed and the same commands give the same world, and the seeded random state is part of it', () => {
    const a = littleWorld(42);
    const b = littleWorld(42);
    expect(playRandomly(a, 9, 60)).toEqual(playRandomly(b, 9, 60));
    expect(a.random()).toBe(b.random());
    expect(JSON.stringify(a.toJSON())).toBe(JSON.stringify(b.toJSON()));
    const c = littleWorld(43);
    expect(c.random()).not.toBe(littleWorld(42).random());
  });

  it('children keep their order: a moved node goes last', () => {
    const w = littleWorld();
    execute(w, 'gardener', 'get shovel');
    execute(w, 'gardener', 'drop shovel');
    expect(w.children('garden').at(-1)).toBe('shovel');
  });
});
