/**
 * LIGHT-style evaluation: rank each example's candidates with a Ranker and score the gold label.
 * Dialogue examples are ranked among their label candidates (20 in LIGHT: Recall@1/20), actions
 * among theirs, emotes among theirs or, when a line has none, the 22 emotes.
 */
import { EMOTES } from '../runtime/emotes.js';
import type { Ranker, ScoredCandidate } from '../runtime/ranker.js';
import { scoreExample, summarize, type ExampleScore, type Summary } from './metrics.js';
import { ParlaiFormatError, type EvalExample, type EvalTask } from './parlai.js';

export interface EvalOptions {
  task: EvalTask;
  rerank?: number;
  /** Only the first N examples. */
  limit?: number;
  onProgress?: (done: number, total: number) => void;
}

export interface EvalResult extends Summary {
  task: EvalTask;
  /** Examples whose gold label was not among their candidates and was added to them. */
  gold_added: number;
}

/**
 * Scores per candidate index from a ranking, keeping ties: consecutive candidates with equal score
 * from the same stage (reranked or not) share a value; later groups get lower values.
 */
export function scoresFromRanking(ranked: ScoredCandidate[], n: number): Float64Array {
  const s = new Float64Array(n).fill(-Infinity);
  let group = 0;
  ranked.forEach((c, i) => {
    const prev = ranked[i - 1];
    if (prev && !(prev.score === c.score && (prev.crossScore === undefined) === (c.crossScore === undefined))) group++;
    s[c.index] = -group;
  });
  return s;
}

/** The candidates and gold indices of an example (gold added when missing). */
export function candidatesOf(ex: EvalExample, task: EvalTask): { candidates: string[]; gold: number[]; added: boolean } {
  let candidates = ex.candidates;
  if (candidates.length === 0) {
    if (task === 'emote') candidates = [...EMOTES];
    else throw new ParlaiFormatError(`line ${ex.line}: no label_candidates: to rank (needed for the ${task} task)`);
  }
  const labels = new Set(ex.labels);
  const gold = candidates.flatMap((c, i) => (labels.has(c) ? [i] : []));
  if (gold.length) return { candidates, gold, added: false };
  return { candidates: [...candidates, ex.labels[0]!], gold: [candidates.length], added: true };
}

export async function evaluate(examples: EvalExample[], ranker: Ranker, opts: EvalOptions): Promise<EvalResult> {
  const list = opts.limit !== undefined ? examples.slice(0, opts.limit) : examples;
  const scores: ExampleScore[] = [];
  let added = 0;
  for (let i = 0; i < list.length; i++) {
    const ex = list[i]!;
    const { candidates, gold, added: wasAdded } = candidatesOf(ex, opts.task);
    if (wasAdded) added++;
    const ranked = await ranker.rank(ex.context, candidates, opts.rerank ? { rerank: opts.rerank } : {});
    scores.push(scoreExample(scoresFromRanking(ranked, candidates.length), gold));
    opts.onProgress?.(i + 1, list.length);
  }
  return { task: opts.task, ...summarize(scores), gold_added: added };
}
