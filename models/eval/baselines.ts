/**
 * The LIGHT paper's baselines, behind the same `rank()` as the model ranker:
 *  - random: candidates in a seeded random order;
 *  - IR: TF-IDF weighted word overlap, the cosine between the TF-IDF vectors of the context and of
 *    each candidate. Words are lowercased runs of letters, digits and apostrophes; LIGHT's `_prefix`
 *    tokens and a short stop-word list are ignored; tf is sublinear (1 + ln tf) and
 *    idf(w) = ln((1 + N) / (1 + df(w))) + 1 over the N documents the ranker was fitted on (for
 *    evaluation: every context and candidate of the data file).
 */
import type { Ranker, RankOptions, ScoredCandidate } from '../runtime/ranker.js';

/** mulberry32: small, fast, seeded. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sortScored(candidates: readonly string[], scores: number[]): ScoredCandidate[] {
  return candidates
    .map((text, index) => ({ text, index, score: scores[index]! }))
    .sort((a, b) => b.score - a.score || a.index - b.index);
}

export class RandomRanker implements Ranker {
  readonly name: string;
  private readonly next: () => number;
  constructor(seed = 1) {
    this.name = `random (seed ${seed})`;
    this.next = mulberry32(seed);
  }
  async rank(_context: string, candidates: readonly string[], _opts?: RankOptions): Promise<ScoredCandidate[]> {
    return sortScored(candidates, candidates.map(() => this.next()));
  }
}

export const STOP_WORDS = new Set(
  ('a an the and or but if of to in on at by for with from into onto as is are was were be been am i me my you your he him his ' +
    'she her it its we us our they them their this that these those there here what which who whom do does did not no so than ' +
    'too very can will just s t')
    .split(' '),
);

export function irWords(text: string): string[] {
  const out: string[] = [];
  for (const token of text.toLowerCase().split(/\s+/)) {
    if (token.startsWith('_')) continue;
    for (const w of token.match(/[a-z0-9']+/g) ?? []) {
      const word = w.replace(/^'+|'+$/g, '');
      if (word && !STOP_WORDS.has(word)) out.push(word);
    }
  }
  return out;
}

export class IrRanker implements Ranker {
  readonly name = 'ir (tf-idf)';
  private readonly df = new Map<string, number>();
  private docs = 0;

  /** Counts document frequencies over `documents` (each counted once per word). */
  fit(documents: Iterable<string>): this {
    for (const d of documents) {
      this.docs++;
      for (const w of new Set(irWords(d))) this.df.set(w, (this.df.get(w) ?? 0) + 1);
    }
    return this;
  }

  idf(word: string): number {
    return Math.log((1 + this.docs) / (1 + (this.df.get(word) ?? 0))) + 1;
  }

  /** The TF-IDF vector of a text and its norm. */
  vector(text: string): { weights: Map<string, number>; norm: number } {
    const tf = new Map<string, number>();
    for (const w of irWords(text)) tf.set(w, (tf.get(w) ?? 0) + 1);
    const weights = new Map<string, number>();
    let sq = 0;
    for (const [w, c] of tf) {
      const v = (1 + Math.log(c)) * this.idf(w);
      weights.set(w, v);
      sq += v * v;
    }
    return { weights, norm: Math.sqrt(sq) };
  }

  /** Cosine of the TF-IDF vectors (0 when either has no words). */
  score(context: ReturnType<IrRanker['vector']>, candidate: string): number {
    const c = this.vector(candidate);
    if (context.norm === 0 || c.norm === 0) return 0;
    let dot = 0;
    for (const [w, v] of c.weights) dot += v * (context.weights.get(w) ?? 0);
    return dot / (context.norm * c.norm);
  }

  async rank(context: string, candidates: readonly string[], _opts?: RankOptions): Promise<ScoredCandidate[]> {
    const q = this.vector(context);
    return sortScored(candidates, candidates.map((c) => this.score(q, c)));
  }
}
