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
import { acknowledge, refuse } from '../../server/agents/policy.js';
import { cueOf } from '../../server/agents/cues.js';
import { agentView } from '../../server/agents/view.js';
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

  it('a person asked for is no thing to hand over', () => {
    const w = littleWorld();
    for (const line of ['I need someone to keep the lists.', 'I need somebody to help me.', 'Give me someone who can dig.']) expect(steps(w, 'gardener', 'orc', line), line).toBeNull();
  });

  it('a thing asked for another day is no request now', () => {
    const w = littleWorld();
    for (const line of ["Bring one next week and I'll have a rabbit for you.", 'Give me the apple tomorrow.', 'Bring the spade back after the harvest.']) expect(steps(w, 'gardener', 'orc', line), line).toBeNull();
    expect(steps(w, 'gardener', 'orc', 'Give me the apple now.')!.steps).toEqual(['give apple to orc']);
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
    expect(q.failure!.reason).toBe('You have the apple, not me.');
  });

  it('something within reach but not carried is fetched first', () => {
    const w = littleWorld();
    expect(steps(w, 'gardener', 'orc', 'Could you give me the shovel?')!.steps).toEqual(['get shovel', 'give shovel to orc']);
    expect(steps(w, 'gardener', 'orc', 'bring me the clay cup')!.steps).toEqual(['get clay cup from potting table', 'give clay cup to orc']);
  });

  it('"me" is the partner, "it" the object named earlier in the conversation', () => {
    const w = littleWorld();
    expect(steps(w, 'gardener', 'orc', 'Give it to me.', 'flask of ale')!.steps).toEqual(['give flask of ale to orc']);
    expect(steps(w, 'gardener', 'orc', 'Give me some.', 'apple')!.steps).toEqual(['give apple to orc']);
    expect(steps(w, 'gardener', 'orc', 'Could I have one?', 'apple')!.steps).toEqual(['give apple to orc']);
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
    for (const line of ['Get out of here!', 'Hello there.', 'What a lovely garden.', 'Give me a moment.', 'Take care.', 'I want to go home.', 'Go north.', 'Very well, show me these tracks of yours.', 'Show me the way.', 'One day. And bring back no rabbits.', 'Give me nothing.']) {
      expect(steps(w, 'gardener', 'orc', line), line).toBeNull();
    }
  });

  it('"eat it" is a request only when the thing spoken of last can be eaten', () => {
    const w = littleWorld();
    expect(steps(w, 'gardener', 'orc', "Eat it while it's warm.", 'shovel')).toBeNull();
    expect(steps(w, 'gardener', 'orc', 'Drink it.', 'apple')).toBeNull();
    expect(steps(w, 'gardener', 'orc', "Eat it while it's fresh.", 'apple')!.steps).toEqual(['eat apple']);
  });
});

/** [who is asked, who asks, the line, the steps planned, the reason it stops (none: it does them all)]. */
type Row = [self: string, partner: string, line: string, steps: string[], reason?: string];

function expectRows(w: World, rows: Row[]): void {
  for (const [self, partner, line, want, reason] of rows) {
    const p = steps(w, self, partner, line);
    expect(p, line).not.toBeNull();
    expect(p!.steps, line).toEqual(want);
    expect(p!.failure?.reason, line).toBe(reason);
  }
}

describe('requests people actually type (little world)', () => {
  it('ways of asking for a thing', () => {
    const lines = [
      'Hand me the apple.', 'Pass me the apple, would you?', 'Toss me the apple!', 'Could you please give me the apple?',
      'Would you be so kind as to hand me the apple?', 'Be so kind as to pass me the apple.', 'I need the apple.', "I'd love an apple.",
      'May I have the apple?', 'Can I get the apple?', 'I could use an apple.', 'Do you think you could toss me the apple?',
      'Could you possibly hand me the apple, gardener?', 'Gardener, would you be so kind as to give me your apple?',
    ];
    expectRows(littleWorld(), lines.map((line): Row => ['gardener', 'orc', line, ['give apple to orc']]));
  });

  it('"give me the X from the Y" fetches it from the container or surface, then gives it', () => {
    expectRows(littleWorld(), [
      ['gardener', 'orc', 'Give me the cup from the table.', ['get clay cup from potting table', 'give clay cup to orc']],
      ['gardener', 'orc', 'Hand me the gold coin from the chest, please.', ['get gold coin from oak chest', 'give gold coin to orc']],
      ['gardener', 'orc', 'Pass me the seed out of your sack.', ['get seed from sack', 'give seed to orc']],
      ['gardener', 'orc', 'Could you toss me the clay cup off the potting table?', ['get clay cup from potting table', 'give clay cup to orc']],
      // "throw it away" is drop, not give
      ['gardener', 'orc', 'Throw the apple away.', ['drop apple']],
      ['gardener', 'orc', 'Toss the pebble away, would you?', ['drop pebble']],
      // Already in hand, not in the sack: just give it.
      ['gardener', 'orc', 'Give me the apple from your sack.', ['give apple to orc']],
      ['gardener', 'orc', 'Give me the nail from the chest.', [], "I can't pick up the nail."],
    ]);
  });

  it('two things in one request', () => {
    expectRows(littleWorld(), [
      ['gardener', 'orc', 'Give me the apple and the ale.', ['give apple to orc', 'give flask of ale to orc']],
      ['gardener', 'orc', 'Hand me the cup and the candle.', ['get clay cup from potting table', 'give clay cup to orc', 'get candle', 'give candle to orc']],
      ['gardener', 'orc', 'Give the apple and the flask of ale to me.', ['give apple to orc', 'give flask of ale to orc']],
      ['gardener', 'orc', 'Could I have the apple and the pebble?', ['give apple to orc', 'give pebble to orc']],
      ['gardener', 'orc', 'Give me the gold coin and the nail from the chest.', ['get gold coin from oak chest', 'give gold coin to orc'], "I can't pick up the nail."],
      ['gardener', 'orc', 'Give me the apple, the pebble and the ale.', ['give apple to orc', 'give pebble to orc', 'give flask of ale to orc']],
      ['gardener', 'orc', 'Give me the apple and a sword.', ['give apple to orc'], "I don't have a sword."],
      ['gardener', 'orc', 'Give me the apple and something to drink.', ['give apple to orc', 'give flask of ale to orc']],
      ['gardener', 'orc', 'Give me the apple and the ale too.', ['give apple to orc', 'give flask of ale to orc']],
      ['gardener', 'orc', 'Put the apple and the pebble in the sack.', ['put apple in sack', 'put pebble in sack']],
      ['gardener', 'orc', 'Put the apple in the sack and the pebble.', ['put apple in sack', 'put pebble in sack']],
      ['gardener', 'orc', 'Get the gold coin and the nail from the chest.', ['get gold coin from oak chest'], "I can't pick up the nail."],
    ]);
    expect(acknowledge('give', ['give apple to orc', 'give flask of ale to orc'])).toBe('Here, take the apple and the flask of ale.');
    expect(acknowledge('give', ['remove iron helmet', 'give iron helmet to gardener'])).toBe('Here, take the iron helmet.');
    // What follows "and" that is neither a verb nor a thing is not part of the request.
    expect(steps(littleWorld(), 'gardener', 'orc', 'Give me the apple and be quick about it.')!.steps).toEqual(['give apple to orc']);
  });

  it('requests by kind pick a thing with that affordance, carried first, then within reach', () => {
    expectRows(littleWorld(), [
      ['gardener', 'orc', 'Give me something to eat.', ['give apple to orc']],
      ['gardener', 'orc', 'Could I have something to drink?', ['give flask of ale to orc']],
      ['gardener', 'orc', "I'd love a drink.", ['give flask of ale to orc']],
      ['gardener', 'orc', 'I need food.', ['give apple to orc']],
      ['gardener', 'orc', 'Hand me your food.', ['give apple to orc']],
      ['gardener', 'orc', 'Can you get me something to eat?', ['give apple to orc']],
      ['gardener', 'orc', 'Fetch me something to eat from the table.', ['give apple to orc']],
      ['orc', 'gardener', 'Fetch me something to drink.', ['get clay cup from potting table', 'give clay cup to gardener']],
      ['orc', 'gardener', 'Bring me something to defend myself with.', ['get shovel', 'give shovel to gardener']],
      ['gardener', 'orc', 'Can I get a bite to eat?', ['give apple to orc']],
      ['gardener', 'orc', 'Could you spare something to eat?', ['give apple to orc']],
      ['gardener', 'orc', 'Can you spare me the apple?', ['give apple to orc']],
      ['gardener', 'orc', 'Have you got something to wear? Give me something to wear.', ['give straw hat to orc']],
      ['gardener', 'orc', 'Hand me a weapon!', ['get shovel', 'give shovel to orc']],
      ['orc', 'gardener', 'Give me anything to drink.', ['get clay cup from potting table', 'give clay cup to gardener']],
      ['orc', 'gardener', 'Give me something to wear.', ['give silver ring to gardener']],
      ['orc', 'gardener', 'Give me something to eat.', [], "I don't have anything to eat."],
      ['kitty', 'orc', 'Can I have something to wear?', [], "I don't have anything to wear."],
    ]);
    const w = littleWorld();
    execute(w, 'orc', 'wear silver ring');
    execute(w, 'gardener', 'get shovel');
    expectRows(w, [
      ['orc', 'gardener', 'Give me something to wear.', [], "I'm wearing the iron helmet; I'd have to take it off first."],
      ['orc', 'gardener', 'Give me a weapon.', [], "I'm wielding the club; I'd have to put it away first."],
    ]);
  });

  it('refusals say why, in plain grammar', () => {
    expectRows(littleWorld(), [
      ['gardener', 'orc', 'Give me the firewood.', [], "I don't have any firewood."],
      ['kitty', 'orc', 'Give me some apples.', [], 'The gardener has the apple, not me.'],
      ['carter', 'orc', 'Give me some apples.', [], "I don't have any apples."],
      ['gardener', 'orc', 'Give me your boots.', [], "I don't have any boots."],
      ['gardener', 'orc', 'Give me an axe.', [], "I don't have an axe."],
      ['gardener', 'orc', 'Can I have some bread?', [], "I don't have any bread."],
      ['kitty', 'gardener', 'Give me the helmet.', [], 'The orc has the iron helmet, not me.'],
      ['orc', 'gardener', 'Hand me the straw hat.', [], 'You have the straw hat, not me.'],
      ['gardener', 'orc', 'Give me the scroll.', [], 'Which scroll do you mean: the old scroll or the torn scroll?'],
    ]);
    expect(refuse("I don't have anything to eat.", 0)).toBe("Sorry, I don't have anything to eat.");
    expect(refuse('Which scroll do you mean: the old scroll or the torn scroll?', 2)).toBe('Which scroll do you mean: the old scroll or the torn scroll?');
  });

  it('a thing worn or wielded is taken off, then handed over or put down', () => {
    expectRows(littleWorld(), [
      ['orc', 'gardener', 'Give me your helmet.', ['remove iron helmet', 'give iron helmet to gardener']],
      ['orc', 'gardener', 'Hand over that club!', ['remove club', 'give club to gardener']],
      ['orc', 'gardener', 'Drop your club!', ['remove club', 'drop club']],
    ]);
  });

  it('never claims not to have what it carries: plurals and loose names find the thing held', () => {
    expectRows(littleWorld(), [
      ['gardener', 'orc', 'Give me one of your apples.', ['give apple to orc']],
      ['gardener', 'orc', 'Could I have a bit of the apple?', ['give apple to orc']],
      ['gardener', 'orc', 'Give me a drink of ale.', ['give flask of ale to orc']],
      ['gardener', 'orc', 'Give me all your seeds!', ['get seed from sack', 'give seed to orc']],
      ['gardener', 'orc', 'Give me the apples.', ['give apple to orc']],
      ['gardener', 'orc', 'Give me some seeds.', ['get seed from sack', 'give seed to orc']],
      ['gardener', 'orc', 'Could I have your hat?', ['give straw hat to orc']],
    ]);
  });

  it('wants that are not things stay with the model', () => {
    for (const line of ['Give me something.', 'Give me anything!', 'Give me everything you have.', 'Give me some.', 'Spare me the lecture.', 'I need some rest.', "I'd love to.", 'I need a moment.', 'Can I have a word?', 'I need help.', 'I could use some advice.']) {
      expect(steps(littleWorld(), 'gardener', 'orc', line), line).toBeNull();
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

describe('requests people actually type (bundled world)', () => {
  const world = new World(loadWorld(DEFAULT_WORLD, { seed: 1 }).state);
  const scene = (a: string, b: string) => stageEpisode(world, world.roomOf(a)!, [a, b]);
  const row = (self: string, partner: string, line: string, want: string[], reason?: string) => {
    const p = steps(scene(self, partner), self, partner, line);
    expect(p, line).not.toBeNull();
    expect(p!.steps, line).toEqual(want);
    expect(p!.failure?.reason, line).toBe(reason);
  };

  it('kinds, two things, fetching from a place and grammar in the real world', () => {
    row('farm-mill-apprentice', 'farm-washerwoman', "Could you spare me something to eat? I'm starving.", ['give loaf of brown bread to washerwoman']);
    row('farm-mill-apprentice', 'farm-washerwoman', 'Can I have some bread?', ['give loaf of brown bread to washerwoman']);
    row('coast-old-sailor', 'coast-dockhand', 'I need a drink.', ['give flask of rum to dockhand']);
    row('coast-net-mender', 'coast-dockhand', 'Could you please give me something to drink?', [], "I don't have anything to drink.");
    row('coast-net-mender', 'coast-dockhand', 'Give me something to wear.', [], "I'm wearing the woollen shawl; I'd have to take it off first.");
    row('coast-fishmonger', 'coast-fishwife', 'Give me your ale.', [], "I don't have any ale.");
    // words that only describe name nothing: the lamp girl's "little rag" is her polishing rag
    row('coast-lamp-girl', 'coast-fishwife', 'I want the little rag.', ['give polishing rag to fishwife']);
    // what a thing is for is not part of its name
    row('coast-lamp-girl', 'coast-fishwife', 'I need the rag to polish my boots.', ['give polishing rag to fishwife']);
    row('coast-lamp-girl', 'coast-fishwife', 'I need a rope to get up the mountain.', [], "I don't have any rope.");
    row('coast-lamp-girl', 'coast-fishwife', 'Give me that old shell.', ['give spiral seashell to fishwife']);
    row('coast-lamp-girl', 'coast-fishwife', 'Give me the golden rag.', [], "I don't have a golden rag.");
    row('town-innkeeper', 'town-barmaid', 'Give me the clay mug and the pewter mug.', ['get clay mug from oak bar', 'give clay mug to barmaid', 'get pewter mug from scarred table', 'give pewter mug to barmaid']);
    row('town-innkeeper', 'town-barmaid', 'Hand me the clay mug from the bar.', ['get clay mug from oak bar', 'give clay mug to barmaid']);
    row('farm-miller', 'farm-mill-apprentice', 'Hand me your pick and your apron.', ['give mill pick to mill apprentice', 'remove floury apron', 'give floury apron to mill apprentice']);
    row('coast-reed-cutter', 'coast-angler', 'Give me the cheese and the ale.', ['give heel of cheese to angler'], 'You have the stone bottle of ale, not me.');
  });

  it('the thing asked for is the one the character holds, or the one it can pick up; what it cannot pick up it says so', () => {
    row('coast-fishwife', 'coast-fishmonger', 'Give me the knife.', ['remove gutting knife', 'give gutting knife to fishmonger']);
    row('coast-old-sailor', 'coast-dockhand', 'Hand me the herring.', ['get salted herring from herring crate', 'give salted herring to dockhand']);
    row('coast-old-sailor', 'coast-dockhand', 'Hand me the crate.', [], "I can't pick up the herring crate.");
    row('coast-bait-digger', 'coast-beachcomber', 'Give me the spade from the worm bucket.', ['remove bait spade', 'give bait spade to beachcomber']);
    row('hill-scholar', 'hill-malgrave', 'Could you hand me the pies?', ['give cold pork pie to malgrave']);
    row('farm-orchard-keeper', 'farm-apple-picker', 'Give me the apple.', [], 'Which apple do you mean: the red apple or the green apple?');
  });

  it('a thing another character holds: "The sexton has the ring of keys, not me."', () => {
    const p = steps(world, 'hill-beggar', 'hill-nun', 'Give me the keys.')!;
    expect(p.steps).toEqual([]);
    expect(p.failure!.reason).toBe('The sexton has the ring of keys, not me.');
  });

  it('no character who has something of a kind ever says it has nothing of that kind, nor "a something"', () => {
    const kinds = [['food', 'Give me something to eat.'], ['drink', 'Can I have something to drink?'], ['weapon', 'Hand me a weapon.'], ['wearable', 'Give me something to wear.']] as const;
    const state = world.toJSON();
    let checked = 0;
    for (const [id, node] of Object.entries(state.nodes)) {
      if (node.kind !== 'character') continue;
      const partner = world.charactersIn(world.roomOf(id)!).find((c) => c.id !== id);
      if (!partner) continue;
      for (const [kind, line] of kinds) {
        const p = steps(world, id, partner.id, line)!;
        const reason = p.failure?.reason ?? '';
        const has = world.visibleFrom(id).some((o) => world.holderOf(o) === id && world.object(o)?.[kind]);
        expect(reason, `${id}: ${line}`).not.toMatch(/\ba something\b|\ba anything\b/);
        if (has) expect(reason, `${id} has some ${kind}: ${line}`).not.toMatch(/^I don't have/);
        if (!p.failure) expect(p.steps.at(-1), `${id}: ${line}`).toMatch(new RegExp(`^give .+ to ${partner.name.toLowerCase()}$`));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(300);
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

  it('recognises hunger and thirst said of oneself', () => {
    expect(cueOf("I'm starving, I haven't eaten in days.")).toBe('hungry');
    expect(cueOf("I'm parched. Haven't had a drop all day.")).toBe('thirsty');
    expect(cueOf('Are you hungry?')).toBeNull();
    expect(cueOf('The goats are always hungry.')).toBeNull();
  });
});

describe('hunger and thirst heard', () => {
  it('offer food or drink the character has, as if asked; nothing to offer is no refusal', () => {
    const w = littleWorld();
    const view = agentView(w, 'gardener', { heard: { from: 'orc', text: "I'm so hungry." } })!;
    expect(view.cue).toBe('hungry');
    expect(view.plan?.steps).toEqual(['give apple to orc']);
    const thirsty = agentView(w, 'gardener', { heard: { from: 'orc', text: "I'm parched." } })!;
    expect(thirsty.cue).toBe('thirsty');
    expect(thirsty.plan?.steps).toEqual(['give flask of ale to orc']);
    // the orc has nothing to eat
    const none = agentView(w, 'orc', { heard: { from: 'gardener', text: "I'm starving." } })!;
    expect(none.cue).toBe('hungry');
    expect(none.plan).toBeUndefined();
  });
});
