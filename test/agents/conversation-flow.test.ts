/**
 * Where a conversation stands for a model character: no greeting once it has spoken, nothing more
 * after both have said goodbye, no sentence twice in one line, and no reaction to a line that said
 * nothing. Table-driven on the rules; the judge and a seeded episode run show them in use.
 */
import { describe, expect, it } from 'vitest';
import { flowOf, greets, reacts, repeatsItself, saysFarewell, thanksFor } from '../../server/agents/conversation-flow.js';
import type { HistoryEntry } from '../../server/agents/context.js';
import { LineJudge, PoolLines, worldProperNames, type Scene } from '../../server/agents/line-judge.js';
import { unsureKind } from '../../server/agents/unsure.js';
import { World } from '../../server/engine/index.js';
import { DEFAULT_WORLD, loadWorld } from '../../server/world-io/load-world.js';

const say = (speaker: 'self' | 'partner', text: string): HistoryEntry => ({ speaker, kind: 'say', text });

describe('kinds of line', () => {
  it.each([
    ['Hello there.', true],
    ['Good morning, smith! Fresh bread?', true],
    ['Well met.', true],
    ['"Hail, traveller."', true],
    ['Say hello to your mother for me.', false],
    ['It was a good day for fishing.', false],
    ['Morning light is best for fishing.', false],
    ['Hail flattened the barley last week.', false],
    ['Good day to you.', true],
  ])('greets: %s -> %s', (line, want) => expect(greets(line)).toBe(want));

  it.each([
    ['As you like. I\'ll bid you good day.', true],
    ['Thank you, Father, I must be off.', true],
    ['Go well, then.', true],
    ['Safe roads to you.', true],
    ['Thanks for the chat. Have a good day!', true],
    ['Good night, and sleep well.', true],
    ['It goes well enough, thank you.', false],
    ['I had a good day at market.', false],
  ])('says goodbye: %s -> %s', (line, want) => expect(saysFarewell(line)).toBe(want));

  it.each([
    ['Goodbye, bird! Goodbye, bird!', true],
    ['Do you speak as well? Do you speak as well?', true],
    ['No. No, I said.', false],
    ['Hello there. How are you?', false],
  ])('repeats itself: %s -> %s', (line, want) => expect(repeatsItself(line)).toBe(want));

  it.each([
    ['Thanks for the chat.', true],
    ['Thank you, I will pay you next market day.', true],
    ["Hm, I'll keep that in mind, thank you.", true],
    ['Getting by, thank you.', false],
    ["No, I'm all right, thank you.", false],
  ])('is mainly thanks: %s -> %s', (line, want) => expect(thanksFor(line)).toBe(want));

  it.each([
    ['Am I? I remember a gate.', true],
    ['A story? Which one?', true],
    ['Thank you, friend.', true],
    ["It's a deal. Now shake on it, if you can.", true],
    ['Then enjoy it, friend.', true],
    ['Poachers took six deer last month alone.', false],
    ['Do you ever go hunting yourself, mushroom gatherer?', false],
  ])('reacts to something said: %s -> %s', (line, want) => expect(reacts(line)).toBe(want));

  it('hears the goodbyes that plain lines answer as goodbyes', () => {
    expect(unsureKind("As you like. I'll bid you good day.")).toBe('farewell');
    expect(unsureKind('Thanks for the chat. Have a good day!')).toBe('farewell');
  });
});

describe('where the conversation stands', () => {
  it.each<[string, HistoryEntry[], { spoke: boolean; closed: boolean }]>([
    ['nothing said yet', [say('partner', 'Hello there.')], { spoke: false, closed: false }],
    ['under way', [say('self', 'Hello.'), say('partner', 'What brings you here?')], { spoke: true, closed: false }],
    ['I said goodbye, nothing since', [say('partner', 'I must go.'), say('self', 'Go well, then.')], { spoke: true, closed: true }],
    ['I said goodbye, and so did they', [say('self', 'Farewell, then.'), say('partner', 'Safe roads to you.')], { spoke: true, closed: true }],
    ['I said goodbye, they asked more', [say('self', 'Farewell, then.'), say('partner', 'Wait, where is the inn?')], { spoke: true, closed: false }],
    ['I said goodbye, they said goodbye and asked more', [say('self', 'Farewell, then.'), say('partner', "Thanks, bye! Oh, where's the inn?")], { spoke: true, closed: false }],
    ['my goodbye asked something', [say('self', 'Goodbye! Will you come back?'), say('partner', 'Bye.')], { spoke: true, closed: false }],
    ['they said goodbye, I have not yet', [say('self', 'Fine weather.'), say('partner', 'Goodbye!')], { spoke: true, closed: false }],
    ['an emote after goodbyes', [say('self', 'Farewell.'), { speaker: 'partner', kind: 'emote', text: 'wave' }], { spoke: true, closed: true }],
  ])('%s', (_name, history, want) => expect(flowOf(history)).toEqual(want));
});

describe('the judge', () => {
  const world = new World(loadWorld(DEFAULT_WORLD, { seed: 1 }).state);
  const judge = new LineJudge(new PoolLines(['Hello there.', 'Goodbye, bird! Goodbye, bird!', 'Fine weather today.'], [], world), worldProperNames(world));
  const scene = (history: HistoryEntry[]): Scene => ({ selfName: 'town crier', partnerName: 'baker', present: [], objects: [], held: [], said: new Set(), flow: flowOf(history) });

  it.each<[string, HistoryEntry[], string | null]>([
    ['Hello there.', [], null],
    ['Hello there.', [say('self', 'Fine weather today.'), say('partner', 'What news?')], 'late_greeting'],
    ['Goodbye, bird! Goodbye, bird!', [], 'repeat'],
    ['Fine weather today.', [say('self', 'Hello there.')], null],
  ])('%s after %j: %s', (line, history, reason) => {
    const v = judge.judge(line, scene(history));
    expect(v.ok ? null : v.reason).toBe(reason);
  });
});
