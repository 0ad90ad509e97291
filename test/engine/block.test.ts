/**
 * LIGHT's block: who sees a block and an unblock, what a block does to the blocked one's going
 * (a roll from the world's seeded generator, 19 in 21 stopped at equal dexterity), when it ends
 * (unblock, a new block, the blocker gone from the room, a death), and blocks in LIGHT graphs.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { execute, validActions, World } from '../../server/engine/index.js';
import { die } from '../../server/engine/health.js';
import { nextRandom } from '../../server/engine/rng.js';
import { exportLightGraph, importLightGraph } from '../../server/world-io/light-graph.js';
import { loadWorld } from '../../server/world-io/load-world.js';
import { littleWorld } from '../fixtures/little-world.js';

/** The first block roll (0..20) a world seeded with `seed` gives. */
const firstRoll = (seed: number) => Math.floor(nextRandom(seed >>> 0).value * 21);
const seedWhere = (ok: (r: number) => boolean) => {
  for (let s = 1; s < 100_000; s++) if (ok(firstRoll(s))) return s;
  throw new Error('no seed');
};
const STOPS = seedWhere((r) => r > 1);
const LETS_GO = seedWhere((r) => r <= 1);

describe('block and unblock, seen by the two of them only', () => {
  it('block: the actor and the blocked are told, the room is not', () => {
    const w = littleWorld();
    const out = execute(w, 'gardener', 'block orc');
    expect(out.events[0]!.seen).toEqual({ gardener: 'You start blocking the orc.', orc: 'The gardener starts blocking you.' });
  });

  it('a new block ends the old one, and the old one is told', () => {
    const w = littleWorld();
    execute(w, 'gardener', 'block orc');
    const out = execute(w, 'gardener', 'block kitty');
    expect(out.events[0]!.seen).toEqual({
      gardener: 'You stop blocking the orc and start blocking the kitty.',
      orc: 'The gardener stops blocking you.',
      kitty: 'The gardener starts blocking you.',
    });
  });

  it('unblock: the blocked one is told wherever it is', () => {
    const w = littleWorld();
    execute(w, 'gardener', 'block orc');
    w.move('orc', 'shed', 'in');
    const out = execute(w, 'gardener', 'unblock');
    expect(out.events[0]!.seen).toEqual({ gardener: 'You stop blocking the orc.', orc: 'The gardener stops blocking you.' });
  });

  it('validActions lists block for each other character here and unblock while blocking, only with all', () => {
    const w = littleWorld();
    expect(validActions(w, 'gardener', { all: true })).toEqual(expect.arrayContaining(['block orc', 'block kitty']));
    expect(validActions(w, 'gardener', { all: true })).not.toContain('unblock');
    expect(validActions(w, 'gardener').filter((a) => /block/.test(a))).toEqual([]);
    execute(w, 'gardener', 'block orc');
    const all = validActions(w, 'gardener', { all: true });
    expect(all).toContain('unblock');
    expect(all).not.toContain('block orc');
    for (const a of all.filter((x) => /block/.test(x))) expect(execute(w.clone(), 'gardener', a).ok, a).toBe(true);
  });
});

describe('what a block does: the blocked one may not leave', () => {
  it('stopped by the roll: nobody moves, each viewer is told, the command fails on blocked', () => {
    const w = littleWorld(STOPS);
    w.setBlocking('orc', 'gardener');
    const out = execute(w, 'gardener', 'go north');
    expect(out.ok).toBe(false);
    expect(out.failed).toBe('blocked');
    expect(out.text).toBe('You try to leave, but the orc blocks your way!');
    expect(out.events).toHaveLength(1);
    expect(out.events[0]!.seen).toEqual({
      gardener: 'You try to leave, but the orc blocks your way!',
      orc: "You block the gardener's way!",
      kitty: 'The gardener tries to leave, but the orc blocks the way!',
    });
    expect(w.roomOf('gardener')).toBe('garden');
    expect(w.character('orc')!.blocking).toBe('gardener');
  });

  it('let through by the roll: the move happens as usual, and the block stays', () => {
    const w = littleWorld(LETS_GO);
    w.setBlocking('orc', 'gardener');
    const out = execute(w, 'gardener', 'n');
    expect(out.ok).toBe(true);
    expect(w.roomOf('gardener')).toBe('shed');
    expect(w.character('orc')!.blocking).toBe('gardener');
  });

  it('over seeds, about 19 in 21 tries are stopped at equal dexterity; a mover 19 defter always escapes', () => {
    let stopped = 0;
    const N = 2000;
    for (let s = 1; s <= N; s++) {
      const w = littleWorld(s);
      w.setBlocking('orc', 'gardener');
      if (!execute(w, 'gardener', 'n').ok) stopped++;
    }
    expect(stopped / N).toBeGreaterThan(0.87);
    expect(stopped / N).toBeLessThan(0.94);
    for (let s = 1; s <= 200; s++) {
      const w = littleWorld(s);
      w.setBlocking('orc', 'gardener');
      w.character('gardener')!.dexterity = 19;
      expect(execute(w, 'gardener', 'n').ok).toBe(true);
    }
  });

  it('is decided by the seed, and a clone decides the same', () => {
    const w = littleWorld(STOPS);
    w.setBlocking('orc', 'gardener');
    const c = w.clone();
    expect(execute(w, 'gardener', 'n').text).toBe(execute(c, 'gardener', 'n').text);
  });

  it('a blocker who has left the room blocks no more (no roll), and the block is gone', () => {
    const w = littleWorld(STOPS);
    w.setBlocking('ghost', 'gardener');
    const rng = w.toJSON().rngState;
    expect(execute(w, 'gardener', 'n').ok).toBe(true);
    expect(w.character('ghost')!.blocking).toBeUndefined();
    expect(w.toJSON().rngState).toBe(rng);
  });

  it('a follower someone blocks may be stopped while its leader goes', () => {
    const w = littleWorld(STOPS);
    w.setFollowing('gardener', 'orc');
    w.setBlocking('kitty', 'gardener');
    const out = execute(w, 'orc', 'n');
    expect(out.ok).toBe(true);
    expect(w.roomOf('orc')).toBe('shed');
    expect(w.roomOf('gardener')).toBe('garden');
    const held = out.events.find((e) => e.type === 'blocked')!;
    expect(held.seen['gardener']).toBe('You try to follow the orc, but the kitty blocks your way!');
    expect(held.seen['kitty']).toBe("You block the gardener's way!");
  });

  it('a death ends every block on or by the dead', () => {
    const w = littleWorld();
    w.setBlocking('orc', 'gardener');
    w.setBlocking('kitty', 'orc');
    die(w, 'orc');
    expect(w.character('kitty')!.blocking).toBeUndefined();
    expect(execute(w, 'gardener', 'n').ok).toBe(true);
  });

  it('a block survives JSON', () => {
    const w = littleWorld();
    execute(w, 'orc', 'block gardener');
    expect(World.fromJSON(JSON.stringify(w.toJSON())).character('orc')!.blocking).toBe('gardener');
  });
});

describe('blocks in LIGHT graphs', () => {
  it('export writes the block edge, import reads it back; a block of a thing or of oneself is dropped', () => {
    const w = littleWorld();
    execute(w, 'orc', 'block gardener');
    const graph = exportLightGraph(w.toJSON());
    expect(graph.nodes['orc']!['blocking']).toEqual({ target_id: 'gardener' });
    expect(graph.nodes['kitty']!['blocking']).toBeNull();
    expect((importLightGraph(graph, { file: 'g' }).state.nodes['orc'] as { blocking?: string }).blocking).toBe('gardener');
    graph.nodes['orc']!['blocking'] = { target_id: 'apple' };
    graph.nodes['kitty']!['blocking'] = { target_id: 'kitty' };
    const back = importLightGraph(graph, { file: 'g' }).state.nodes;
    expect((back['orc'] as { blocking?: string }).blocking).toBeUndefined();
    expect((back['kitty'] as { blocking?: string }).blocking).toBeUndefined();
  });

  const TUTORIAL = new URL('../../../shared/light-env/maps/tutorial_world.json', import.meta.url).pathname;
  it.skipIf(!existsSync(TUTORIAL))("LIGHT's tutorial world: its dungeon master blocks the player, as the map says", () => {
    const w = new World(loadWorld(TUTORIAL).state);
    expect(w.character('dungeon master_2')!.blocking).toBe('you_1');
  });
});
