/** Every event as each viewer sees it; nothing leaks to other rooms except a shout. */
import { describe, expect, it } from 'vitest';
import { EMOTES, execute } from '../../server/engine/index.js';
import { littleWorld } from '../fixtures/little-world.js';
import { seedRolling } from '../fixtures/hit-seeds.js';

describe('viewpoints', () => {
  it('give: actor, target and others each get their own sentence', () => {
    const w = littleWorld();
    const [ev] = execute(w, 'gardener', 'give apple to orc').events;
    expect(ev!.seen).toEqual({
      gardener: 'You give the apple to the orc.',
      orc: 'The gardener gives you an apple.',
      kitty: 'The gardener gives an apple to the orc.',
    });
  });

  it('steal: the victim notices', () => {
    const w = littleWorld();
    const [ev] = execute(w, 'kitty', 'steal silver ring from orc').events;
    expect(ev!.seen['orc']).toBe('The kitty steals a silver ring from you!');
    expect(ev!.seen['gardener']).toBe('The kitty steals a silver ring from the orc.');
  });

  it('hit names the wielded weapon; the two of them learn how the one hit looks', () => {
    const w = littleWorld(seedRolling(['harm']));
    const [ev] = execute(w, 'orc', 'hit gardener').events;
    expect(ev!.seen).toEqual({
      orc: 'You hit the gardener with the club. The gardener looks bruised.',
      gardener: 'The orc hits you with a club! You are feeling bruised.',
      kitty: 'The orc hits the gardener with a club.',
    });
  });

  it('say, tell and whisper reach only the room; whisper hides its words from others', () => {
    const w = littleWorld();
    const say = execute(w, 'gardener', 'say Hello there!').events[0]!;
    expect(say.seen).toEqual({ gardener: 'You say, "Hello there!"', orc: 'The gardener says, "Hello there!"', kitty: 'The gardener says, "Hello there!"' });
    expect(say.seen['ghost']).toBeUndefined();
    const tell = execute(w, 'gardener', 'tell orc: give me the ring').events[0]!;
    expect(tell.seen['orc']).toBe('The gardener tells you, "give me the ring"');
    expect(tell.seen['kitty']).toBe('The gardener tells the orc, "give me the ring"');
    const whisper = execute(w, 'gardener', 'whisper kitty the orc stinks').events[0]!;
    expect(whisper.seen['kitty']).toBe('The gardener whispers to you, "the orc stinks"');
    expect(whisper.seen['orc']).toBe('The gardener whispers something to the kitty.');
    expect(execute(w, 'gardener', '\'quick words').events[0]!.text).toBe('quick words');
  });

  it('shout is heard next door, and no further', () => {
    const w = littleWorld();
    w.move('gardener', 'shed', 'in');
    const ev = execute(w, 'gardener', 'shout Fire!').events[0]!;
    expect(ev.seen['ghost']).toBe('The gardener shouts, "Fire!"');
    expect(ev.seen['orc']).toBe('Someone shouts from north, "Fire!"');
    expect(ev.seen['carter']).toBe('Someone shouts from the back door, "Fire!"');
    w.move('gardener', 'road', 'in');
    const far = execute(w, 'gardener', 'shout Anyone?').events[0]!;
    expect(far.seen['orc']).toBeUndefined();
    expect(far.seen['ghost']).toBeDefined();
  });

  it('going: the old room sees you leave, the new one sees you arrive, the mover sees the new room', () => {
    const w = littleWorld();
    const out = execute(w, 'kitty', 'n');
    expect(out.ok).toBe(true);
    expect(out.text).toMatch(/^You go north\.\nTool Shed/);
    const [leave, arrive] = out.events;
    expect(leave!.seen['orc']).toBe('The kitty goes north.');
    expect(arrive!.seen['ghost']).toBe('The kitty arrives.');
    expect(arrive!.seen['orc']).toBeUndefined();
    expect(w.roomOf('kitty')).toBe('shed');
    expect(execute(w, 'kitty', 'go back door').text).toMatch(/^You take the back door\./);
    expect(execute(w, 'kitty', 'go to the tool shed').ok).toBe(true);
    expect(execute(w, 'kitty', 'go to the walled garden').ok).toBe(true);
    expect(execute(w, 'kitty', 'go west').text).toMatch(/can't go "west"/);
  });

  it('graph actions are seen by the room and by no one elsewhere', () => {
    const w = littleWorld();
    for (const cmd of ['get shovel', 'wield shovel', 'put pebble in chest', 'hug kitty', 'eat apple']) {
      const [ev] = execute(w, 'gardener', cmd).events;
      expect(Object.keys(ev!.seen).sort(), cmd).toEqual(['gardener', 'kitty', 'orc']);
    }
  });

  describe('the 22 emotes', () => {
    it('are exactly LIGHT\'s', () => {
      expect([...EMOTES]).toEqual(['applaud', 'blush', 'cry', 'dance', 'frown', 'gasp', 'grin', 'groan', 'growl', 'laugh', 'nod', 'nudge', 'ponder', 'pout', 'scream', 'shrug', 'sigh', 'smile', 'stare', 'wave', 'wink', 'yawn']);
    });
    for (const emote of EMOTES) {
      it(`${emote}, alone and at someone, changes nothing`, () => {
        const w = littleWorld();
        const before = JSON.stringify(w.toJSON());
        const alone = execute(w, 'gardener', emote);
        expect(alone.ok).toBe(true);
        expect(alone.text).toBe(`You ${emote}.`);
        expect(alone.events[0]!.seen["orc"]).toMatch(new RegExp(`^The gardener ${emote.slice(0, 2)}\\w*\\.$`));
        const at = execute(w, 'gardener', `${emote} at orc`);
        expect(at.ok).toBe(true);
        expect(at.events[0]!.target).toBe('orc');
        expect(at.text).toMatch(/the orc\.$/);
        expect(at.events[0]!.seen['orc']).toMatch(/you\.$/);
        expect(at.events[0]!.seen['kitty']).toMatch(/the orc\.$/);
        expect(at.events[0]!.seen['ghost']).toBeUndefined();
        expect(JSON.stringify(w.toJSON())).toBe(before);
      });
    }
    it('at someone who is not here is refused', () => {
      const w = littleWorld();
      expect(execute(w, 'gardener', 'wave at ghost')).toMatchObject({ ok: false, events: [] });
    });
  });
});
