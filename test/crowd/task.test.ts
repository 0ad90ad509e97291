import { describe, expect, it } from 'vitest';
import { validateTask, TaskError, readTaskFile } from '../../server/crowd/task.js';
import { checkLine, trigramJaccard, unsafeWords } from '../../server/crowd/checks.js';
import { DEFAULT_CHECKS } from '../../server/crowd/task.js';
import { PairingQueue } from '../../server/crowd/queue.js';
import { canMove } from '../../server/crowd/units.js';
import { tempDir, writeLittleWorld } from '../server/helpers.js';
import { writeTaskFile } from './helpers.js';

const good = {
  id: 'garden-chat', world: 'little-world.json', locations: ['garden'], personas: ['kitty', 'orc'], turns: 4, turnSeconds: 60,
  warningSeconds: 10, reward: '$1', maxConcurrentPairs: 2, maxUnitsPerWorker: 3, modelFallbackSeconds: 30, partnerDrop: 'replace_with_model',
};

function fieldError(data: unknown): string {
  try {
    validateTask(data, 'task.json');
  } catch (err) {
    expect(err).toBeInstanceOf(TaskError);
    return (err as Error).message;
  }
  throw new Error('expected a TaskError');
}

describe('task files', () => {
  it('fills the defaults of a valid task', () => {
    const t = validateTask(good);
    expect(t).toMatchObject({ title: 'garden-chat', partnerDropSeconds: 60, checks: DEFAULT_CHECKS });
  });

  it('names the field of every problem', () => {
    expect(fieldError({ ...good, turns: 'four' })).toBe('task.json: turns: must be integer');
    expect(fieldError({ ...good, turns: 1 })).toBe('task.json: turns: must be >= 2');
    const { reward: _r, ...noReward } = good;
    expect(fieldError(noReward)).toBe('task.json: reward: is required');
    expect(fieldError({ ...good, partnerDrop: 'ignore' })).toBe('task.json: partnerDrop: must be one of "replace_with_model", "end_and_credit"');
    expect(fieldError({ ...good, locations: ['garden', 7] })).toBe('task.json: locations[1]: must be string');
    expect(fieldError({ ...good, turnSecs: 5 })).toMatch(/^task\.json: turnSecs: is not a task field/);
    expect(fieldError({ ...good, warningSeconds: 60 })).toBe('task.json: warningSeconds: must be less than turnSeconds (60)');
    expect(fieldError({ ...good, checks: { minWords: -1 } })).toBe('task.json: checks.minWords: must be >= 0');
    expect(fieldError({ ...good, id: 'has space' })).toMatch(/^task\.json: id: must match pattern/);
    expect(fieldError({ ...good, onboarding: { text: 't', question: 'q', choices: ['a', 'b'], answer: 2 } })).toBe('task.json: onboarding.answer: must be the index of one of the 2 choices (0-1)');
    expect(fieldError({ ...good, onboarding: { text: 't', question: 'q', choices: ['a'], answer: 0 } })).toBe('task.json: onboarding.choices: must NOT have fewer than 2 items');
  });

  it('reads a file, resolving the world beside it', () => {
    const tmp = tempDir();
    try {
      writeLittleWorld(tmp.dir);
      const file = writeTaskFile(tmp.dir, good);
      expect(readTaskFile(file).world).toBe(`${tmp.dir}/little-world.json`);
    } finally {
      tmp.cleanup();
    }
  });
});

describe('acceptability checks', () => {
  const ctx = { persona: 'I am an orc. I like shiny rings. I hate gardeners.', said: ['Hello there my friend.'] };
  it('passes an ordinary line', () => {
    expect(checkLine('Have you seen my silver ring anywhere?', ctx, DEFAULT_CHECKS)).toEqual([]);
  });
  it('refuses short, all-caps, repeated, persona-copying and unsafe lines, each with a reason', () => {
    expect(checkLine('hi there', ctx, DEFAULT_CHECKS)).toEqual(['Please write at least 3 words (you wrote 2).']);
    expect(checkLine('GIVE ME THAT RING', ctx, DEFAULT_CHECKS)).toEqual(['Please do not write in capital letters only.']);
    expect(checkLine('hello there, my FRIEND!', ctx, DEFAULT_CHECKS)).toEqual(['You said that already; please say something new.']);
    expect(checkLine('I am an orc and I like shiny rings', ctx, DEFAULT_CHECKS)[0]).toMatch(/copies your character description/);
    expect(checkLine('shut up you stupid bitch', ctx, DEFAULT_CHECKS)[0]).toMatch(/keep it friendly: "bitch"/);
    expect(checkLine('you are a turnip head', ctx, { ...DEFAULT_CHECKS, blockedWords: ['Turnip'] })[0]).toMatch(/"turnip"/);
  });
  it('measures persona copying by word 3-gram Jaccard', () => {
    expect(trigramJaccard('a b c d', 'a b c d')).toBe(1);
    expect(trigramJaccard('a b c d', 'b c d e')).toBeCloseTo(1 / 3);
    expect(trigramJaccard('a b', 'a b c')).toBe(0);
    expect(unsafeWords('Scunthorpe is a town')).toEqual([]);
  });
});

describe('pairing queue', () => {
  it('pairs first come first served, falls back to a model after the wait, and respects free slots', () => {
    const q = new PairingQueue();
    q.add('a', 0);
    q.add('b', 100);
    q.add('c', 200);
    q.add('a', 300); // already waiting: keeps its place
    expect(q.position('c')).toBe(3);
    expect(q.plan(250, 5, 1000)).toEqual({ pairs: [['a', 'b']], withModel: [] });
    expect(q.plan(1100, 5, 1000)).toEqual({ pairs: [], withModel: [] });
    expect(q.plan(1200, 0, 1000)).toEqual({ pairs: [], withModel: [] });
    expect(q.plan(1200, 1, null)).toEqual({ pairs: [], withModel: [] });
    expect(q.plan(1200, 1, 1000)).toEqual({ pairs: [], withModel: ['c'] });
    expect(q.size).toBe(0);
    q.add('d', 0);
    q.add('e', 0);
    q.putBack([{ worker: 'x', since: 0 }]);
    expect(q.plan(0, 1, 0)).toEqual({ pairs: [['x', 'd']], withModel: [] });
  });
  it('moves units only along Mephisto\'s states', () => {
    expect(canMove('assigned', 'completed')).toBe(true);
    expect(canMove('assigned', 'approved')).toBe(false);
    expect(canMove('completed', 'soft_rejected')).toBe(true);
    expect(canMove('rejected', 'approved')).toBe(true);
    expect(canMove('returned', 'approved')).toBe(false);
  });
});
