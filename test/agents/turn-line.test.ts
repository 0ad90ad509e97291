/**
 * What a model character says on a turn: the policy's line, except a plain "unsure" line on a turn of
 * its own (an idle turn), where it would be a second answer to a line already answered.
 */
import { describe, expect, it } from 'vitest';
import { lineToSay } from '../../server/agents/manager.js';

describe('the line said on a turn', () => {
  it.each([
    ['speech', 'unsure', "Ah, that's a long story for another day.", "Ah, that's a long story for another day."],
    ['speech', 'model', 'The one up the north road.', 'The one up the north road.'],
    ['idle', 'unsure', "Ah, that's a long story for another day.", ''],
    ['idle', 'model', 'The crows are loud today.', 'The crows are loud today.'],
    ['idle', 'answer', 'This is the Old Orchard.', 'This is the Old Orchard.'],
  ] as const)('on a %s turn, a line from %s: %s', (kind, source, say, want) => {
    expect(lineToSay({ kind }, { say, why: { say: source, act: 'none' } })).toBe(want);
  });
});
