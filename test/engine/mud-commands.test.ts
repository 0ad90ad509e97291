/**
 * What MUD players expect besides LIGHT's actions: get/drop/put all, exits, look <direction>,
 * look in X, again / !, one-letter abbreviations. Every "all" command is the single action tried on
 * each thing with the same constraints: what fails changes nothing and says why.
 */
import { describe, expect, it } from 'vitest';
import { execute, type World } from '../../server/engine/index.js';
import { littleWorld } from '../fixtures/little-world.js';

type Row = {
  command: string;
  setup?: (w: World) => void;
  ok: boolean;
  /** lines the actor reads, in order (a subset, each matched in turn) */
  says: RegExp[];
  /** where things end up: [node, parent, rel] */
  effect?: [string, string, string][];
  /** these must not have moved */
  unmoved?: string[];
};

const rows: Row[] = [
  {
    command: 'get all', ok: true,
    says: [/^You get the shovel\.$/, /^You can't pick up the oak chest\.$/, /^You can't pick up the boulder\.$/, /^You get the old scroll\.$/, /^You get the candle\.$/],
    effect: [['shovel', 'gardener', 'carried'], ['old-scroll', 'gardener', 'carried'], ['torn-scroll', 'gardener', 'carried'], ['candle-2', 'gardener', 'carried']],
    unmoved: ['chest', 'boulder', 'table', 'cup', 'orc'],
  },
  { command: 'take everything', ok: true, says: [/^You get the shovel\.$/], effect: [['candle-1', 'gardener', 'carried']] },
  { command: 'get all candles', ok: true, says: [/^You get the candle\.$/, /^You get the candle\.$/], effect: [['candle-1', 'gardener', 'carried'], ['candle-2', 'gardener', 'carried']], unmoved: ['shovel', 'old-scroll'] },
  { command: 'get all the scrolls', ok: true, says: [/old scroll/, /torn scroll/], effect: [['torn-scroll', 'gardener', 'carried']], unmoved: ['candle-1'] },
  { command: 'get all', setup: (w) => { for (const id of ['shovel', 'old-scroll', 'torn-scroll', 'candle-1', 'candle-2']) w.move(id, 'shed', 'in'); }, ok: false, says: [/^You can't pick up the oak chest\.$/], unmoved: ['chest'] },
  { command: 'get all', setup: (w) => w.move('gardener', 'road', 'in'), ok: false, says: [/^There isn't anything here to pick up\.$/] },
  { command: 'get all unicorns', ok: false, says: [/^There isn't any "unicorns" here to pick up\.$/] },
  { command: 'get all from chest', ok: true, says: [/^You get the gold coin from the oak chest\.$/, /^You can't pick up the nail\.$/], effect: [['coin', 'gardener', 'carried'], ['nail', 'chest', 'in']] },
  { command: 'get all from potting table', ok: true, says: [/^You get the clay cup from the potting table\.$/], effect: [['cup', 'gardener', 'carried']] },
  { command: 'get all from boulder', ok: false, says: [/^The boulder can't hold anything\.$/] },
  { command: 'get all from sack', setup: (w) => w.move('seed', 'garden', 'in'), ok: false, says: [/^There isn't anything in the sack\.$/] },
  { command: 'get all from lantern', ok: false, says: [/don't see any "lantern" here/] },
  {
    command: 'drop all', setup: (w) => execute(w, 'gardener', 'wear hat'), ok: true,
    says: [/^You drop the apple\.$/, /^You drop the flask of ale\.$/, /^You drop the pebble\.$/, /^You drop the sack\.$/],
    effect: [['apple', 'garden', 'in'], ['sack', 'garden', 'in'], ['seed', 'sack', 'in'], ['hat', 'gardener', 'worn']],
  },
  { command: 'drop all', setup: (w) => { for (const id of ['hat', 'apple', 'ale', 'pebble', 'sack']) w.move(id, 'garden', 'in'); }, ok: false, says: [/^You aren't carrying anything\.$/] },
  { command: 'put all in sack', ok: true, says: [/^You put the straw hat in the sack\.$/, /^You put the pebble in the sack\.$/], effect: [['hat', 'sack', 'in'], ['pebble', 'sack', 'in'], ['sack', 'gardener', 'carried']] },
  { command: 'put all on potting table', ok: true, says: [/^You put the straw hat on the potting table\.$/], effect: [['sack', 'table', 'on']] },
  { command: 'put all in potting table', ok: false, says: [/try putting them on it/], unmoved: ['hat', 'sack'] },
  { command: 'put all apples in chest', ok: true, says: [/^You put the apple in the oak chest\.$/], effect: [['apple', 'chest', 'in']], unmoved: ['pebble'] },
];

describe('all: the single action on each thing', () => {
  for (const row of rows) {
    it(`${row.command}${row.setup ? ' (after setup)' : ''}`, () => {
      const w = littleWorld();
      row.setup?.(w);
      const before = Object.fromEntries((row.unmoved ?? []).map((id) => [id, JSON.stringify(w.placement(id))]));
      const snapshot = JSON.stringify(w.toJSON());
      const out = execute(w, 'gardener', row.command);
      expect(out.ok, out.text).toBe(row.ok);
      const lines = out.text.split('\n');
      let at = 0;
      for (const re of row.says) {
        const found = lines.findIndex((l, i) => i >= at && re.test(l));
        expect(found, `${re} in order in:\n${out.text}`).toBeGreaterThanOrEqual(0);
        at = found + 1;
      }
      for (const [id, parent, rel] of row.effect ?? []) expect(w.placement(id), id).toEqual({ parent, rel });
      for (const id of row.unmoved ?? []) expect(JSON.stringify(w.placement(id)), id).toBe(before[id]);
      if (!row.ok) expect(JSON.stringify(w.toJSON())).toBe(snapshot);
      // one event per thing moved, each seen by the room
      expect(out.events.length).toBe(lines.filter((l) => /^You (get|drop|put) /.test(l)).length);
      for (const ev of out.events) expect(Object.keys(ev.seen).sort()).toEqual(['gardener', 'kitty', 'orc'].filter((c) => w.roomOf(c) === w.roomOf('gardener')).sort());
    });
  }
});

describe('looking about', () => {
  const cases: [string, boolean, string][] = [
    ['exits', true, 'Exits: north (Tool Shed).'],
    ['look north', true, 'North: Tool Shed.\nA dusty shed.'],
    ['look n', true, 'North: Tool Shed.\nA dusty shed.'],
    ['l n', true, 'North: Tool Shed.\nA dusty shed.'],
    ['look west', false, 'You can\'t look "west" from here. Exits: north.'],
    ['look in chest', true, 'In the oak chest: a gold coin and a nail.'],
    ['look inside the sack', true, 'In the sack: a seed.'],
    ['look on potting table', true, 'On the potting table: a clay cup.'],
    ['look on table', true, 'On the potting table: a clay cup.'],
    ['look in boulder', false, "You can't look in the boulder: nothing goes in it."],
    ['look in unicorn', false, 'You don\'t see any "unicorn" here.'],
    ['look in', false, 'Look in what?'],
  ];
  for (const [typed, ok, text] of cases) {
    it(typed, () => {
      const out = execute(littleWorld(), 'gardener', typed);
      expect(out).toMatchObject({ ok, text, events: [] });
    });
  }

  it('an empty container or surface says so; an exit named by its label can be looked along', () => {
    const w = littleWorld();
    execute(w, 'gardener', 'get cup from table');
    expect(execute(w, 'gardener', 'look on table').text).toBe('There is nothing on the potting table.');
    w.move('kitty', 'shed', 'in');
    expect(execute(w, 'kitty', 'look back door').text).toBe('The back door: Muddy Road.\nA muddy road.');
    expect(execute(w, 'kitty', 'exits').text).toBe('Exits: south (Walled Garden), the back door (Muddy Road).');
  });
});

describe('again and !', () => {
  it('repeat the last command, whatever it was', () => {
    const w = littleWorld();
    expect(execute(w, 'gardener', 'again')).toMatchObject({ ok: false, text: 'There is nothing to do again yet.' });
    expect(execute(w, 'gardener', 'get candle').action).toBe('get candle');
    const again = execute(w, 'gardener', 'again');
    expect(again.action).toBe('get candle');
    expect(w.placement('candle-2')).toEqual({ parent: 'gardener', rel: 'carried' });
    expect(execute(w, 'gardener', '!')).toMatchObject({ ok: false, text: 'You already have the candle.' });
    expect(execute(w, 'gardener', 'say hi').ok).toBe(true);
    expect(execute(w, 'gardener', ' ! ').events[0]!.text).toBe('hi');
  });

  it('each character has its own last command', () => {
    const w = littleWorld();
    execute(w, 'gardener', 'hug kitty');
    execute(w, 'orc', 'get shovel');
    expect(execute(w, 'gardener', 'again').action).toBe('hug kitty');
    expect(execute(w, 'orc', 'again').ok).toBe(false);
  });
});

describe('abbreviations', () => {
  const cases: [string, string, RegExp][] = [
    ['n', 'garden', /^You go north\./],
    ['s', 'shed', /^You go south\./],
    ['l', 'garden', /^Walled Garden\n/],
    ['i', 'garden', /^You are carrying /],
    ['x chest', 'garden', /In the oak chest/],
    // "equip" alone (eq, equipment), as MUD players type it: what you carry, wear and wield
    ['equip', 'garden', /^You are carrying /],
    ['eq', 'garden', /^You are carrying /],
    ['equipment', 'garden', /^You are carrying /],
  ];
  for (const [typed, room, says] of cases) {
    it(typed, () => {
      const w = littleWorld();
      w.move('gardener', room, 'in');
      expect(execute(w, 'gardener', typed).text).toMatch(says);
    });
  }
  it('e, w, u, d, ne and the rest go that way when there is one', () => {
    const w = littleWorld();
    w.room('garden')!.exits = ['east', 'west', 'up', 'down', 'northeast', 'southwest'].map((label) => ({ label, to: 'shed' }));
    for (const [typed, way] of [['e', 'east'], ['w', 'west'], ['u', 'up'], ['d', 'down'], ['ne', 'northeast'], ['sw', 'southwest']]) {
      const c = w.clone();
      expect(execute(c, 'gardener', typed!).text).toMatch(new RegExp(`^You go ${way}\\.`));
    }
  });
});

describe("score (lightmud's, not LIGHT's)", () => {
  type ScoreRow = { name: string; actor?: string; setup?: (w: World) => void; text: string };
  const table: ScoreRow[] = [
    {
      name: 'at the start',
      text: 'You are the gardener, in Walled Garden.\nHealth: 6. You are feeling fine.\nYou carry five things, wear 0 of 3 and wield 0 of 1; they take 5 of the 20 you can hold.',
    },
    {
      name: 'hurt, dressed, armed, following and blocking',
      setup: (w) => {
        w.setHealth('gardener', 2);
        w.move('hat', 'gardener', 'worn');
        w.move('shovel', 'gardener', 'wielded');
        w.setFollowing('gardener', 'orc');
        w.setBlocking('gardener', 'kitty');
        w.setBlocking('orc', 'gardener');
        w.character('gardener')!.capacity = 30;
      },
      text: 'You are the gardener, in Walled Garden.\nHealth: 2. You are feeling badly hurt.\nYou carry four things, wear 1 of 3 and wield 1 of 1; they take 6 of the 30 you can hold.\n'
        + 'You are following the orc.\nYou are blocking the kitty.\nThe orc is blocking you.',
    },
    { name: 'with nothing', actor: 'kitty', text: 'You are the kitty, in Walled Garden.\nHealth: 6. You are feeling fine.\nYou carry nothing, wear 0 of 3 and wield 0 of 1; they take 0 of the 20 you can hold.' },
  ];
  for (const r of table) {
    it(r.name, () => {
      const w = littleWorld();
      r.setup?.(w);
      const before = JSON.stringify(w.toJSON());
      for (const typed of ['score', 'sc', 'SCORE']) {
        const out = execute(w, r.actor ?? 'gardener', typed);
        expect(out.ok).toBe(true);
        expect(out.text).toBe(r.text);
        // only the asker is told, and nothing changes
        expect(out.events).toEqual([]);
      }
      expect(JSON.stringify(w.toJSON())).toBe(before);
    });
  }
});
