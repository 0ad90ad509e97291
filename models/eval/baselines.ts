/**
 * The LIGHT paper's baselines, behind the same `rank()` as the model ranker:
 *  - random: candidates in a seeded random order;
 *  - IR: TF-IDF weighted word overlap, the cosine between the TF-IDF vectors of the context and of
 *    each candidate. Words are lowercased runs of letters, digits and apostrophes; LIGHT's `_prefix`
 *    tokens and a short stop-word list are ignored; tf is sublinear (1 + ln tf) and
 *    idf(w) = ln((1 + N) / (1 + df(w))) + 1 over the N documents the ranker was fitted on (for
 *    evaluation: every context and candidate of the data file).
 */
import { cosine, DocFrequencies } from '../runtime/lexical.js';
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

export { STOP_WORDS, irWords } from '../runtime/lexical.js';

export class IrRanker implements Ranker {
  readonly name = 'ir (tf-idf)';
  private readonly freq: DocFrequencies;

  constructor(freq = new DocFrequencies()) {
    this.freq = freq;
  }

  /** Counts document frequencies over `documents` (each counted once per word). */
  fit(documents: Iterable<string>): this {
    this.freq.add(documents);
    return this;
  }

  idf(word: string): number {
    return this.freq.idf(word);
  }

  /** The TF-IDF vector of a text and its norm. */
  vector(text: string): ReturnType<DocFrequencies['vector']> {
    return this.freq.vector(text);
  }

  /** Cosine of the TF-IDF vectors (0 when either has no words). */
  score(context: ReturnType<IrRanker['vector']>, candidate: string): number {
    return cosine(context, this.freq.vector(candidate));
  }

  async rank(context: string, candidates: readonly string[], _opts?: RankOptions): Promise<ScoredCandidate[]> {
    const q = this.vector(context);
    return sortScored(candidates, candidates.map((c) => this.score(q, c)));
  }
}
