/**
 * Truthful answers about a character's own things: built from the graph, so they change when the
 * graph does, and they never claim what the character does not hold.
 */
import { describe, expect, it } from 'vitest';
import { execute, World } from '../../server/engine/index.js';
import { DEFAULT_WORLD, loadWorld } from '../../server/world-io/load-world.js';
import { answerSelfQuestion, describeHoldings } from '../../server/agents/self-state.js';
import { littleWorld } from '../fixtures/little-world.js';

describe('answers about what a character carries, wears and wields', () => {
  it('lists exactly what the graph holds', () => {
    const w = littleWorld();
    expect(describeHoldings(w, 'gardener')).toBe("I'm carrying a straw hat, an apple, a flask of ale, a pebble and a sack with a seed in it.");
    expect(describeHoldings(w, 'orc')).toBe("I'm carrying a silver ring, wearing an iron helmet, and wielding a club.");
    expect(describeHoldings(w, 'kitty')).toBe("I'm not carrying, wearing or wielding anything.");
  });

  it('answers the usual questions', () => {
    const w = littleWorld();
    const ask = (who: string, q: string) => answerSelfQuestion(w, who, q);
    for (const q of ['What are you carrying?', 'What do you have?', "What've you got there?", 'Show me what you have.', 'What have you got on you?']) {
      expect(ask('orc', q), q).toBe("I'm carrying a silver ring, wearing an iron helmet, and wielding a club.");
    }
    expect(ask('orc', 'What are you wearing?')).toBe("I'm wearing an iron helmet.");
    expect(ask('orc', 'Are you armed?')).toBe("I'm wielding a club.");
    expect(ask('gardener', 'Are you armed?')).toBe("I'm not armed.");
    expect(ask('gardener', 'Do you have an apple?')).toBe('Yes, I have an apple.');
    expect(ask('gardener', 'Do you have a sword?')).toBe("No, I don't have a sword.");
    expect(ask('gardener', 'Have you got any seeds?')).toBe("Yes, I have a seed. It's in my sack.");
    expect(ask('gardener', "What's in your sack?")).toBe('My sack holds a seed.');
    expect(ask('orc', 'Are you wearing a helmet?')).toBe("Yes, I'm wearing an iron helmet.");
    expect(ask('orc', 'Are you wearing a hat?')).toBe("No, I'm not wearing a hat.");
    expect(ask('kitty', 'What are you carrying, kitty?')).toBe("I'm not carrying, wearing or wielding anything.");
  });

  it('is not fooled into answering other things', () => {
    const w = littleWorld();
    for (const q of ['What do you have to say for yourself?', 'Nice weather.', 'Do you have time to talk?', 'Where is the shed?', 'I have a ring.', 'Do you have any family?', 'Have you always lived here?', 'Have you walked far?', 'Do you have any children?']) {
      expect(answerSelfQuestion(w, 'orc', q), q).toBeNull();
    }
  });

  it('follows the graph as it changes', () => {
    const w = littleWorld();
    expect(execute(w, 'orc', 'give silver ring to gardener').ok).toBe(true);
    expect(execute(w, 'orc', 'remove club').ok).toBe(true);
    expect(answerSelfQuestion(w, 'orc', 'What are you carrying?')).toBe("I'm carrying a club and wearing an iron helmet.");
    expect(answerSelfQuestion(w, 'orc', 'Do you have a ring?')).toBe("No, I don't have a ring.");
    expect(answerSelfQuestion(w, 'gardener', 'Do you have a ring?')).toBe('Yes, I have a silver ring.');
    expect(answerSelfQuestion(w, 'orc', 'Are you armed?')).toBe("I'm not wielding anything, but I carry a club.");
  });

  it('is truthful for every character of the bundled world', () => {
    const world = new World(loadWorld(DEFAULT_WORLD, { seed: 1 }).state);
    let checked = 0;
    for (const c of world.characters()) {
      const answer = answerSelfQuestion(world, c.id, 'What are you carrying?')!;
      const held = [...world.objectsIn(c.id, 'carried'), ...world.objectsIn(c.id, 'worn'), ...world.objectsIn(c.id, 'wielded')];
      for (const o of held) expect(answer, c.id).toContain(o.name);
      // Every object named in the answer is held (directly or inside something held).
      for (const o of world.objects()) if (answer.includes(` ${o.name}`) && !held.some((h) => h.name.includes(o.name) || world.isInside(o.id, c.id))) {
        expect(held.map((h) => h.name).join(', ') + ' / ' + answer, c.id).toContain(o.name);
      }
      checked++;
    }
    expect(checked).toBeGreaterThan(100);
  });
});
