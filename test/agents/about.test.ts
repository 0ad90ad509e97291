/**
 * Questions about the place and the character itself are answered from the graph: the room's name
 * and first sentence, the persona's first-person sentences (the people they name are of the character's own life).
 */
import { describe, expect, it } from 'vitest';
import { World } from '../../server/engine/index.js';
import { DEFAULT_WORLD, loadWorld } from '../../server/world-io/load-world.js';
import { answersAbout } from '../../server/agents/about.js';

const world = new World(loadWorld(DEFAULT_WORLD, { seed: 1 }).state);

describe('answers about the place and oneself', () => {
  it.each<[string, string, RegExp | null]>([
    ['coast-dockhand', 'What is this place?', /^This is Saltmere Docks\. Tarred timber jetties/],
    ['coast-dockhand', 'Where am I?', /^This is Saltmere Docks\./],
    ['town-innkeeper', 'what place is this?', /^This is the Crooked Lantern\./],
    ['coast-dockhand', 'What do you do here?', /^I am a dockhand on the Saltmere docks/],
    ['coast-dockhand', 'Tell me about yourself.', /^I am a dockhand/],
    ['farm-drover', 'Who are you?', /^I am Garrick the drover/],
    ['farm-drover', 'What should I call you?', /^I am Garrick the drover/],
    ['hill-young-pilgrim', 'Where are you from?', /^I am a young pilgrim from the Greenhollow farms/],
    ['hill-hermit', 'Good evening. Where do you come from?', /^I am the hermit of the ledge, and I came up here twenty years ago/],
    ['coast-dockhand', 'Where are you from?', /^From round here, near enough\.$/],
    ['coast-dockhand', 'Where is the ferry from?', null],
    ['coast-dockhand', 'I know what this place is.', null],
    ['coast-dockhand', 'What do you do with the rope?', null],
    ['coast-dockhand', 'Hello there!', null],
  ])('%s hears "%s"', (who, line, want) => {
    const [first] = answersAbout(world, who, line);
    if (want === null) expect(first).toBeUndefined();
    else expect(first).toMatch(want);
  });

  it('gives the next sentence of the persona, each in the first person, the people of its own life included', () => {
    const dockhand = answersAbout(world, 'coast-dockhand', 'Tell me about yourself.');
    expect(dockhand.length).toBeGreaterThan(1);
    for (const s of dockhand) expect(s).toMatch(/\b(?:I|me|my|My)\b/);
    const all = answersAbout(world, 'farm-farmer', 'Tell me about yourself.');
    expect(all[0]).toMatch(/^I am Edric Holloway/);
    // "my farmhand Dunstan and my boy Pip" are the farmer's own, wherever they are
    expect(all[1]).toMatch(/my farmhand Dunstan and my boy Pip/);
    // the castle guard, asked twice: its first sentence, then its captain (no sentence it has begins "I" or "My")
    expect(answersAbout(world, 'town-castle-guard', 'Tell me about yourself.').slice(0, 2)).toEqual([
      'I am a guard of Harrowmere Castle, and I stand at this gatehouse from dawn until the evening bell.',
      'Captain Brannoc trained me himself, and I would sooner lose a hand than fail him.',
    ]);
  });
});
