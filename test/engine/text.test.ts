/** What players read: articles, counts and plurals, themselves in the second person, speech kept whole. */
import { describe, expect, it } from 'vitest';
import { execute, World } from '../../server/engine/index.js';
import { plural, secondPerson } from '../../server/engine/names.js';
import { littleWorld } from '../fixtures/little-world.js';

const thing = (id: string, name: string, prefix = 'a') =>
  ({ kind: 'object' as const, id, name, prefix, description: 'A thing.', gettable: true, container: false, surface: false, weapon: false, wearable: false, food: false, drink: false });
const person = (id: string, name: string, prefix = 'a') => ({ kind: 'character' as const, id, name, prefix, persona: 'I am here.', description: 'Someone.', policy: 'idle' as const });

describe('exits keep one article', () => {
  for (const [label, says] of [['a path to the south', 'You take the path to the south.'], ['the back door', 'You take the back door.'], ['an old gate', 'You take the old gate.'], ['north', 'You go north.']] as const) {
    it(`"${label}"`, () => {
      const w = littleWorld();
      w.room('garden')!.exits = [{ label, to: 'shed' }];
      const out = execute(w, 'kitty', `go ${label}`);
      expect(out.text.split('\n')[0]).toBe(says);
      expect(out.events[0]!.seen['orc']).toBe(`The kitty ${says.replace(/^You (go|take)/, (_m, v: string) => (v === 'go' ? 'goes' : 'takes'))}`);
    });
  }
});

describe('counts and plurals', () => {
  it('the room counts identical things and people', () => {
    const w = littleWorld();
    w.add(thing('candle-3', 'candle'), { parent: 'garden', rel: 'in' });
    const text = execute(w, 'gardener', 'look').text;
    expect(text).toMatch(/ and three candles\./);
    expect(text).not.toMatch(/a candle/);
    w.add(person('orc-2', 'orc', 'an'), { parent: 'garden', rel: 'in' });
    expect(execute(w, 'gardener', 'look').text).toMatch(/^Two orcs and a kitty are here\.$/m);
    w.move('kitty', 'shed', 'in');
    expect(execute(w, 'gardener', 'look').text).toMatch(/^Two orcs are here\.$/m);
  });

  it('carried, worn and contained things are counted too; things holding something are not', () => {
    const w = littleWorld();
    w.add(thing('p2', 'pebble'), { parent: 'gardener', rel: 'carried' });
    w.add(thing('c2', 'gold coin'), { parent: 'chest', rel: 'in' });
    w.add(thing('f2', 'flask of ale'), { parent: 'gardener', rel: 'carried' });
    w.add({ ...thing('sack-2', 'sack'), container: true }, { parent: 'gardener', rel: 'carried' });
    const inv = execute(w, 'gardener', 'i').text;
    expect(inv).toMatch(/two flasks of ale/);
    expect(inv).toMatch(/two pebbles/);
    expect(inv).toMatch(/a sack \(in it: a seed\) and a sack\./);
    expect(execute(w, 'gardener', 'x chest').text).toMatch(/In the oak chest: two gold coins and a nail\./);
  });

  it('proper names and "some" things are not counted', () => {
    const w = littleWorld();
    w.add(person('maud-1', 'Maud', ''), { parent: 'garden', rel: 'in' });
    w.add(person('maud-2', 'Maud', ''), { parent: 'garden', rel: 'in' });
    w.add(thing('b1', 'bread', 'some'), { parent: 'garden', rel: 'in' });
    w.add(thing('b2', 'bread', 'some'), { parent: 'garden', rel: 'in' });
    const text = execute(w, 'gardener', 'look').text;
    expect(text).toMatch(/Maud and Maud are here/);
    expect(text).toMatch(/some bread and some bread/);
  });

  const plurals: [string, string][] = [
    ['candle', 'candles'], ['flask of ale', 'flasks of ale'], ['glass', 'glasses'], ['torch', 'torches'], ['berry', 'berries'],
    ['knife', 'knives'], ['old wolf', 'old wolves'], ['fisherman', 'fishermen'], ['human', 'humans'], ['sheep', 'sheep'],
    ['key', 'keys'], ['box', 'boxes'], ['piece of rare wood from a tree', 'pieces of rare wood from a tree'], ['child', 'children'],
  ];
  for (const [one, many] of plurals) it(`${one} -> ${many}`, () => expect(plural(one)).toBe(many));
});

describe('examining yourself', () => {
  it('reads your persona back to you in the second person, not the description others see', () => {
    const w = littleWorld();
    w.character('gardener')!.persona = "I am the abbey's gardener. I was born here, and my cabbages know me. It was a wet year. I'm tired of orcs, myself.";
    for (const typed of ['examine me', 'x self', 'look at myself']) {
      const out = execute(w, 'gardener', typed);
      expect(out.ok).toBe(true);
      const lines = out.text.split('\n');
      expect(lines[0]).toBe("You are the abbey's gardener. You were born here, and your cabbages know you. It was a wet year. You're tired of orcs, yourself.");
      expect(out.text).not.toMatch(/You see a gardener/);
      expect(lines).toContain('You are carrying a straw hat, an apple, a flask of ale, a pebble and a sack (in it: a seed).');
    }
  });

  it('names you when the persona does not', () => {
    const w = littleWorld();
    w.character('kitty')!.persona = 'I purr. I nap in the sun.';
    expect(execute(w, 'kitty', 'examine me').text).toBe('You are a kitty.\nYou purr. You nap in the sun.');
  });

  const cases: [string, string][] = [
    ['I love my garden.', 'You love your garden.'],
    ['They gave me a coin, and I kept it.', 'They gave you a coin, and you kept it.'],
    ['I am old. Mine is the last farm.', 'You are old. Yours is the last farm.'],
    ["I've seen it; I'd go.", "You've seen it; you'd go."],
  ];
  for (const [first, second] of cases) it(`"${first}"`, () => expect(secondPerson(first)).toBe(second));
});

describe('tell and whisper keep the message whole', () => {
  const cases: [string, string, string][] = [
    ['tell orc hello, how are you?', 'orc', 'hello, how are you?'],
    ['tell orc: hello, friend', 'orc', 'hello, friend'],
    ['tell orc, hello, friend', 'orc', 'hello, friend'],
    ['whisper kitty the orc, he stinks', 'kitty', 'the orc, he stinks'],
    ['tell old man hello, old man', 'old-man', 'hello, old man'],
    ['tell old man: wait, what?', 'old-man', 'wait, what?'],
    ['tell orc that I, for one, agree', 'orc', 'I, for one, agree'],
    ['tell orc the shovel is here', 'orc', 'the shovel is here'],
    // LIGHT's names have commas: the whole name is the name, not the words before its comma
    ['tell Rhys, the Horse Trader good day', 'rhys', 'good day'],
    ['whisper Rhys, the Horse Trader, a secret', 'rhys', 'a secret'],
    ['tell rhys, the horse trader: hello, you', 'rhys', 'hello, you'],
    ['tell rhys: hello, you', 'rhys', 'hello, you'],
  ];
  for (const [typed, to, text] of cases) {
    it(typed, () => {
      const w: World = littleWorld();
      w.add(person('old-man', 'old man', 'an'), { parent: 'garden', rel: 'in' });
      w.add(person('rhys', 'Rhys, the Horse Trader', ''), { parent: 'garden', rel: 'in' });
      const out = execute(w, 'gardener', typed);
      expect(out.ok, out.text).toBe(true);
      expect(out.events[0]!.target).toBe(to);
      expect(out.events[0]!.text).toBe(text);
    });
  }

  it('says who is not here', () => {
    expect(execute(littleWorld(), 'gardener', 'tell wizard hello, you').text).toBe('You don\'t see anyone called "wizard" here.');
  });
});
