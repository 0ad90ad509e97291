/** What players type: synonyms, articles, partial names, ordinals, case, punctuation, ambiguity. */
import { describe, expect, it } from 'vitest';
import { execute } from '../../server/engine/index.js';
import { littleWorld } from '../fixtures/little-world.js';

const variants: [string, string][] = [
  ['take shovel', 'get shovel'],
  ['pick up the shovel', 'get shovel'],
  ['pick shovel up', 'get shovel'],
  ['grab shovel', 'get shovel'],
  ['GET THE SHOVEL!', 'get shovel'],
  ['get shov', 'get shovel'],
  ['  get   shovel.  ', 'get shovel'],
  ['take coin out of chest', 'get gold coin from oak chest'],
  ['take the gold coin from the oak chest', 'get gold coin from oak chest'],
  ['get cup off table', 'get clay cup from potting table'],
  ['put on the straw hat', 'wear straw hat'],
  ['put on hat', 'wear straw hat'],
  ['don hat', 'wear straw hat'],
  ['equip hat', 'equip straw hat'],
  ['place pebble into the chest', 'put pebble in oak chest'],
  ['put pebble onto table', 'put pebble on potting table'],
  ['put pebble down', 'drop pebble'],
  ['hand apple to orc', 'give apple to orc'],
  ['give orc the apple', 'give apple to orc'],
  ['give the apple to the orc', 'give apple to orc'],
  ['consume apple', 'eat apple'],
  ['quaff ale', 'drink flask of ale'],
  ['attack orc', 'hit orc'],
  ['punch the orc with all my might', 'hit orc'],
  ['embrace kitty', 'hug kitty'],
  ['pilfer ring from orc', 'steal silver ring from orc'],
];

describe('parser variants', () => {
  for (const [typed, canonical] of variants) {
    it(`"${typed}" means "${canonical}"`, () => {
      const w = littleWorld();
      const out = execute(w, 'gardener', typed);
      expect(out.ok, out.text).toBe(true);
      expect(out.action).toBe(canonical);
    });
  }

  it('equip a weapon wields it; take off removes', () => {
    const w = littleWorld();
    execute(w, 'gardener', 'get shovel');
    expect(execute(w, 'gardener', 'equip shovel').action).toBe('equip shovel');
    expect(w.placement('shovel')).toEqual({ parent: 'gardener', rel: 'wielded' });
    expect(execute(w, 'gardener', 'unwield shovel').action).toBe('remove shovel');
    execute(w, 'gardener', 'wear hat');
    expect(execute(w, 'gardener', 'take off hat').action).toBe('remove straw hat');
  });

  it('looks, examines and lists', () => {
    const w = littleWorld();
    expect(execute(w, 'gardener', 'l').text).toMatch(/^Walled Garden\n/);
    expect(execute(w, 'gardener', 'look').text).toMatch(/An orc and a kitty are here\./);
    expect(execute(w, 'gardener', 'x chest').text).toMatch(/In the oak chest: a gold coin and a nail\./);
    expect(execute(w, 'gardener', 'look at the potting table').text).toMatch(/On the potting table: a clay cup\./);
    expect(execute(w, 'gardener', 'examine orc').text).toMatch(/They are carrying a silver ring\.\nThey are wearing an iron helmet\.\nThey are wielding a club\./);
    expect(execute(w, 'gardener', 'examine room').text).toMatch(/Planted by the first abbot/);
    expect(execute(w, 'gardener', 'i').text).toMatch(/You are carrying a straw hat, an apple, a flask of ale, a pebble and a sack \(in it: a seed\)\./);
    expect(execute(w, 'gardener', 'help').ok).toBe(true);
    expect(execute(w, 'gardener', 'help put').text).toMatch(/put X in Y/);
  });
});

describe('ordinals and ambiguity', () => {
  it('asks which one when differently named things match', () => {
    const w = littleWorld();
    const out = execute(w, 'gardener', 'get scroll');
    expect(out).toMatchObject({ ok: false, events: [] });
    expect(out.text).toBe('Which scroll do you mean: the old scroll or the torn scroll?');
  });

  it('picks by ordinal, in either spelling', () => {
    for (const typed of ['get 2nd scroll', 'get second scroll', 'get scroll 2', 'get 2.scroll']) {
      const w = littleWorld();
      expect(execute(w, 'gardener', typed).action, typed).toBe('get torn scroll');
    }
    const w = littleWorld();
    expect(execute(w, 'gardener', 'get 3rd scroll').text).toBe('You only see 2 scrolls here.');
  });

  it('takes the first of identical duplicates without asking, and the second by ordinal', () => {
    const w = littleWorld();
    execute(w, 'gardener', 'get candle');
    expect(w.placement('candle-1')?.parent).toBe('gardener');
    const w2 = littleWorld();
    execute(w2, 'gardener', 'get 2nd candle');
    expect(w2.placement('candle-2')?.parent).toBe('gardener');
  });

  it('prefers the thing that makes the command work', () => {
    const w = littleWorld();
    execute(w, 'gardener', 'get old scroll');
    // both scrolls match "scroll", but only the carried one can be dropped
    expect(execute(w, 'gardener', 'drop scroll').action).toBe('drop old scroll');
  });

  it('finds the end of a compound word: "bell" names a handbell', () => {
    const w = littleWorld();
    w.add({ kind: 'object', id: 'handbell', name: 'brass handbell', prefix: 'a', description: 'Loud.', gettable: true, container: false, surface: false, weapon: false, wearable: false, food: false, drink: false }, { parent: 'garden', rel: 'in' });
    expect(execute(w, 'gardener', 'get bell').action).toBe('get brass handbell');
    expect(execute(w, 'gardener', 'get el').text).toMatch(/don't see/); // too short to count as an ending
  });

  it('prefers an exact name over a partial one', () => {
    const w = littleWorld();
    w.add({ kind: 'object', id: 'plain-scroll', name: 'scroll', prefix: 'a', description: 'Plain.', gettable: true, container: false, surface: false, weapon: false, wearable: false, food: false, drink: false }, { parent: 'garden', rel: 'in' });
    expect(execute(w, 'gardener', 'get scroll').action).toBe('get scroll');
  });

  it('says what it does not know, and never crashes on junk', () => {
    const w = littleWorld();
    expect(execute(w, 'gardener', 'get unicorn').text).toBe('You don\'t see any "unicorn" here.');
    expect(execute(w, 'gardener', 'hug shovel').text).toBe('The shovel is not someone you can do that to.');
    expect(execute(w, 'gardener', 'get orc').text).toBe('The orc is a person, not a thing.');
    expect(execute(w, 'gardener', 'frobnicate').text).toMatch(/I don't know the word "frobnicate"/);
    expect(execute(w, 'gardener', 'get').text).toBe('Get what?');
    expect(execute(w, 'gardener', 'put pebble').text).toMatch(/where/);
    const before = JSON.stringify(w.toJSON());
    const junk = ['', '   ', '\u0000\u0001\u0002', '\u00ff\u00fe binary \ufffd', 'get '.repeat(300), 'x'.repeat(5000), '"', "'", 'put in on', 'give to', 'steal from', 'get from', 'go', 'tell', 'whisper orc', 'say', '💥 get shovel 💥', 'get the the the', 'get 0th scroll', 'get -1 scroll', 'get 99999999999999999999 scroll', '\\', '$(rm -rf /)', '<script>'];
    for (const line of junk) {
      const out = execute(w, 'gardener', line);
      expect(typeof out.text).toBe('string');
      expect(out.text.length).toBeGreaterThan(0);
    }
    expect(execute(w, 'gardener', 'x'.repeat(5000)).text).toMatch(/too long/);
    // '💥 get shovel 💥' is not a command; nothing above may change the world except speech-free failures
    expect(JSON.stringify(w.toJSON())).toBe(before);
  });
});

describe('names that look like commands', () => {
  const thing = (id: string, name: string, extra: Partial<{ container: boolean; surface: boolean; weapon: boolean }> = {}) =>
    ({ kind: 'object' as const, id, name, prefix: 'a', description: 'A thing.', gettable: true, container: false, surface: false, weapon: false, wearable: false, food: false, drink: false, ...extra });

  it('a name with "from", "in", "on" or "to" in it is taken whole before it is split', () => {
    const w = littleWorld();
    w.add(thing('bark', 'strip of bark from the old oak'), { parent: 'garden', rel: 'in' });
    w.add(thing('lamp', 'lamp in a cage'), { parent: 'gardener', rel: 'carried' });
    w.add(thing('hook', 'letter to the king'), { parent: 'gardener', rel: 'carried' });
    w.add(thing('jar', 'jar on a string', { container: true }), { parent: 'garden', rel: 'in' });
    const cases: [string, string][] = [
      ['get strip of bark from the old oak', 'get strip of bark from the old oak'],
      ['put lamp in a cage in oak chest', 'put lamp in a cage in oak chest'],
      ['put pebble in jar on a string', 'put pebble in jar on a string'],
      ['give letter to the king to orc', 'give letter to the king to orc'],
      ['put lamp in a cage on potting table', 'put lamp in a cage on potting table'],
    ];
    for (const [typed, canonical] of cases) {
      const out = execute(w.clone(), 'gardener', typed);
      expect(out.ok, `${typed}: ${out.text}`).toBe(true);
      expect(out.action).toBe(canonical);
    }
    // splitting still works where the whole phrase names nothing
    expect(execute(w.clone(), 'gardener', 'get gold coin from oak chest').action).toBe('get gold coin from oak chest');
  });

  it('a name ending in a number is a name before it is an ordinal', () => {
    const w = littleWorld();
    w.add({ kind: 'character', id: 'guard-2', name: 'tower guard 2', prefix: 'a', persona: 'I guard.', description: 'A guard.', policy: 'idle' }, { parent: 'garden', rel: 'in' });
    expect(execute(w.clone(), 'gardener', 'give apple to tower guard 2').action).toBe('give apple to tower guard 2');
    expect(execute(w.clone(), 'gardener', 'hug tower guard 2').action).toBe('hug tower guard 2');
    // "guard 2" is still the second guard when there are two; with one, the name is read whole
    expect(execute(w.clone(), 'gardener', 'hug guard 2').action).toBe('hug tower guard 2');
    w.add({ kind: 'character', id: 'guard-1', name: 'tower guard', prefix: 'a', persona: 'I guard.', description: 'A guard.', policy: 'idle' }, { parent: 'garden', rel: 'in' });
    expect(execute(w.clone(), 'gardener', 'hug tower guard').action).toBe('hug tower guard');
    expect(execute(w.clone(), 'gardener', 'get 2nd scroll').action).toBe('get torn scroll');
  });
});

describe("LIGHT's emote form", () => {
  const cases: [string, string, string | undefined][] = [
    ['emote smile', 'You smile.', undefined],
    ['emote smile at orc', 'You smile at the orc.', 'orc'],
    ['emote wave to the orc', 'You wave at the orc.', 'orc'],
    ['emote nudge kitty', 'You nudge the kitty.', 'kitty'],
    ['emote smiles', 'You smile.', undefined],
    ['EMOTE Laugh.', 'You laugh.', undefined],
  ];
  for (const [typed, says, target] of cases) {
    it(`"${typed}"`, () => {
      const out = execute(littleWorld(), 'gardener', typed);
      expect(out.ok, out.text).toBe(true);
      expect(out.text).toBe(says);
      expect(out.events[0]!.type).toBe('emote');
      expect(out.events[0]!.target).toBe(target);
    });
  }

  it('says which emotes there are when it is not one, and changes nothing', () => {
    const w = littleWorld();
    for (const typed of ['emote', 'emote juggle', 'emote get shovel']) {
      const out = execute(w, 'gardener', typed);
      expect(out.ok).toBe(false);
      expect(out.text).toMatch(/applaud, blush, .* yawn\./);
    }
    expect(w.placement('shovel')?.parent).toBe('garden');
  });
});
