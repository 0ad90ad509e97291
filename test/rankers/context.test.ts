/** Grounded context in LIGHT's format, and its truncation rule. */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { contextLines, formatContext, type ContextFacts } from '../../server/agents/context.js';
import { EMOTES } from '../../models/runtime/emotes.js';

const facts: ContextFacts = {
  setting: { name: 'The Rusty Flagon', category: 'Tavern', description: 'You are in a low,\nsmoky room.' },
  self: { name: 'the bard', persona: 'I am a wandering bard. I sing for my supper.' },
  partners: ['the innkeeper'],
  objects: [
    { name: 'lute', description: 'a battered lute', carried: true },
    { name: 'mug', description: 'a dented tin mug' },
  ],
  history: [
    { speaker: 'partner', kind: 'say', text: 'What will it be?' },
    { speaker: 'self', kind: 'act', text: 'get mug' },
    { speaker: 'partner', kind: 'emote', text: 'frown' },
    { speaker: 'self', kind: 'say', text: 'An ale, please.' },
  ],
};

describe('formatContext', () => {
  it('writes one fact a line in LIGHT\'s order, objects present before objects carried', () => {
    expect(formatContext(facts, 'speech')).toBe([
      '_task_speech',
      '_setting_name The Rusty Flagon, Tavern',
      '_setting_desc You are in a low, smoky room.',
      '_partner_name the innkeeper',
      '_self_name the bard',
      '_self_persona I am a wandering bard. I sing for my supper.',
      '_object_desc mug : a dented tin mug',
      '_object_desc lute : a battered lute',
      '_partner_say What will it be?',
      '_self_act get mug',
      '_partner_emote frown',
      '_self_say An ale, please.',
    ].join('\n'));
    expect(contextLines(facts, 'action')[0]).toBe('_task_action');
    expect(contextLines(facts, 'emote')[0]).toBe('_task_emote');
    expect(contextLines({ ...facts, partners: ['a', 'b'], setting: { name: 'x', description: 'y' } }, 'speech').slice(1, 4)).toEqual([
      '_setting_name x', '_setting_desc y', '_partner_name a, b',
    ]);
  });

  it('truncates by characters: oldest history first, then objects, keeping task, setting, names and persona', () => {
    const full = formatContext(facts, 'speech');
    const lines = full.split('\n');
    const withoutOldest = formatContext(facts, 'speech', { maxChars: full.length - 1 });
    expect(withoutOldest).toBe(lines.filter((l) => l !== '_partner_say What will it be?').join('\n'));
    const header = lines.slice(0, 6).join('\n');
    const justNewest = formatContext(facts, 'speech', { maxChars: header.length + '\n_object_desc mug : a dented tin mug\n_object_desc lute : a battered lute\n_self_say An ale, please.'.length });
    expect(justNewest.split('\n').slice(6)).toEqual(['_object_desc mug : a dented tin mug', '_object_desc lute : a battered lute', '_self_say An ale, please.']);
    const noObjects = formatContext(facts, 'speech', { maxChars: header.length + '\n_self_say An ale, please.'.length });
    expect(noObjects).toBe(`${header}\n_self_say An ale, please.`);
    expect(formatContext(facts, 'speech', { maxChars: header.length })).toBe(header);
    // Too small for even the header: cut at the end.
    expect(formatContext(facts, 'speech', { maxChars: 20 })).toBe(header.slice(0, 20));
  });

  it('truncates by tokens, with whitespace words or the caller\'s counter', () => {
    const words = (s: string) => s.split(/\s+/).length;
    const full = formatContext(facts, 'speech');
    const total = words(full.replace(/\n/g, ' '));
    const cut = formatContext(facts, 'speech', { maxTokens: total - 2 });
    expect(cut).not.toContain('What will it be?'); // 4 words of history dropped
    expect(cut).toContain('_self_say An ale, please.');
    const byChars = formatContext(facts, 'speech', { maxTokens: 200, countTokens: (s) => s.length });
    expect(byChars.split('\n').reduce((a, l) => a + l.length, 0)).toBeLessThanOrEqual(200);
    expect(byChars).toContain('_self_persona');
  });
});

it('the runtime\'s 22 emotes are spelled exactly as the engine\'s', () => {
  expect(EMOTES).toHaveLength(22);
  const engineFile = new URL('../../server/engine/emotes.ts', import.meta.url);
  if (!existsSync(engineFile)) return;
  const src = readFileSync(engineFile, 'utf8');
  const list = /export const EMOTES = \[([^\]]*)\]/.exec(src)?.[1];
  expect(list).toBeDefined();
  expect([...list!.matchAll(/'([a-z]+)'/g)].map((m) => m[1])).toEqual([...EMOTES]);
});
