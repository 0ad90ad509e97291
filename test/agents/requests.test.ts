/**
 * Request following on constructed scenes: a partner's request becomes canonical engine actions
 * that the engine would execute now (checked on a clone), two-step requests become ordered plans,
 * and a step that cannot be done stops the plan with a reason the character can say.
 */
import { describe, expect, it } from 'vitest';
import { execute, validActions, World } from '../../server/engine/index.js';
import { stageEpisode } from '../../server/episodes/stage.js';
import { DEFAULT_WORLD, loadWorld } from '../../server/world-io/load-world.js';
import { firstPerson, planRequest } from '../../server/agents/requests.js';
import { cueOf } from '../../server/agents/cues.js';
import { littleWorld } from '../fixtures/little-world.js';

const steps = (w: World, self: string, partner: string, text: string, lastObject?: string) => planRequest(w, self, partner, text, { lastObject });

describe('requests in the little world (gardener asked by the orc)', () => {
  it('"can you give me X?" gives X to the partner', () => {
    const w = littleWorld();
    for (const line of ['Can you give me the apple?', 'give me your apple', 'Hand me the apple, please.', 'Gardener, pass me that apple!', 'Could I have the apple?', 'I want the apple.', 'Would you mind giving me the apple?']) {
      const p = steps(w, 'gardener', 'orc', line);
      expect(p, line).not.toBeNull();
      expect(p!.steps, line).toEqual(['give apple to orc']);
      expect(p!.failure, line).toBeUndefined();
    }
  });

  it('every planned step is a valid action, and planning changes nothing', () => {
    const w = littleWorld();
    const before = JSON.stringify(w.toJSON());
    const p = steps(w, 'gardener', 'orc', 'Put on your straw hat and give me the flask of ale.')!;
    expect(p.steps).toEqual(['wear straw hat', 'give flask of ale to orc']);
    expect(JSON.stringify(w.toJSON())).toBe(before);
    expect(validActions(w, 'gardener')).toContain(p.steps[0]);
    const c = w.clone();
    for (const s of p.steps) {
      expect(validActions(c, 'gardener')).toContain(s);
      expect(execute(c, 'gardener', s).ok).toBe(true);
    }
  });

  it('a two-step request runs as an ordered plan, "it" meaning the object just named', () => {
    const w = littleWorld();
    const p = steps(w, 'gardener', 'orc', 'Get the gold coin from the oak chest and give it to me.')!;
    expect(p.steps).toEqual(['get gold coin from oak chest', 'give gold coin to orc']);
    const q = steps(w, 'gardener', 'orc', 'take the seed out of your sack, then drop it')!;
    expect(q.steps).toEqual(['get seed from sack', 'drop seed']);
  });

  it('a plan stops at the step that fails, with the reason in the first person', () => {
    const w = littleWorld();
    // The nail is stuck fast in the chest: the first step fails, nothing is planned.
    const p = steps(w, 'gardener', 'orc', 'Get the nail from the chest and give it to me.')!;
    expect(p.steps).toEqual([]);
    expect(p.failure).toMatchObject({ step: 0 });
    expect(p.failure!.reason).toMatch(/^I can't/);
    // The second step fails: the first is kept.
    const q = steps(w, 'gardener', 'orc', 'Get the gold coin from the chest and give it to the ghost.')!;
    expect(q.steps).toEqual(['get gold coin from oak chest']);
    expect(q.failure).toMatchObject({ step: 1 });
    expect(q.failure!.reason).toMatch(/ghost/i);
  });

  it('asking for something the character does not have is answered truthfully', () => {
    const w = littleWorld();
    const p = steps(w, 'gardener', 'orc', 'Give me a sword!')!;
    expect(p.steps).toEqual([]);
    expect(p.failure!.reason).toBe("I don't have a sword.");
    const q = steps(w, 'orc', 'gardener', 'Hand over the apple.')!;
    expect(q.steps).toEqual([]);
    expect(q.failure!.reason).toMatch(/gardener has it/);
  });

  it('something within reach but not carried is fetched first', () => {
    const w = littleWorld();
    expect(steps(w, 'gardener', 'orc', 'Could you give me the shovel?')!.steps).toEqual(['get shovel', 'give shovel to orc']);
    expect(steps(w, 'gardener', 'orc', 'bring me the clay cup')!.steps).toEqual(['get clay cup from potting table', 'give clay cup to orc']);
  });

  it('"me" is the partner, "it" the object named earlier in the conversation', () => {
    const w = littleWorld();
    expect(steps(w, 'gardener', 'orc', 'Give it to me.', 'flask of ale')!.steps).toEqual(['give flask of ale to orc']);
    expect(steps(w, 'gardener', 'orc', 'hug me')!.steps).toEqual(['hug orc']);
    expect(steps(w, 'gardener', 'orc', 'Hit me if you dare!')!.steps).toEqual(['hit orc']);
    expect(steps(w, 'gardener', 'kitty', 'Give me a hug.')!.steps).toEqual(['hug kitty']);
    // No earlier object: "it" means nothing, so there is no request.
    expect(steps(w, 'gardener', 'orc', 'Give it to me.')).toBeNull();
  });

  it('wearing, wielding, removing, eating and drinking', () => {
    const w = littleWorld();
    expect(steps(w, 'gardener', 'orc', 'Put on your hat.')!.steps).toEqual(['wear straw hat']);
    expect(steps(w, 'orc', 'gardener', 'Take off that helmet.')!.steps).toEqual(['remove iron helmet']);
    expect(steps(w, 'gardener', 'orc', 'Eat your apple.')!.steps).toEqual(['eat apple']);
    expect(steps(w, 'gardener', 'orc', 'drink the ale, friend')!.steps).toEqual(['drink flask of ale']);
    expect(steps(w, 'gardener', 'orc', 'Pick up the shovel and wield it.')!.steps).toEqual(['get shovel', 'wield shovel']);
    const already = steps(w, 'orc', 'gardener', 'Wear your helmet!')!;
    expect(already.steps).toEqual([]);
    expect(already.failure!.reason).toBe("I'm already wearing the iron helmet.");
  });

  it('lines that are not requests for a graph action give no plan', () => {
    const w = littleWorld();
    for (const line of ['Get out of here!', 'Hello there.', 'What a lovely garden.', 'Give me a moment.', 'Take care.', 'I want to go home.', 'Go north.']) {
      expect(steps(w, 'gardener', 'orc', line), line).toBeNull();
    }
  });
});

describe('requests in the bundled world', () => {
  const world = new World(loadWorld(DEFAULT_WORLD, { seed: 1 }).state);
  const scene = (a: string, b: string) => stageEpisode(world, world.roomOf(a)!, [a, b]);

  it('the old sailor hands over his rum and fetches the herring from its crate', () => {
    const w = scene('coast-old-sailor', 'coast-dockhand');
    expect(steps(w, 'coast-old-sailor', 'coast-dockhand', 'Can you give me the rum?')!.steps).toEqual(['give flask of rum to dockhand']);
    expect(steps(w, 'coast-old-sailor', 'coast-dockhand', 'Get the herring from the crate and give it to me.')!.steps).toEqual([
      'get salted herring from herring crate',
      'give salted herring to dockhand',
    ]);
    expect(steps(w, 'coast-old-sailor', 'coast-dockhand', 'Take the lobster out of the pot and hand it to me, old man.')!.steps).toEqual([
      'get live lobster from lobster pot',
      'give live lobster to dockhand',
    ]);
  });
});

describe('first person and cues', () => {
  it("puts the engine's explanations in the first person", () => {
    expect(firstPerson("You aren't carrying the apple; the gardener has it.")).toBe("I'm not carrying the apple; the gardener has it.");
    expect(firstPerson("You can't pick up the boulder.")).toBe("I can't pick up the boulder.");
    expect(firstPerson('You are wearing your hat.')).toBe('I am wearing my hat.');
  });

  it('recognises threats and sadness', () => {
    expect(cueOf('You must die!')).toBe('threat');
    expect(cueOf("Hand it over, or else!")).toBe('threat');
    expect(cueOf("I'll kill you, gardener.")).toBe('threat');
    expect(cueOf("I'm feeling sad today.")).toBe('sad');
    expect(cueOf('I am so lonely.')).toBe('sad');
    expect(cueOf('What a fine day.')).toBeNull();
    expect(cueOf('Give it back or I will scream for the captain.')).toBeNull();
  });
});
