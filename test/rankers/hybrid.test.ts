/**
 * The hybrid ranker: word evidence and conversation features on top of the bi-encoder score, a
 * linear model fitted by conditional logit, and the word index used for retrieval.
 */
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { DocFrequencies, LexicalIndex, readContext } from '../../models/runtime/lexical.js';
import { Hybrid, HybridRanker, SPEECH_FEATURES, ACTION_FEATURES, EMOTE_FEATURES, speechFeatures, contextEvidence, undoes, type HybridModel } from '../../models/runtime/hybrid.js';
import { fitConditionalLogit, recallAt1, type FitGroup } from '../../models/training/fit-hybrid.js';
import { mulberry32 } from '../../models/eval/baselines.js';
import type { Ranker, ScoredCandidate } from '../../models/runtime/ranker.js';

const CONTEXT = [
  '_task_speech',
  '_setting_name Mill Yard, Farm',
  '_setting_desc Sacks of flour lean against the wall.',
  '_partner_name baker',
  '_self_name miller',
  '_self_persona I am the miller. I grind the village grain.',
  '_object_desc sack of flour : a heavy sack',
  '_partner_say Good morning! Do you have any flour for my bread today?',
].join('\n');

describe('undoing one\'s own last action', () => {
  it.each([
    ['drop apple', 'get apple', true],
    ['get apple', 'drop apple', true],
    ['put key in chest', 'get key from chest', true],
    ['put key on table', 'get key from table', true],
    ['get key from chest', 'put key in chest', true],
    ['remove cloak', 'wear cloak', true],
    ['remove sword', 'wield sword', true],
    ['wear cloak', 'remove cloak', true],
    ['steal ring from baker', 'give ring to baker', true],
    ['drop pear', 'get apple', false],
    ['give apple to baker', 'get apple', false],
  ])('%s after %s: %s', (act, prev, want) => {
    expect(undoes(act, prev)).toBe(want);
  });
});

describe('context evidence', () => {
  it('reads a LIGHT context back into its parts', () => {
    const p = readContext(CONTEXT);
    expect(p.partner).toBe('baker');
    expect(p.self).toBe('miller');
    expect(p.history).toEqual([{ who: 'partner', kind: 'say', text: 'Good morning! Do you have any flour for my bread today?' }]);
  });

  it('an answer that takes up the partner\'s words scores above one that does not, feature by feature', () => {
    const freq = new DocFrequencies().add(['flour bread', 'sheep', 'weather rain', 'the mill', 'bread oven']);
    const ev = contextEvidence(CONTEXT, freq);
    const answer = speechFeatures(ev, 'I have two sacks of flour, fresh this morning.', 0, freq);
    const other = speechFeatures(ev, 'The sheep are out on the hill.', 0, freq);
    const at = (name: string) => SPEECH_FEATURES.indexOf(name as (typeof SPEECH_FEATURES)[number]);
    expect(answer[at('ir_last')]!).toBeGreaterThan(other[at('ir_last')]!);
    expect(answer[at('answer_after_question')]).toBe(1);
    expect(answer[at('first_person_after_you')]).toBe(1);
  });
});

describe('fitting the weights', () => {
  it('a conditional logit finds the informative feature', () => {
    const rng = mulberry32(3);
    const groups: FitGroup[] = Array.from({ length: 200 }, () => {
      const gold = Math.floor(rng() * 10);
      // feature 0: noise; feature 1: higher for the gold candidate
      return { gold, rows: Array.from({ length: 10 }, (_, i) => [rng(), rng() + (i === gold ? 0.8 : 0)]) };
    });
    const w = fitConditionalLogit(groups, 2, 0.001);
    expect(w[1]!).toBeGreaterThan(Math.abs(w[0]!) * 3);
    expect(recallAt1(groups, (r) => r[0]! * w[0]! + r[1]! * w[1]!)).toBeGreaterThan(0.7);
  });
});

describe('the hybrid ranker', () => {
  const freq = new DocFrequencies().add(['flour bread', 'sheep hill', 'weather rain']);
  const weights = (features: readonly string[], set: Record<string, number>) => ({ features: [...features], weights: features.map((f) => set[f] ?? 0) });
  const model: HybridModel = {
    format: 'lightmud-hybrid', version: 1, idf: freq.toJSON(),
    tasks: { speech: weights(SPEECH_FEATURES, { ir_last: 1 }), action: weights(ACTION_FEATURES, { bi: 1 }), emote: weights(EMOTE_FEATURES, { bi: 1 }) },
  };
  const base: Ranker = {
    name: 'fake',
    async rank(_c: string, candidates: readonly string[]): Promise<ScoredCandidate[]> {
      return candidates.map((text, index) => ({ text, index, score: -index, biScore: -index }));
    },
  };

  it('reorders the base ranker by the fitted features', async () => {
    const ranked = await new HybridRanker(base, new Hybrid(model)).rank(CONTEXT, ['The sheep are on the hill.', 'Plenty of flour for your bread.']);
    expect(ranked[0]!.text).toBe('Plenty of flour for your bread.');
  });

  it('refuses weights naming features this runtime does not compute', () => {
    expect(() => new Hybrid({ ...model, tasks: { speech: { features: ['bi', 'moon_phase'], weights: [1, 1] } } })).toThrow(/refit/);
    expect(() => new Hybrid({ ...model, tasks: { speech: { features: ['bi', 'ir_last'], weights: [1] } } })).toThrow(/refit/);
  });

  it('the bundled model\'s hybrid.json fits this runtime', () => {
    if (!existsSync('models/default/hybrid.json')) return;
    expect(Hybrid.read('models/default')!.has('speech')).toBe(true);
  });
});

describe('word index', () => {
  it('retrieves the rows that share rare words', () => {
    const texts = ['I have flour for bread.', 'The sheep are on the hill.', 'Rain again today.', ...Array.from({ length: 100 }, (_, i) => `filler line ${i}`)];
    const freq = new DocFrequencies().add(texts);
    const idx = LexicalIndex.fromTexts(texts, freq);
    expect(idx.search(freq.vector('any flour for my bread?'), 2)[0]).toBe(0);
  });
});
