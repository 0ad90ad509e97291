/**
 * The bi-encoder: a weighted bag of word embeddings, projected and L2-normalised.
 *
 *   a_i = softplus(u[t_i]) * exp(p[b_i])     (a learned weight per vocabulary word, like IDF,
 *                                             times a learned weight of its distance from the end:
 *                                             b_i = recencyBucket(n - 1 - i), so the newest lines of
 *                                             a long context can count more than the persona)
 *   s   = sum_i a_i E[t_i] / (sum_i a_i + eps)
 *   z   = normalize(s W)
 *
 * Context and candidate go through the same encoder; their score is z_c . z_d. Trained with
 * in-batch negatives (StarSpace-like). Forward and backward are written by hand and checked
 * numerically in the tests; the ONNX export computes the same forward pass.
 */
import { Param, sigmoid, softplus } from './params.js';
import type { Rng } from '../../server/engine/rng.js';

export const POOL_EPS = 1e-6;
export const RECENCY_BUCKETS = 8;

/** 0 for the last token, then 1, 2-3, 4-7, ... 64+ tokens from the end. */
export function recencyBucket(fromEnd: number): number {
  return Math.max(0, Math.min(RECENCY_BUCKETS - 1, Math.floor(Math.log2(fromEnd + 0.5)) + 1));
}

export interface BagEncoderShape { vocab: number; dim: number; out: number }

export class BagEncoder {
  readonly E: Param;
  readonly u: Param;
  readonly W: Param;
  /** Log-weights of the recency buckets. */
  readonly p: Param;

  constructor(readonly shape: BagEncoderShape, init: { embeddings?: Float32Array; weights?: Float32Array }, rng: Rng) {
    const { vocab, dim, out } = shape;
    const e = init.embeddings ?? new Float32Array(vocab * dim).map(() => (rng.next() - 0.5) * 0.2);
    this.E = new Param('E', e, [vocab, dim], dim);
    this.u = new Param('u', init.weights ?? new Float32Array(vocab), [vocab], 1);
    // W starts as a (padded) identity plus a little noise, so pretrained similarity survives at step 0.
    const w = new Float32Array(dim * out);
    for (let i = 0; i < dim; i++) for (let j = 0; j < out; j++) w[i * out + j] = (i === j ? 1 : 0) + (rng.next() - 0.5) * 0.02;
    this.W = new Param('W', w, [dim, out]);
    this.p = new Param('p', new Float32Array(RECENCY_BUCKETS), [RECENCY_BUCKETS]);
  }

  params(): Param[] {
    return [this.E, this.u, this.W, this.p];
  }

  /** Encode one token sequence. Returns z and what backward needs. */
  forward(ids: number[]): EncodeCache {
    const { dim, out } = this.shape;
    const E = this.E.value;
    const a = new Float32Array(ids.length);
    let A = POOL_EPS;
    const n = ids.length;
    for (let i = 0; i < n; i++) {
      a[i] = softplus(this.u.value[ids[i]!]!) * Math.exp(this.p.value[recencyBucket(n - 1 - i)]!);
      A += a[i]!;
    }
    const s = new Float32Array(dim);
    for (let i = 0; i < ids.length; i++) {
      const off = ids[i]! * dim;
      const w = a[i]! / A;
      for (let k = 0; k < dim; k++) s[k] = s[k]! + w * E[off + k]!;
    }
    const h = new Float32Array(out);
    const W = this.W.value;
    for (let k = 0; k < dim; k++) {
      const sk = s[k]!;
      if (sk === 0) continue;
      const row = k * out;
      for (let j = 0; j < out; j++) h[j] = h[j]! + sk * W[row + j]!;
    }
    let norm = 0;
    for (let j = 0; j < out; j++) norm += h[j]! * h[j]!;
    norm = Math.sqrt(norm) + 1e-12;
    const z = new Float32Array(out);
    for (let j = 0; j < out; j++) z[j] = h[j]! / norm;
    return { ids, a, A, s, norm, z };
  }

  /** Accumulate gradients given dL/dz for one encoded sequence. */
  backward(c: EncodeCache, dz: Float32Array): void {
    const { dim, out } = this.shape;
    // through normalisation: dh = (dz - z (z . dz)) / |h|
    let zdz = 0;
    for (let j = 0; j < out; j++) zdz += c.z[j]! * dz[j]!;
    const dh = new Float32Array(out);
    for (let j = 0; j < out; j++) dh[j] = (dz[j]! - c.z[j]! * zdz) / c.norm;
    // through the projection
    const W = this.W.value;
    const dW = this.W.grad;
    const ds = new Float32Array(dim);
    for (let k = 0; k < dim; k++) {
      const sk = c.s[k]!;
      const row = k * out;
      let acc = 0;
      for (let j = 0; j < out; j++) {
        dW[row + j] = dW[row + j]! + sk * dh[j]!;
        acc += W[row + j]! * dh[j]!;
      }
      ds[k] = acc;
    }
    // through the weighted mean
    const E = this.E.value;
    const dE = this.E.grad;
    for (let i = 0; i < c.ids.length; i++) {
      const t = c.ids[i]!;
      const off = t * dim;
      const w = c.a[i]! / c.A;
      let da = 0;
      for (let k = 0; k < dim; k++) {
        dE[off + k] = dE[off + k]! + w * ds[k]!;
        da += ds[k]! * (E[off + k]! - c.s[k]!);
      }
      this.E.touched.add(t);
      const dai = da / c.A;
      const rb = recencyBucket(c.ids.length - 1 - i);
      const recency = Math.exp(this.p.value[rb]!);
      this.u.grad[t] = this.u.grad[t]! + dai * sigmoid(this.u.value[t]!) * recency;
      this.u.touched.add(t);
      this.p.grad[rb] = this.p.grad[rb]! + dai * c.a[i]!;
    }
  }
}

export interface EncodeCache {
  ids: number[];
  a: Float32Array;
  A: number;
  s: Float32Array;
  norm: number;
  z: Float32Array;
}

/**
 * In-batch softmax loss: context i should score its own candidate i above the batch's others.
 * Returns the loss and accumulates gradients through both sides.
 */
export function inBatchLoss(enc: BagEncoder, contexts: EncodeCache[], candidates: EncodeCache[], scale: number): number {
  const B = contexts.length;
  const dim = enc.shape.out;
  const dzc = contexts.map(() => new Float32Array(dim));
  const dzd = candidates.map(() => new Float32Array(dim));
  let loss = 0;
  for (let i = 0; i < B; i++) {
    const logits = new Float64Array(candidates.length);
    let max = -Infinity;
    for (let j = 0; j < candidates.length; j++) {
      let d = 0;
      for (let k = 0; k < dim; k++) d += contexts[i]!.z[k]! * candidates[j]!.z[k]!;
      logits[j] = scale * d;
      if (logits[j]! > max) max = logits[j]!;
    }
    let sum = 0;
    for (let j = 0; j < logits.length; j++) sum += Math.exp(logits[j]! - max);
    loss += -(logits[i]! - max - Math.log(sum));
    for (let j = 0; j < candidates.length; j++) {
      const g = (Math.exp(logits[j]! - max) / sum - (i === j ? 1 : 0)) * scale / B;
      if (g === 0) continue;
      for (let k = 0; k < dim; k++) {
        dzc[i]![k] = dzc[i]![k]! + g * candidates[j]!.z[k]!;
        dzd[j]![k] = dzd[j]![k]! + g * contexts[i]!.z[k]!;
      }
    }
  }
  contexts.forEach((c, i) => enc.backward(c, dzc[i]!));
  candidates.forEach((c, j) => enc.backward(c, dzd[j]!));
  return loss / B;
}
