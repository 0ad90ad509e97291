/**
 * The plain lines a character says when the model is unsure of its best one: of the kind the heard
 * line calls for, never one already said in the conversation, and spread across speakers.
 */
import { describe, expect, it } from 'vitest';
import { unsureKind, unsureLine } from '../../server/agents/unsure.js';
import { lineKind } from '../../server/agents/line-kind.js';

describe('the kind of plain line a heard line calls for', () => {
  it.each([
    ['Well, I should be going. Take care!', 'farewell'],
    ['Thank you kindly.', 'thanks'],
    ["Sorry, I didn't mean to bother you.", 'sorry'],
    ["Good evening! Cold tonight, isn't it?", 'tag'],
    ['Are you married?', 'personal'],
    ['Do you believe in magic?', 'personal'],
    ['Do you need any help?', 'offer'],
    ['Have you heard any news?', 'yesno'],
    ['Is there a well nearby?', 'yesno'],
    ['Who is in charge around here?', 'wh'],
    ['You there, what do you want?', 'wh'],
    ["I'm so tired. I've been walking all day.", 'tired'],
    ['Hello there!', 'greeting'],
    ['The crows are loud today.', 'remark'],
  ])('%s -> %s', (heard, kind) => {
    expect(unsureKind(heard)).toBe(kind);
  });

  it('reads the last sentence of a line', () => {
    expect(lineKind('Good evening! Where are you from?')).toBe('where');
    expect(lineKind('Are you married?')).toBe('yesno');
    expect(lineKind('Married! Well, bless you.')).toBe('remark');
  });
});

describe('a plain line', () => {
  it('is never one said already, and none is left when all were said', () => {
    const said = new Set<string>();
    const got: string[] = [];
    for (;;) {
      const l = unsureLine('Thank you!', said, 'dockhand');
      if (!l) break;
      expect(said.has(l.toLowerCase())).toBe(false);
      said.add(l.toLowerCase());
      got.push(l);
    }
    expect(got.length).toBe(3);
  });

  it('differs between speakers, so a room does not answer in chorus', () => {
    const lines = new Set(['dockhand', 'lighthouse keeper', 'reed cutter', 'drover', 'hunter', 'innkeeper'].map((n) => unsureLine('Who is in charge around here?', new Set(), n)));
    expect(lines.size).toBeGreaterThan(1);
  });
});
