/**
 * Health, hit's harm and death: what each roll does and who sees what, the body a death leaves and
 * what it holds, what a dead character can still do (nothing), the health command, and health
 * through world files, JSON and LIGHT's graph format.
 */
import { describe, expect, it } from 'vitest';
import { buildWorldState, DEFAULT_HEALTH, execute, validActions, World, WorldFileError, type GameEvent } from '../../server/engine/index.js';
import { helpText } from '../../server/engine/help.js';
import { exportLightGraph, importLightGraph } from '../../server/world-io/light-graph.js';
import { LITTLE_WORLD, littleWorld } from '../fixtures/little-world.js';
import { rollsOf, seedRolling } from '../fixtures/hit-seeds.js';

const place = (w: World, id: string) => {
  const p = w.placement(id);
  return p ? `${p.rel} ${p.parent}` : null;
};

describe('hit: one roll of the world\'s generator a hit', () => {
  type Row = { roll: 'miss' | 'blocked' | 'harm'; cmd: string; actor: string; target: string; health: number; seen: Record<string, string> };
  const rows: Row[] = [
    {
      roll: 'miss', actor: 'kitty', cmd: 'hit orc', target: 'orc', health: 6,
      seen: { kitty: 'You swing at the orc but miss.', orc: 'The kitty swings at you but misses.', gardener: 'The kitty swings at the orc but misses.' },
    },
    {
      roll: 'blocked', actor: 'kitty', cmd: 'hit orc', target: 'orc', health: 6,
      seen: { kitty: 'You hit the orc, but the blow does no harm.', orc: 'The kitty hits you, but the blow does no harm.', gardener: 'The kitty hits the orc, but the blow does no harm.' },
    },
    {
      roll: 'harm', actor: 'kitty', cmd: 'hit orc', target: 'orc', health: 4,
      seen: { kitty: 'You hit the orc. The orc looks bruised.', orc: 'The kitty hits you! You are feeling bruised.', gardener: 'The kitty hits the orc.' },
    },
    {
      roll: 'miss', actor: 'orc', cmd: 'attack the gardener', target: 'gardener', health: 6,
      seen: { orc: 'You swing at the gardener with the club but miss.', gardener: 'The orc swings at you with a club but misses.', kitty: 'The orc swings at the gardener with a club but misses.' },
    },
    {
      roll: 'harm', actor: 'orc', cmd: 'punch gardener', target: 'gardener', health: 4,
      seen: { orc: 'You hit the gardener with the club. The gardener looks bruised.', gardener: 'The orc hits you with a club! You are feeling bruised.', kitty: 'The orc hits the gardener with a club.' },
    },
  ];
  for (const r of rows) {
    it(`${r.actor}: ${r.cmd}, rolling ${r.roll}: ${r.target} at ${r.health}, each viewer's words, nobody elsewhere`, () => {
      const w = littleWorld(seedRolling([r.roll]));
      const before = JSON.stringify(w.toJSON().placement);
      const out = execute(w, r.actor, r.cmd);
      expect(out.ok).toBe(true);
      expect(out.action).toBe(`hit ${r.target}`);
      expect(out.events).toHaveLength(1);
      expect(out.events[0]!.seen).toEqual(r.seen);
      expect(out.text).toBe(r.seen[r.actor]);
      expect(w.character(r.target)!.health ?? DEFAULT_HEALTH).toBe(r.health);
      if (r.roll === 'harm') expect(out.events[0]!.damage).toBe(2);
      else expect(out.events[0]!.damage).toBeUndefined();
      // hit moves nothing
      expect(JSON.stringify(w.toJSON().placement)).toBe(before);
    });
  }

  it('is deterministic for a seed, and the seed decides', () => {
    const run = (seed: number) => {
      const w = littleWorld(seed);
      const texts = [1, 2, 3, 4, 5].map(() => execute(w, 'kitty', 'hit gardener').text);
      return { texts, health: w.character('gardener')?.health, rng: w.toJSON().rngState };
    };
    expect(run(11)).toEqual(run(11));
    const seeds = [1, 2, 3, 4, 5, 6, 7, 8].map((s) => JSON.stringify(run(s).texts));
    expect(new Set(seeds).size).toBeGreaterThan(1);
    // the rolls the engine made are the ones the world's generator gives
    const w = littleWorld(3);
    const texts = [1, 2, 3].map(() => execute(w, 'kitty', 'hit orc').text);
    const expected = rollsOf(3, 3).map((k) => (k === 'miss' ? /miss/ : k === 'blocked' ? /no harm/ : /You hit the orc\./));
    texts.forEach((t, i) => expect(t).toMatch(expected[i]!));
  });

  it('a clone rolls as the original does (the generator is in the state)', () => {
    const w = littleWorld(5);
    execute(w, 'kitty', 'hit orc');
    const c = w.clone();
    expect(execute(c, 'kitty', 'hit orc').text).toBe(execute(w, 'kitty', 'hit orc').text);
    expect(c.character('orc')!.health).toBe(w.character('orc')!.health);
  });

  it('a failed hit rolls nothing and changes nothing', () => {
    const w = littleWorld(9);
    const before = JSON.stringify(w.toJSON());
    for (const cmd of ['hit ghost', 'hit boulder', 'hit me', 'hit nobody']) expect(execute(w, 'kitty', cmd).ok).toBe(false);
    expect(JSON.stringify(w.toJSON())).toBe(before);
  });
});

describe('death', () => {
  /** The orc at `health`, hit by the kitty rolling harm (and the gardener following the orc). */
  function killOrc(health: number): { w: World; events: GameEvent[]; text: string } {
    const w = littleWorld(seedRolling(['harm']));
    w.setHealth('orc', health);
    execute(w, 'gardener', 'follow orc');
    const out = execute(w, 'kitty', 'hit orc');
    expect(out.ok).toBe(true);
    return { w, events: out.events, text: out.text };
  }

  it.each([1, 2])('at %i health a harming hit kills: a hit, then a death, each seen by the room', (health) => {
    const { events, text } = killOrc(health);
    expect(events.map((e) => e.type)).toEqual(['hit', 'death']);
    expect(events[0]!.seen).toEqual({ kitty: 'You hit the orc.', orc: 'The kitty hits you!', gardener: 'The kitty hits the orc.' });
    expect(events[1]!).toMatchObject({ type: 'death', actor: 'orc', room: 'garden', object: 'orc__dead__' });
    expect(events[1]!.seen).toEqual({ orc: 'You die.', kitty: 'The orc dies.', gardener: 'The orc dies.' });
    expect(text).toBe('You hit the orc. The orc dies.');
  });

  it('at 3 health the same hit leaves the orc close to death', () => {
    const { w, events } = killOrc(3);
    expect(events.map((e) => e.type)).toEqual(['hit']);
    expect(w.character('orc')!.health).toBe(1);
    expect(events[0]!.seen['orc']).toBe('The kitty hits you! You are feeling close to death.');
  });

  it('the body is a container in the room holding what was carried, worn and wielded; the character is gone', () => {
    const { w } = killOrc(2);
    expect(w.character('orc')).toBeUndefined();
    expect(w.has('orc')).toBe(false);
    const body = w.object('orc__dead__')!;
    expect(body).toMatchObject({ name: 'body of the orc', prefix: 'the', container: true, gettable: false, surface: false });
    expect(place(w, 'orc__dead__')).toBe('in garden');
    const contents: [string, string | null][] = [['ring', 'in orc__dead__'], ['helmet', 'in orc__dead__'], ['club', 'in orc__dead__']];
    for (const [id, where] of contents) expect(place(w, id)).toBe(where);
    expect(w.children('orc__dead__')).toEqual(['ring', 'helmet', 'club']);
    // nobody follows the dead
    expect(w.character('gardener')!.following).toBeUndefined();
    // the world still holds together: every placement names a node that exists
    for (const [id, p] of Object.entries(w.toJSON().placement)) {
      expect(w.has(id)).toBe(true);
      expect(w.has(p.parent)).toBe(true);
    }
  });

  it('the living see the body and can take from it; nobody can hit the dead', () => {
    const { w } = killOrc(2);
    expect(execute(w, 'kitty', 'look').text).toMatch(/body of the orc/);
    expect(execute(w, 'kitty', 'look in body').text).toMatch(/silver ring/);
    const valid = validActions(w, 'kitty');
    expect(valid).toContain('get silver ring from body of the orc');
    expect(valid).toContain('get club from body of the orc');
    expect(valid.some((a) => a.startsWith('hit orc') || a === 'steal silver ring from orc')).toBe(false);
    const rows: [string, boolean, RegExp][] = [
      ['get club from body', true, /You get the club/],
      ['get body', false, /can't pick up the body of the orc/],
      ['hit body', false, /not someone you can do that to/],
      ['hit orc', false, /not someone|don't see anyone/],
      ['health orc', false, /not someone|don't see anyone/],
    ];
    for (const [cmd, ok, says] of rows) {
      const out = execute(w, 'kitty', cmd);
      expect({ cmd, ok: out.ok }).toEqual({ cmd, ok });
      expect(out.text).toMatch(says);
    }
  });

  it('a dead character can do nothing, and is told why', () => {
    const { w } = killOrc(2);
    const before = JSON.stringify(w.toJSON());
    for (const cmd of ['look', 'health', 'say hello', 'get shovel', 'hit kitty', 'north', 'inventory', 'again', 'wave', 'help']) {
      const out = execute(w, 'orc', cmd);
      expect({ cmd, ok: out.ok, text: out.text, events: out.events }).toEqual({ cmd, ok: false, text: 'You are dead; you cannot act.', events: [] });
    }
    expect(validActions(w, 'orc')).toEqual([]);
    expect(validActions(w, 'orc', { all: true })).toEqual([]);
    expect(JSON.stringify(w.toJSON())).toBe(before);
    // a name that never lived is still unknown
    expect(execute(w, 'dragon', 'look').text).toBe('There is no character "dragon".');
  });

  it('a death round-trips through JSON, body and all', () => {
    const { w } = killOrc(2);
    const json = JSON.stringify(w.toJSON());
    const back = World.fromJSON(json);
    expect(JSON.stringify(back.toJSON())).toBe(json);
    expect(back.children('orc__dead__')).toEqual(['ring', 'helmet', 'club']);
    expect(execute(back, 'orc', 'look').text).toBe('You are dead; you cannot act.');
  });

  it('a fight to the death: hit after hit until one dies, every step deterministic', () => {
    const fight = (seed: number) => {
      const w = littleWorld(seed);
      const log: string[] = [];
      for (let i = 0; i < 100 && w.character('gardener'); i++) log.push(execute(w, 'kitty', 'hit gardener').text);
      return { w, log };
    };
    const { w, log } = fight(42);
    expect(fight(42).log).toEqual(log);
    expect(log.at(-1)).toBe('You hit the gardener. The gardener dies.');
    // six health, two a harming hit: exactly three harming hits
    expect(log.filter((l) => /^You hit the gardener\.( The gardener (looks|dies))/.test(l))).toHaveLength(3);
    expect(w.children('gardener__dead__').sort()).toEqual(['ale', 'apple', 'hat', 'pebble', 'sack'].sort());
    expect(place(w, 'seed')).toBe('in sack');
  });
});

describe('the health command', () => {
  const rows: { cmd: string; actor?: string; orcHealth?: number; ok: boolean; text: string | RegExp }[] = [
    { cmd: 'health', ok: true, text: 'You are feeling fine.' },
    { cmd: 'status', ok: true, text: 'You are feeling fine.' },
    { cmd: 'hp', actor: 'orc', orcHealth: 1, ok: true, text: 'You are feeling close to death.' },
    { cmd: 'health', actor: 'orc', orcHealth: 9, ok: true, text: 'You are feeling very strong.' },
    { cmd: 'health me', ok: true, text: 'You are feeling fine.' },
    { cmd: 'health orc', ok: true, text: 'The orc looks fine.' },
    { cmd: 'health orc', orcHealth: 2, ok: true, text: 'The orc looks badly hurt.' },
    { cmd: 'diagnose the orc', orcHealth: 3, ok: true, text: 'The orc looks hurt.' },
    { cmd: 'health of orc', orcHealth: 5, ok: true, text: 'The orc looks a little bruised.' },
    { cmd: 'health ghost', ok: false, text: /don't see anyone called "ghost"/ },
    { cmd: 'health boulder', ok: false, text: /The boulder is not someone/ },
  ];
  for (const r of rows) {
    it(`${r.actor ?? 'kitty'}: ${r.cmd}${r.orcHealth ? ` (orc at ${r.orcHealth})` : ''}`, () => {
      const w = littleWorld();
      if (r.orcHealth) w.setHealth('orc', r.orcHealth);
      const before = JSON.stringify(w.toJSON());
      const out = execute(w, r.actor ?? 'kitty', r.cmd);
      expect(out.ok).toBe(r.ok);
      if (typeof r.text === 'string') expect(out.text).toBe(r.text);
      else expect(out.text).toMatch(r.text);
      expect(out.events).toEqual([]);
      expect(JSON.stringify(w.toJSON())).toBe(before);
    });
  }

  it('is in help', () => {
    expect(helpText()).toMatch(/health/);
    expect(helpText('health')).toMatch(/how you feel/);
    expect(helpText('hit')).toMatch(/dies/);
  });
});

describe('health in world files, JSON and LIGHT graphs', () => {
  const withHealth = (health: unknown) => {
    const file = structuredClone(LITTLE_WORLD);
    (file.characters![1] as unknown as Record<string, unknown>)['health'] = health;
    return file;
  };

  it('a world file gives health; absent means the default', () => {
    const { state } = buildWorldState([{ file: 'w', data: withHealth(3) }]);
    const w = new World(state);
    expect(w.character('orc')!.health).toBe(3);
    expect(w.character('kitty')!.health).toBeUndefined();
    expect(execute(w, 'kitty', 'health orc').text).toBe('The orc looks hurt.');
    expect(execute(w, 'orc', 'health kitty').text).toBe('The kitty looks fine.');
  });

  it.each([0, -1, 2.5, '6', 1001])('the schema refuses health %s', (bad) => {
    expect(() => buildWorldState([{ file: 'w', data: withHealth(bad) }])).toThrow(WorldFileError);
    try {
      buildWorldState([{ file: 'w', data: withHealth(bad) }]);
    } catch (e) {
      expect(String((e as Error).message)).toMatch(/health/);
    }
  });

  it('health after a hit survives toJSON / fromJSON and a clone', () => {
    const w = littleWorld(seedRolling(['harm']));
    execute(w, 'kitty', 'hit orc');
    const json = JSON.stringify(w.toJSON());
    const back = World.fromJSON(json);
    expect(back.character('orc')!.health).toBe(4);
    expect(JSON.stringify(back.toJSON())).toBe(json);
    expect(w.clone().character('orc')!.health).toBe(4);
  });

  it('LIGHT graph export writes health that was set; import reads it back (and LIGHT numbers as they come)', () => {
    const w = littleWorld(seedRolling(['harm']));
    execute(w, 'kitty', 'hit orc');
    const graph = exportLightGraph(w.toJSON());
    expect(graph.nodes['orc']!['health']).toBe(4);
    expect(graph.nodes['kitty']!['health']).toBeUndefined();
    const back = importLightGraph(graph, { file: 'g' }).state;
    expect((back.nodes['orc'] as { health?: number }).health).toBe(4);
    expect((back.nodes['kitty'] as { health?: number }).health).toBeUndefined();
    // LIGHT writes floats, and dead agents at 0
    const raw = structuredClone(graph);
    raw.nodes['orc']!['health'] = 2.0;
    raw.nodes['gardener']!['health'] = 0;
    raw.nodes['kitty']!['health'] = 'lots';
    const read = importLightGraph(raw, { file: 'g' }).state;
    expect((read.nodes['orc'] as { health?: number }).health).toBe(2);
    expect((read.nodes['gardener'] as { health?: number }).health).toBe(1);
    expect((read.nodes['kitty'] as { health?: number }).health).toBeUndefined();
  });
});

describe("food energy and poison (LIGHT's food_energy: health + energy on eating or drinking; below 0 poisoned)", () => {
  type Row = { cmd: string; energy?: number; health?: number; says: string; after: number | undefined | 'dead'; kitty?: string };
  const rows: Row[] = [
    { cmd: 'eat apple', says: 'You eat the apple.', after: 7, kitty: 'The gardener eats an apple.' },
    { cmd: 'eat apple', health: 7, says: 'You eat the apple. You are feeling very strong.', after: 8 },
    { cmd: 'eat apple', energy: 0, says: 'You eat the apple.', after: undefined },
    { cmd: 'eat apple', energy: 3, health: 2, says: 'You eat the apple. You are feeling a little bruised.', after: 5 },
    { cmd: 'eat apple', energy: -1, says: 'You eat the apple. Gross! You are feeling a little bruised.', after: 5, kitty: 'The gardener eats an apple.' },
    { cmd: 'eat apple', energy: -2, health: 7, says: 'You eat the apple. Gross! You are feeling a little bruised.', after: 5 },
    { cmd: 'ingest apple', energy: -3, says: 'You eat the apple. Gross! You are feeling hurt.', after: 3 },
    { cmd: 'drink flask of ale', energy: -4, says: 'You drink the flask of ale. Gross! You are feeling badly hurt.', after: 2, kitty: 'The gardener drinks a flask of ale.' },
    { cmd: 'ingest flask of ale', energy: 2, says: 'You drink the flask of ale. You are feeling very strong.', after: 8 },
    { cmd: 'eat apple', energy: 5, health: 999, says: 'You eat the apple.', after: 1000 },
    { cmd: 'eat apple', energy: -6, says: 'You eat the apple. Gross! You die.', after: 'dead', kitty: 'The gardener eats an apple.\nThe gardener dies.' },
    { cmd: 'drink flask of ale', energy: -15, health: 3, says: 'You drink the flask of ale. Gross! You die.', after: 'dead' },
  ];
  for (const r of rows) {
    it(`${r.cmd}, energy ${r.energy ?? 'default'} at health ${r.health ?? 'default'}: ${r.says}`, () => {
      const w = littleWorld();
      const food = r.cmd.includes('ale') ? 'ale' : 'apple';
      if (r.energy !== undefined) w.object(food)!.foodEnergy = r.energy;
      if (r.health !== undefined) w.setHealth('gardener', r.health);
      const out = execute(w, 'gardener', r.cmd);
      expect(out.ok).toBe(true);
      expect(out.text).toBe(r.says);
      expect(w.has(food)).toBe(false);
      if (r.kitty) expect(out.events.map((e) => e.seen['kitty']).join('\n')).toBe(r.kitty);
      if (r.after === 'dead') {
        expect(out.events.map((e) => e.type)).toEqual([r.cmd.split(' ')[0]!.replace('ingest', food === 'ale' ? 'drink' : 'eat'), 'death']);
        expect(w.character('gardener')).toBeUndefined();
        // the body holds what the eater had
        expect(place(w, 'pebble')).toBe('in gardener__dead__');
        expect(execute(w, 'gardener', 'look').text).toMatch(/You are dead/);
      } else {
        expect(out.events).toHaveLength(1);
        expect(w.character('gardener')!.health).toBe(r.after);
      }
    });
  }

  it('the poison is in the world file (foodEnergy) and LIGHT graphs (food_energy), and goes back out', () => {
    const file = structuredClone(LITTLE_WORLD);
    const apple = file.objects!.find((o) => o.id === 'apple')!;
    (apple as unknown as Record<string, unknown>)['foodEnergy'] = -20;
    const w = new World(buildWorldState([{ file: 'w', data: file }]).state);
    expect(w.object('apple')!.foodEnergy).toBe(-20);
    expect(w.object('ale')!.foodEnergy).toBeUndefined();
    for (const bad of [2.5, '1', 1001]) {
      (apple as unknown as Record<string, unknown>)['foodEnergy'] = bad;
      expect(() => buildWorldState([{ file: 'w', data: file }])).toThrow(/foodEnergy/);
    }
    const graph = exportLightGraph(w.toJSON());
    expect(graph.nodes['apple']!['food_energy']).toBe(-20);
    expect(graph.nodes['ale']!['food_energy']).toBe(1);
    expect((importLightGraph(graph, { file: 'g' }).state.nodes['apple'] as { foodEnergy?: number }).foodEnergy).toBe(-20);
    expect((importLightGraph(graph, { file: 'g' }).state.nodes['ale'] as { foodEnergy?: number }).foodEnergy).toBeUndefined();
    // LIGHT writes floats; a thing that is neither food nor drink keeps none
    const raw = structuredClone(graph);
    raw.nodes['apple']!['food_energy'] = -2.0;
    raw.nodes['ale']!['food_energy'] = 0.0;
    raw.nodes['pebble']!['food_energy'] = -5;
    const read = importLightGraph(raw, { file: 'g' }).state.nodes;
    expect((read['apple'] as { foodEnergy?: number }).foodEnergy).toBe(-2);
    expect((read['ale'] as { foodEnergy?: number }).foodEnergy).toBe(0);
    expect((read['pebble'] as { foodEnergy?: number }).foodEnergy).toBeUndefined();
  });
});
