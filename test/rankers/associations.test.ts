/**
 * Word associations between what a character hears and what it answers, counted on training
 * exchanges: a reply that goes with the line heard scores above one that does not, the file
 * round-trips, a damaged file is refused by name, and the hybrid reads weights by feature name.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Associations, ASSOCIATIONS_FILE, replyTokens, sourceTokens } from '../../models/runtime/associations.js';
import { fitAssociations } from '../../models/training/fit-associations.js';
import { contextEvidence, Hybrid, SPEECH_FEATURES, speechFeatures, type HybridModel } from '../../models/runtime/hybrid.js';
import { DocFrequencies, readContext } from '../../models/runtime/lexical.js';

const ctx = (partnerSays: string, persona = 'I am a miller. I grind grain.') =>
  ['_task_speech', '_setting_name Mill Yard', `_self_persona ${persona}`, '_partner_name baker', '_self_name miller', `_partner_say ${partnerSays}`].join('\n');

/** Exchanges: questions about the way get directions, about food get food, greetings get greetings. */
const EXCHANGES = [
  ...['Where is the well?', 'Where does this road go?', 'Where can I find the smith?', 'Where is the inn?'].flatMap((q) => [
    { context: ctx(q), reply: 'North, past the old mill.' },
    { context: ctx(q, 'I am a fisherman. I mend nets.'), reply: 'Go north along the road.' },
  ]),
  ...['I am so hungry.', 'Is there anything to eat?', 'I am starving, friend.'].flatMap((q) => [
    { context: ctx(q), reply: 'Have some bread and stew.' },
    { context: ctx(q, 'I am a fisherman. I mend nets.'), reply: 'There is stew and bread inside.' },
  ]),
  ...['Hello there!', 'Good morning!', 'Hello, friend!'].flatMap((q) => [
    { context: ctx(q), reply: 'Hello! A fine morning.' },
    { context: ctx(q, 'I am a fisherman. I mend nets.'), reply: 'Good morning to you.' },
  ]),
];

const at = (name: string) => SPEECH_FEATURES.indexOf(name as (typeof SPEECH_FEATURES)[number]);

describe('word associations', () => {
  const assoc = fitAssociations(EXCHANGES, 2);
  const freq = new DocFrequencies().add(EXCHANGES.flatMap((e) => [e.context, e.reply]));

  it('reads a context\'s sources and a reply\'s tokens', () => {
    const parts = readContext(ctx('Where is the well?'));
    expect(sourceTokens('last', parts)).toEqual(expect.arrayContaining(['L:where', 'F:where', 'B:where is', 'Q:?']));
    expect(sourceTokens('persona', parts)).toEqual(expect.arrayContaining(['P:miller', 'P:grind']));
    expect(sourceTokens('self', parts)).toEqual([]);
    expect(sourceTokens('partner_act', parts)).toEqual([]);
    const acted = readContext(`${ctx('Here you are.')}\n_partner_act give loaf to miller\n_self_say Thank you!`);
    expect(sourceTokens('partner_act', acted)).toEqual(['A:give', 'A:loaf', 'A:to', 'A:miller']);
    expect(sourceTokens('self', acted)).toEqual(['S:thank', 'S:you']);
    expect(replyTokens('Yes, north of here?')).toEqual(['yes', 'north', 'of', 'here', 'RF:yes', 'RQ:?']);
  });

  it.each([
    ['Where is the chapel?', 'North of the square, past the mill.', 'Have some bread, friend.'],
    ['I am so hungry.', 'There is bread and stew.', 'Go north along the road.'],
    ['Hello there, miller!', 'Good morning to you!', 'North, past the well.'],
  ])('after "%s", "%s" goes with the line heard more than "%s"', (heard, fits, other) => {
    const ev = contextEvidence(ctx(heard), freq, assoc);
    const a = speechFeatures(ev, fits, 0, freq);
    const b = speechFeatures(ev, other, 0, freq);
    expect(a[at('assoc_last_max')]!).toBeGreaterThan(b[at('assoc_last_max')]!);
    expect(a[at('assoc_last_mean')]!).toBeGreaterThan(b[at('assoc_last_mean')]!);
  });

  it('keeps only pairs seen at least the least count, with positive PMI', () => {
    const once = fitAssociations(EXCHANGES.slice(0, 1), 2);
    expect(once.pairs).toBe(0);
    // every kept pair is a real co-occurrence: "where" never met "bread"
    const ev = contextEvidence(ctx('Where?'), freq, assoc);
    expect(speechFeatures(ev, 'bread', 0, freq)[at('assoc_last_max')]).toBe(0);
  });

  it('gives zeros, not errors, without a partner line or without associations', () => {
    const noLine = contextEvidence(['_task_speech', '_self_persona I am a miller.'].join('\n'), freq, assoc);
    const f = speechFeatures(noLine, 'Hello!', 0, freq);
    expect(f[at('assoc_last_max')]).toBe(0);
    const none = contextEvidence(ctx('Where is the well?'), freq);
    expect(speechFeatures(none, 'North.', 0, freq).slice(at('assoc_last_max'))).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
  });

  describe('the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lightmud-assoc-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('round-trips: the same features after writing and reading', () => {
      assoc.write(dir);
      const back = Associations.read(dir)!;
      expect(back.pairs).toBe(assoc.pairs);
      for (const [heard, reply] of [['Where is the well?', 'North, past the mill.'], ['I am hungry.', 'Bread and stew.']]) {
        const x = speechFeatures(contextEvidence(ctx(heard!), freq, assoc), reply!, 0, freq);
        const y = speechFeatures(contextEvidence(ctx(heard!), freq, back), reply!, 0, freq);
        expect(y).toEqual(x);
      }
    });

    it('keeps reply-word ids past 65,535 (32-bit ids)', () => {
      const wide = new Map<string, number>(Array.from({ length: 70_000 }, (_, i) => [`w${i}`, 1 + (i % 5)]));
      const none = new Map<string, Map<string, number>>();
      const big = Associations.fromPairs({ last: new Map([['L:where', wide]]), self: none, persona: none, partner_act: none });
      const d = mkdtempSync(join(tmpdir(), 'lightmud-assoc-wide-'));
      big.write(d);
      const back = Associations.read(d)!;
      rmSync(d, { recursive: true });
      const p = back.profile('last', ['L:where']);
      expect(p.best.filter((x) => x > 0).length).toBe(70_000);
      expect(p.best[back.replyIds('w69999')[0]!]).toBe(big.profile('last', ['L:where']).best[big.replyIds('w69999')[0]!]);
      expect(back.replyWords.length).toBe(70_000);
    });

    it('is absent: undefined; damaged: refused with the file named', () => {
      const empty = mkdtempSync(join(tmpdir(), 'lightmud-assoc-none-'));
      expect(Associations.read(empty)).toBeUndefined();
      rmSync(empty, { recursive: true });
      const good = readFileSync(join(dir, ASSOCIATIONS_FILE));
      const cases: [string, Buffer][] = [
        ['not a lightmud associations file', Buffer.from('hello world, not it')],
        ['truncated', good.subarray(0, good.length - 9)],
        ['format version', Buffer.concat([good.subarray(0, 4), Buffer.from([9, 0, 0, 0]), good.subarray(8)])],
      ];
      for (const [why, bytes] of cases) {
        const d = mkdtempSync(join(tmpdir(), 'lightmud-assoc-bad-'));
        writeFileSync(join(d, ASSOCIATIONS_FILE), bytes);
        expect(() => Associations.read(d)).toThrow(new RegExp(`${ASSOCIATIONS_FILE}: .*${why}`));
        rmSync(d, { recursive: true });
      }
    });
  });

  describe('the hybrid reads weights by feature name', () => {
    const model = (features: string[], weights: number[]): HybridModel => ({ format: 'lightmud-hybrid', version: 1, idf: freq.toJSON(), tasks: { speech: { features, weights } } });
    const older = SPEECH_FEATURES.filter((f) => !f.startsWith('assoc_'));

    it('a file fitted before the associations scores as it did (they weigh 0)', () => {
      const h = new Hybrid(model(older, older.map((f) => (f === 'ir_last' ? 1 : 0))), assoc);
      const ev = h.evidence(ctx('Any bread for my oven?'));
      const s = h.score('speech', ev, ['Plenty of bread.', 'North, past the mill.'], [0, 0]);
      expect(s[0]!).toBeGreaterThan(s[1]!);
      expect(s[1]).toBe(0);
    });

    it('refuses a feature it does not know, and association weights without associations', () => {
      expect(() => new Hybrid(model(['bi', 'shoe_size'], [1, 1]))).toThrow(/"shoe_size" is not one of this runtime's.*refit/);
      expect(() => new Hybrid(model(['bi', 'assoc_last_max'], [1, 1]))).toThrow(/no associations\.bin/);
      expect(() => new Hybrid(model(['bi', 'assoc_last_max'], [1, 1]), assoc)).not.toThrow();
    });
  });

  it('the bundled model has its associations, and its speech weights use them', () => {
    if (!existsSync('models/default/hybrid.json')) return;
    const h = Hybrid.read('models/default')!;
    expect(h.associations).toBeDefined();
    const w = h.model.tasks.speech!;
    expect(w.features).toContain('assoc_last_mean');
    expect(w.weights[w.features.indexOf('assoc_last_mean')]).not.toBe(0);
  });
});
