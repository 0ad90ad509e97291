/**
 * The way somewhere, answered from the bundled world's exits: a person asking a character for
 * directions gets the real path from where they both stand, or no answer from the graph when the
 * line names no place (a thing, a person, "where are you from").
 */
import { describe, expect, it } from 'vitest';
import { World } from '../../server/engine/index.js';
import { DEFAULT_WORLD, loadWorld } from '../../server/world-io/load-world.js';
import { answerWay, placeAsked } from '../../server/agents/directions.js';
import { agentView } from '../../server/agents/view.js';

const world = new World(loadWorld(DEFAULT_WORLD, { seed: 1 }).state);

describe('the way, from the graph', () => {
  it.each<[string, string, string | undefined]>([
    ['farm-drover', "What's the best way to the town?", 'Go north to South Gate.'],
    ['farm-drover', 'Where is the tavern?', 'Go north to South Gate, north again to Market Square, then west to the Crooked Lantern.'],
    ['farm-drover', 'Oh, one more thing: where is the inn?', 'Go north to South Gate, north again to Market Square, then west to the Crooked Lantern.'],
    ['farm-drover', 'Is there a church nearby? Where is the church?', "Go east to Mill Lane, south to the Old Orchard, then south again to Greenhollow Wood Trail. From there it's 5 more steps to Chapel Yard."],
    ['hill-gate-warden', 'How do I get to the chapel?', 'Go west to Old Graveyard, then north to Chapel Yard.'],
    ['farm-hunter', 'Where can I find the witch?', "Go in to the Hedge Witch's Hut."],
    ['coast-lighthouse-keeper', 'How do I get to Saltmere, please?', "Go down the headland path to Harbourmaster's Quay, then west to Saltmere Docks."],
    ['town-innkeeper', 'Which way to the town?', "You're in the town already: this is the Crooked Lantern."],
    ['farm-hunter', "What's the way to the castle?", "Go north to the Old Orchard, north again to Mill Lane, then west to Greenhollow Crossroads. From there it's 3 more steps to Castle Gatehouse."],
    // not a place of this world, or not the way at all
    ['farm-drover', 'Where is the lantern?', undefined],
    ['farm-drover', 'Where are you from?', undefined],
    ['farm-drover', 'Where is your brother?', undefined],
    ['farm-drover', 'How do I get to Camelot?', undefined],
    ['farm-drover', 'Do you like your work?', undefined],
  ])('%s: %s', (who, line, answer) => {
    expect(answerWay(world, who, line)).toBe(answer);
  });

  it('reads the place words of the question', () => {
    expect(placeAsked('Could you tell me the way to the old mill, please?')?.place).toEqual(['mill']);
    expect(placeAsked('How can I get to the Crooked Lantern from here?')?.place).toEqual(['crooked', 'lantern']);
    expect(placeAsked('Good morning!')).toBeUndefined();
  });

  it('is the answer a character gives when asked by someone present', () => {
    const w = world.clone();
    w.move('coast-dockhand', 'farm-crossroads', 'in');
    const v = agentView(w, 'farm-drover', { heard: { from: 'coast-dockhand', text: 'Which way to the town?' } });
    expect(v?.answer).toBe('Go north to South Gate.');
  });
});
