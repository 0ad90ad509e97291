/**
 * The model policy with a tiny real model (built in a temp dir): rules take priority where the
 * line is clear, the model never picks an invalid action, thresholds are chosen sensibly, memory
 * persists in SQLite and feeds the context.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { EMOTES, Rng, World, execute } from '../../server/engine/index.js';
import { loadPolicy } from '../../server/agents/load.js';
import { acknowledge, actionFilter, motivated, refuse, type Policy } from '../../server/agents/policy.js';
import { chooseThresholds, type TuneSample } from '../../server/agents/thresholds.js';
import { AgentMemory } from '../../server/agents/memory.js';
import { agentView } from '../../server/agents/view.js';
import { littleWorld } from '../fixtures/little-world.js';
import { cleanup, littleWorldTexts, makeAgentModel, tempDir, writeUtterances } from './helpers.js';

let policy: Policy;
let dir: string;

beforeAll(async () => {
  dir = tempDir();
  const modelDir = makeAgentModel(littleWorldTexts());
  ({ policy } = await loadPolicy({ modelDir, cacheDir: join(dir, 'cache'), utterances: [writeUtterances(dir)], thresholds: { action: 0.2, emote: 0.2 } }));
});

afterAll(async () => {
  await policy?.ranker.release();
  await policy?.pool.release();
  cleanup();
});

const viewOf = (w: World, self: string, from?: string, text?: string, lastObject?: string) =>
  agentView(w, self, { heard: from && text ? { from, text } : undefined, lastObject })!;

describe('the model policy', () => {
  it('carries out a clear request before anything the model would pick', async () => {
    const w = littleWorld();
    const [c] = await policy.decide([{ view: viewOf(w, 'gardener', 'orc', 'Could you give me the apple?'), history: [] }]);
    expect(c!.actions).toEqual(['give apple to orc']);
    expect(c!.why).toMatchObject({ say: 'request', act: 'request' });
    expect(c!.say.length).toBeGreaterThan(0);
  });

  it('says why when a request cannot be done, and does nothing', async () => {
    const w = littleWorld();
    const [c] = await policy.decide([{ view: viewOf(w, 'gardener', 'orc', 'Give me your sword.'), history: [] }]);
    expect(c!.actions).toEqual([]);
    expect(c!.say).toBe("Sorry, I don't have a sword.");
  });

  it('answers questions about itself from the graph', async () => {
    const w = littleWorld();
    const [c] = await policy.decide([{ view: viewOf(w, 'orc', 'gardener', 'What are you wearing?'), history: [] }]);
    expect(c!.say).toBe("I'm wearing an iron helmet.");
    expect(c!.why.say).toBe('answer');
  });

  it('answers a threat with a hit or a frightened emote, and sadness with a hug', async () => {
    const w = littleWorld();
    const [t, s] = await policy.decide([
      { view: viewOf(w, 'gardener', 'orc', 'You must die, gardener!'), history: [] },
      { view: viewOf(w, 'kitty', 'gardener', "I'm feeling so sad today."), history: [] },
    ]);
    expect(t!.actions.length ? t!.actions : [t!.emote]).toSatisfy((x: string[]) => x[0] === 'hit orc' || ['scream', 'gasp', 'cry', 'growl'].includes(x[0]!));
    expect(s!.actions).toEqual(['hug gardener']);
  });

  it('never chooses an action that is not valid, over many random situations', async () => {
    const rng = new Rng(11);
    const w = littleWorld();
    const people = ['gardener', 'orc', 'kitty'];
    let actions = 0;
    for (let round = 0; round < 12; round++) {
      const inputs = people.map((p) => ({ view: viewOf(w, p), history: [] }));
      const choices = await policy.decide(inputs);
      choices.forEach((c, i) => {
        const v = inputs[i]!.view;
        for (const a of c.actions) expect(v.validActions).toContain(a);
        if (c.emote) expect(EMOTES).toContain(c.emote);
        expect(c.actions.length && c.emote).toBeFalsy();
      });
      // Move the world on: someone does a random valid action.
      const who = rng.pick(people);
      const va = inputs[people.indexOf(who)]!.view.validActions;
      if (va.length) {
        expect(execute(w, who, rng.pick(va)).ok).toBe(true);
        actions++;
      }
    }
    expect(actions).toBeGreaterThan(0);
  });

  it('does not repeat its own recent actions nor attack unprovoked', () => {
    const ok = actionFilter([{ speaker: 'self', kind: 'act', text: 'get shovel' }]);
    expect(ok('get shovel')).toBe(false);
    expect(ok('hit orc')).toBe(false);
    expect(ok('hug orc')).toBe(true);
    const provoked = actionFilter([{ speaker: 'partner', kind: 'act', text: 'hit gardener' }]);
    expect(provoked('hit orc')).toBe(true);
  });

  it.each([
    ['Could you give me your apple?', true],
    ['I need something to eat.', true],
    ['Have you got a moment to spare?', false],
    ['Could you lend me a hand?', false],
    ['Give me a minute to think.', false],
  ])('hands a thing over when asked for things, not for time or help: %s', (heard, gives) => {
    expect(motivated('give flask of ale to orc', [{ speaker: 'partner', kind: 'say', text: heard }], 'Hm.', 'orc')).toBe(gives);
  });

  it('takes nothing right after declining', () => {
    const heard = [{ speaker: 'partner' as const, kind: 'say' as const, text: 'Would you like a nip of gin?' }];
    const declined = actionFilter(heard, '', "No, I'm all right, thank you.");
    expect(declined('drink flask of gin')).toBe(false);
    expect(declined('get apple')).toBe(false);
    expect(declined('hug orc')).toBe(true);
    const accepted = actionFilter(heard, '', 'Gladly, thank you.');
    expect(accepted('drink flask of gin')).toBe(true);
  });

  it.each([
    ['I steal buttons, crumbs and secrets.', true, false],
    ['I am a street urchin, quick of hand.', true, false],
    ['I am an old mercenary and I have seen every war.', false, true],
    ['I have bitten the tinker, and I would bite the lord himself.', false, true],
    // Reasons about others, or no reason at all, are none.
    ['I hunt with the lord\'s leave, which makes me honest and him a thief.', false, false],
    ['The living come to steal my gold, and I let them take it.', false, false],
    ['I know which toadstools heal and which kill.', false, false],
    ['I hate the dogs of the farms and the smell of smoke.', false, false],
  ])('a persona gives a reason to steal or strike first only in its own words: %s', (persona, steals, hits) => {
    const filter = actionFilter([], persona);
    expect(filter('steal shovel from orc')).toBe(steals);
    expect(filter('hit orc')).toBe(hits);
  });

  it('prefers lines that name nobody who is absent', async () => {
    policy.setWorldNames(['gardener', 'orc', 'kitty', 'ghost', 'carter']);
    expect(policy.namesAbsent('Go away, you smelly orc.', ['gardener', 'kitty'])).toBe(true);
    expect(policy.namesAbsent('Go away, you smelly orc.', ['gardener', 'orc'])).toBe(false);
    expect(policy.namesAbsent('What a fine day for weeding.', ['gardener'])).toBe(false);
    // The kitty alone with the ghost never says the line about the orc, even if it ranks first.
    const w = littleWorld();
    execute(w, 'orc', 'go north');
    const [c] = await policy.decide([{ view: viewOf(w, 'kitty'), history: [{ speaker: 'partner', kind: 'say', text: 'orc orc orc smelly orc go away' }] }]);
    expect(c!.say).not.toMatch(/orc/i);
    policy.setWorldNames([]);
  });

  it('says nothing more once both have said goodbye, and talks again when asked something', async () => {
    const w = littleWorld();
    const bye = [
      { speaker: 'partner' as const, kind: 'say' as const, text: 'Well, I must be off.' },
      { speaker: 'self' as const, kind: 'say' as const, text: 'Go well, then.' },
    ];
    const [closed, reopened] = await policy.decide([
      { view: viewOf(w, 'gardener', 'orc', 'Goodbye!'), history: [...bye, { speaker: 'partner', kind: 'say', text: 'Goodbye!' }] },
      { view: viewOf(w, 'gardener', 'orc', 'Wait, what a fine day for weeding, is it not?'), history: [...bye, { speaker: 'partner', kind: 'say', text: 'Wait, what a fine day for weeding, is it not?' }] },
    ]);
    expect(closed!.say).toBe('');
    expect(reopened!.say).not.toBe('');
  });

  it('phrases acknowledgements and refusals', () => {
    expect(acknowledge('give', ['give apple to orc'], 0)).toBe('Here, take the apple.');
    expect(refuse("I don't have a sword.", 0)).toBe("Sorry, I don't have a sword.");
    expect(refuse('The ghost is not here.', 1)).toBe("That's as far as I can go: the ghost is not here.");
  });
});

describe('act / emote thresholds', () => {
  it('separate turns that acted from those that did not, and keep the corpus emote rate', () => {
    const rng = new Rng(3);
    const samples: TuneSample[] = [];
    for (let i = 0; i < 300; i++) {
      const label = i % 10 < 4 ? 'action' : i % 10 < 7 ? 'emote' : 'none';
      samples.push({ label, action: (label === 'action' ? 0.7 : 0.4) + rng.next() * 0.2, emote: rng.next() });
    }
    const t = chooseThresholds(samples);
    expect(t.action).toBeGreaterThan(0.55);
    expect(t.action).toBeLessThanOrEqual(0.7);
    expect(t.actRate).toBeCloseTo(0.4, 1);
    // Emote on about half of the turns without an action, as the samples do (90 of 180).
    expect(t.emoteRate).toBeCloseTo(0.3, 1);
  });
});

describe('memory', () => {
  it('keeps recent events in SQLite across restarts and feeds them to the context', async () => {
    const file = join(dir, 'memory.db');
    const m1 = AgentMemory.open(file, { keep: 5 });
    for (let i = 0; i < 8; i++) m1.add('gardener', { speaker: i % 2 ? 'self' : 'partner', who: 'orc', kind: 'say', text: `line ${i}` });
    m1.add('orc', { speaker: 'self', kind: 'act', text: 'get shovel' });
    m1.close();
    const m2 = AgentMemory.open(file, { keep: 5 });
    expect(m2.history('gardener').map((h) => h.text)).toEqual(['line 3', 'line 4', 'line 5', 'line 6', 'line 7']);
    expect(m2.history('orc')).toEqual([{ speaker: 'self', kind: 'act', text: 'get shovel' }]);
    const ctx = policy.context(viewOf(littleWorld(), 'gardener'), m2.history('gardener'), 'speech');
    expect(ctx).toContain('_self_say line 7');
    expect(ctx).toContain('_partner_say line 6');
    m2.close();
  });

  it('writes a large backlog on its own timer, a slice at a time, losing nothing', async () => {
    const file = join(dir, 'memory-backlog.db');
    const m1 = AgentMemory.open(file, { keep: 3, flushMs: 5 });
    for (let i = 0; i < 700; i++) m1.add(`c${i % 100}`, { speaker: 'partner', who: 'x', kind: 'say', text: `line ${i}` });
    const rows = () => (m1.db!.prepare('SELECT count(*) AS n FROM agent_memory').get() as { n: number }).n;
    const last = () => m1.db!.prepare("SELECT 1 FROM agent_memory WHERE text = 'line 699'").get();
    const t0 = Date.now();
    while (!last() && Date.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 10));
    expect(rows()).toBe(300); // 100 characters, 3 each: the oldest pruned
    const m2 = AgentMemory.open(file, { keep: 3 });
    expect(m2.history('c7').map((h) => h.text)).toEqual(['line 407', 'line 507', 'line 607']);
    m1.close();
    m2.close();
  });
});
