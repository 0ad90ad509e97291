/**
 * Replies the corpus gave to lines like the one heard, and who gave them (server/agents/reply-examples.ts):
 * the evidence that lets a character answer what was asked, in its own role.
 */
import { describe, expect, it } from 'vitest';
import { World } from '../../server/engine/index.js';
import { DEFAULT_WORLD, loadWorld } from '../../server/world-io/load-world.js';
import { hasWord, ReplyExamples, stemsOf } from '../../server/agents/reply-examples.js';
import { DocFrequencies } from '../../models/runtime/lexical.js';
import type { Episode } from '../../server/episodes/episode.js';

const world = new World(loadWorld(DEFAULT_WORLD, { seed: 1 }).state);
const chars = world.characters();
const dockhand = chars.find((c) => c.id === 'coast-dockhand')!;
const crier = chars.find((c) => c.id === 'town-crier')!;

const episodes: Episode[] = [
  {
    id: 'e-1', room: 'coast-docks', characters: ['town-crier', 'coast-dockhand'],
    turns: [
      { speaker: 'town-crier', say: 'Do you have a family?' },
      { speaker: 'coast-dockhand', say: 'A sister in town. She sends me bread.' },
      { speaker: 'town-crier', say: 'Is the work hard?' },
      { speaker: 'coast-dockhand', say: 'Hard on the back, every day.' },
      // the same speaker twice: the second line answers nobody
      { speaker: 'coast-dockhand', say: 'Mind the ropes.' },
    ],
  },
  {
    id: 'e-2', room: 'town-square', characters: ['coast-dockhand', 'town-crier'],
    turns: [
      { speaker: 'coast-dockhand', say: 'Do you have a family?' },
      { speaker: 'town-crier', say: 'Only my bell, friend.' },
      { speaker: 'coast-dockhand', say: 'Who is in charge of the square?' },
      { speaker: 'town-crier', say: 'The castle steward.' },
    ],
  },
];

const freq = new DocFrequencies().add(episodes.flatMap((e) => e.turns.map((t) => t.say!)));
const ex = new ReplyExamples(episodes, world, freq);

describe('replies to like lines', () => {
  it('keeps each distinct prompt once, with every reply it got, and never a speaker answering itself', () => {
    expect(ex.size).toBe(5);
    expect(ex.repliesTo('Do you have a family?')).toEqual(['A sister in town. She sends me bread.', 'Only my bell, friend.']);
    expect(ex.repliesTo('Hard on the back, every day.')).toEqual([]);
    expect(ex.repliesTo('Not in the corpus')).toEqual([]);
  });

  it.each([
    ['Do you have any family?', 'Do you have a family?'],
    ['Is your work hard?', 'Is the work hard?'],
    ['Who is in charge here?', 'Who is in charge of the square?'],
  ])('%s finds "%s" first', (line, prompt) => {
    const found = ex.similarPrompts(line, 3);
    expect(found[0]?.prompt).toBe(prompt);
    expect(found[0]!.lexical).toBeGreaterThan(0.3);
    for (let i = 1; i < found.length; i++) expect(found[i]!.lexical).toBeLessThanOrEqual(found[i - 1]!.lexical);
  });

  it('finds nothing for a line that shares no word with any prompt', () => {
    expect(ex.similarPrompts('Zzz qqq', 5)).toEqual([]);
    expect(ex.similarPrompts('', 5)).toEqual([]);
  });

  it('words that tell questions apart count: "who" is not "what"', () => {
    expect(ex.wordSimilarity('Who is in charge?', 'Who is in charge of the square?')).toBeGreaterThan(ex.wordSimilarity('What do you charge?', 'Who is in charge of the square?'));
  });
});

describe('who said a line', () => {
  it('a line fits its own speaker best', () => {
    const me = ex.speakerVector(dockhand.name, dockhand.persona);
    const own = ex.roleFit('Hard on the back, every day.', me)!;
    const other = ex.roleFit('Only my bell, friend.', me)!;
    expect(own).toBeCloseTo(1, 5);
    expect(other).toBeLessThan(own);
    const crierVec = ex.speakerVector(crier.name, crier.persona);
    expect(ex.roleFit('Only my bell, friend.', crierVec)!).toBeCloseTo(1, 5);
  });

  it('a line no known character said has no role fit', () => {
    expect(ex.roleFit('A line from utterances.txt', ex.speakerVector('x', 'y'))).toBeUndefined();
  });
});

describe('the words a line turns on', () => {
  const ex = new ReplyExamples(episodes, world, new DocFrequencies());

  it.each([
    ['Which season do you like best?', ['season']],
    ['Is there somewhere I could sleep tonight?', ['somewhere', 'sleep']],
    ['Good evening! Do you like animals?', ['animals']],
    ['How are you?', []],
  ])('%s -> %j', (line, words) => {
    expect(ex.focusOf(line)).toEqual(words);
  });

  it('are found in a line in their plain forms', () => {
    expect(hasWord('I keep two dogs and a cat.', stemsOf(['dog']))).toBe(true);
    expect(hasWord('Autumn, when the seasons turn.', stemsOf(['season']))).toBe(true);
    expect(hasWord('Hot eel pie on a cold night.', stemsOf(['season', 'year']))).toBe(false);
  });
});
