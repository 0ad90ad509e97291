/** Hand-written gradients agree with finite differences. */
import { describe, expect, it } from 'vitest';
import { Rng } from '../../server/engine/rng.js';
import { BagEncoder, inBatchLoss } from '../../models/training/bag-encoder.js';
import type { Param } from '../../models/training/params.js';

/** Compare analytic and numeric gradients of `loss` on a sample of each parameter's entries. */
function gradCheck(params: Param[], loss: () => number, rng: Rng, samples = 12): void {
  for (const p of params) p.zeroGrad();
  loss(); // accumulates analytic gradients
  const analytic = params.map((p) => Float64Array.from(p.grad));
  for (const [pi, p] of params.entries()) {
    const candidates = [...analytic[pi]!.keys()].filter((i) => analytic[pi]![i] !== 0);
    for (let s = 0; s < samples && candidates.length; s++) {
      const i = rng.pick(candidates);
      const old = p.value[i]!;
      const h = 1e-2;
      p.value[i] = old + h;
      const up = loss();
      p.value[i] = old - h;
      const down = loss();
      p.value[i] = old;
      const numeric = (up - down) / (2 * h);
      const a = analytic[pi]![i]!;
      expect(Math.abs(numeric - a), `${p.name}[${i}]: numeric ${numeric} vs analytic ${a}`).toBeLessThan(2e-3 + 0.05 * Math.abs(a));
    }
  }
}

describe('gradient checks', () => {
  it('bag encoder with in-batch softmax loss', () => {
    const rng = new Rng(5);
    const enc = new BagEncoder({ vocab: 30, dim: 6, out: 5 }, {}, rng);
    for (let i = 0; i < enc.u.value.length; i++) enc.u.value[i] = rng.next() - 0.5;
    const ctx = [[1, 2, 3, 4], [5, 6, 2], [7, 8, 9, 10, 11]];
    const cand = [[3, 12], [6, 13, 14], [15, 9]];
    const loss = () => inBatchLoss(enc, ctx.map((c) => enc.forward(c)), cand.map((c) => enc.forward(c)), 5);
    // the loss function accumulates grads each call; the check zeroes first and reads after one call
    gradCheck(enc.params(), loss, rng);
  });
});

import { groupLoss, KernelRanker } from '../../models/training/kernel-ranker.js';

describe('gradient checks (kernel ranker)', () => {
  it('K-NRM cross-encoder with group softmax loss', () => {
    const rng = new Rng(9);
    const vocab = 20;
    const dim = 5;
    const emb = new Float32Array(vocab * dim).map(() => rng.next() - 0.5);
    const model = new KernelRanker(vocab, dim, emb);
    for (let i = 0; i < vocab; i++) model.v.value[i] = rng.next() - 0.5;
    for (let k = 0; k < model.K; k++) model.w.value[k] = rng.next() - 0.5;
    const q = [1, 2, 3, 4, 5];
    const cands = [[3, 6], [7, 8, 9], [10, 2]];
    gradCheck(model.params(), () => groupLoss(model, q, cands), rng, 10);
  });
});
