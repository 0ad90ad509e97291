/**
 * Ranking metrics over each example's candidates: Recall@1 (hits@1; "accuracy" for actions and
 * emotes) and MRR (mean reciprocal rank of the first gold candidate).
 *
 * Ties are scored by their expectation under random tie-breaking, so a ranker that gives every
 * candidate the same score gets exactly what a random ranker gets on average (1/n, not 1 or 0):
 * with `above` candidates scoring higher than the best gold and `t` candidates tied with it, `g` of
 * them gold, the first gold is at position above+p with probability C(t-p, g-1) / C(t, g).
 */

export interface ExampleScore {
  /** 1 if the best gold is ranked first, fractional under ties. */
  hit1: number;
  /** Reciprocal rank of the first gold (expected under ties). */
  rr: number;
  /** Number of candidates. */
  n: number;
}

function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

/** Scores one example: `scores[i]` of candidate i, `gold` the indices of gold candidates. */
export function scoreExample(scores: ArrayLike<number>, gold: Iterable<number>): ExampleScore {
  const golds = new Set(gold);
  if (golds.size === 0) throw new Error('scoreExample: no gold candidate');
  let best = -Infinity;
  for (const g of golds) best = Math.max(best, scores[g]!);
  let above = 0;
  let tied = 0;
  let tiedGold = 0;
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i]!;
    if (s > best) above++;
    else if (s === best) {
      tied++;
      if (golds.has(i)) tiedGold++;
    }
  }
  const total = choose(tied, tiedGold);
  let hit1 = 0;
  let rr = 0;
  for (let p = 1; p <= tied - tiedGold + 1; p++) {
    const prob = choose(tied - p, tiedGold - 1) / total;
    rr += prob / (above + p);
    if (above + p === 1) hit1 += prob;
  }
  return { hit1, rr, n: scores.length };
}

/** Ranking positions (0 = first) -> scores usable by scoreExample: position i gets -i. */
export function scoresFromOrder(order: number[], n: number): Float64Array {
  const s = new Float64Array(n).fill(-Infinity);
  order.forEach((idx, pos) => (s[idx] = -pos));
  return s;
}

export interface Summary {
  n: number;
  recall_at_1: number;
  mrr: number;
  /** Mean number of candidates per example. */
  candidates: number;
}

export function summarize(scores: ExampleScore[]): Summary {
  const n = scores.length;
  if (n === 0) return { n: 0, recall_at_1: 0, mrr: 0, candidates: 0 };
  const sum = (f: (e: ExampleScore) => number): number => scores.reduce((a, e) => a + f(e), 0);
  return { n, recall_at_1: sum((e) => e.hit1) / n, mrr: sum((e) => e.rr) / n, candidates: sum((e) => e.n) / n };
}
