/**
 * The cross-encoder: a kernel-pooling neural ranker (K-NRM, Xiong et al., 2017) that reads the
 * context and the candidate together. Every context word is compared with every candidate word
 * (cosine of their embeddings); RBF kernels count soft matches at several similarity levels; the
 * log counts are pooled over context words with learned per-word weights, and a linear layer
 * scores the pair.
 *
 *   M_ij   = n(q_i) . n(d_j)                        n(t) = F[t] / |F[t]|
 *   K_k(i) = sum_j exp(-(M_ij - mu_k)^2 / (2 sigma_k^2))
 *   phi_k  = sum_i alpha_i log(K_k(i) + eps) / sum_i alpha_i      alpha_i = softplus(v[q_i])
 *   score  = w . phi + b
 */
import { Param, sigmoid, softplus } from './params.js';

export const KERNEL_MU = [1.0, 0.9, 0.7, 0.5, 0.3, 0.1, -0.1, -0.3, -0.5, -0.7, -0.9];
export const KERNEL_SIGMA = [1e-3, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1];
export const LOG_EPS = 1e-3;
export const ALPHA_EPS = 1e-6;

export class KernelRanker {
  readonly F: Param;
  readonly v: Param;
  readonly w: Param;
  readonly b: Param;
  readonly K = KERNEL_MU.length;

  constructor(readonly vocab: number, readonly dim: number, embeddings: Float32Array) {
    this.F = new Param('F', embeddings, [vocab, dim], dim);
    this.v = new Param('v', new Float32Array(vocab), [vocab], 1);
    // start by rewarding exact and close matches
    this.w = new Param('w', Float32Array.from(KERNEL_MU.map((mu) => (mu >= 0.5 ? mu : 0) * 0.5)), [this.K]);
    this.b = new Param('b', new Float32Array(1), [1]);
  }

  params(): Param[] {
    return [this.F, this.v, this.w, this.b];
  }

  /** Normalised embedding of a token and its norm. */
  private unit(t: number): { n: Float32Array; norm: number } {
    const off = t * this.dim;
    let norm = 0;
    for (let k = 0; k < this.dim; k++) norm += this.F.value[off + k]! ** 2;
    norm = Math.sqrt(norm) + 1e-12;
    const n = new Float32Array(this.dim);
    for (let k = 0; k < this.dim; k++) n[k] = this.F.value[off + k]! / norm;
    return { n, norm };
  }

  /** Score one (context, candidate) pair of token ids (no special tokens). */
  forward(q: number[], d: number[]): PairCache {
    const K = this.K;
    const qs = q.map((t) => this.unit(t));
    const ds = d.map((t) => this.unit(t));
    const M = new Float32Array(q.length * d.length);
    for (let i = 0; i < q.length; i++) {
      const a = qs[i]!.n;
      for (let j = 0; j < d.length; j++) {
        const bv = ds[j]!.n;
        let s = 0;
        for (let k = 0; k < this.dim; k++) s += a[k]! * bv[k]!;
        M[i * d.length + j] = s;
      }
    }
    const Kik = new Float64Array(q.length * K);
    for (let i = 0; i < q.length; i++) {
      for (let j = 0; j < d.length; j++) {
        const m = M[i * d.length + j]!;
        for (let k = 0; k < K; k++) {
          const diff = m - KERNEL_MU[k]!;
          Kik[i * K + k] = Kik[i * K + k]! + Math.exp(-(diff * diff) / (2 * KERNEL_SIGMA[k]! ** 2));
        }
      }
    }
    const alpha = new Float64Array(q.length);
    let A = ALPHA_EPS;
    for (let i = 0; i < q.length; i++) {
      alpha[i] = softplus(this.v.value[q[i]!]!);
      A += alpha[i]!;
    }
    const phi = new Float64Array(K);
    for (let i = 0; i < q.length; i++) for (let k = 0; k < K; k++) phi[k] = phi[k]! + (alpha[i]! * Math.log(Kik[i * K + k]! + LOG_EPS)) / A;
    let score = this.b.value[0]!;
    for (let k = 0; k < K; k++) score += this.w.value[k]! * phi[k]!;
    return { q, d, qs, ds, M, Kik, alpha, A, phi, score };
  }

  /** Accumulate gradients given dL/dscore. */
  backward(c: PairCache, dscore: number): void {
    const K = this.K;
    const { q, d } = c;
    this.b.grad[0] = this.b.grad[0]! + dscore;
    const dphi = new Float64Array(K);
    for (let k = 0; k < K; k++) {
      this.w.grad[k] = this.w.grad[k]! + dscore * c.phi[k]!;
      dphi[k] = dscore * this.w.value[k]!;
    }
    const dnq = q.map(() => new Float64Array(this.dim));
    const dnd = d.map(() => new Float64Array(this.dim));
    for (let i = 0; i < q.length; i++) {
      let dalpha = 0;
      const dK = new Float64Array(K);
      for (let k = 0; k < K; k++) {
        const L = Math.log(c.Kik[i * K + k]! + LOG_EPS);
        dalpha += (dphi[k]! * (L - c.phi[k]!)) / c.A;
        dK[k] = (dphi[k]! * c.alpha[i]!) / c.A / (c.Kik[i * K + k]! + LOG_EPS);
      }
      const t = q[i]!;
      this.v.grad[t] = this.v.grad[t]! + dalpha * sigmoid(this.v.value[t]!);
      this.v.touched.add(t);
      for (let j = 0; j < d.length; j++) {
        const m = c.M[i * d.length + j]!;
        let dM = 0;
        for (let k = 0; k < K; k++) {
          const diff = m - KERNEL_MU[k]!;
          const s2 = KERNEL_SIGMA[k]! ** 2;
          dM += dK[k]! * Math.exp(-(diff * diff) / (2 * s2)) * (-diff / s2);
        }
        if (dM === 0) continue;
        const a = c.qs[i]!.n;
        const bv = c.ds[j]!.n;
        const ga = dnq[i]!;
        const gb = dnd[j]!;
        for (let k = 0; k < this.dim; k++) {
          ga[k] = ga[k]! + dM * bv[k]!;
          gb[k] = gb[k]! + dM * a[k]!;
        }
      }
    }
    const toF = (t: number, u: { n: Float32Array; norm: number }, dn: Float64Array) => {
      let ndn = 0;
      for (let k = 0; k < this.dim; k++) ndn += u.n[k]! * dn[k]!;
      const off = t * this.dim;
      for (let k = 0; k < this.dim; k++) this.F.grad[off + k] = this.F.grad[off + k]! + (dn[k]! - u.n[k]! * ndn) / u.norm;
      this.F.touched.add(t);
    };
    q.forEach((t, i) => toF(t, c.qs[i]!, dnq[i]!));
    d.forEach((t, j) => toF(t, c.ds[j]!, dnd[j]!));
  }
}

export interface PairCache {
  q: number[];
  d: number[];
  qs: { n: Float32Array; norm: number }[];
  ds: { n: Float32Array; norm: number }[];
  M: Float32Array;
  Kik: Float64Array;
  alpha: Float64Array;
  A: number;
  phi: Float64Array;
  score: number;
}

/** Softmax cross-entropy over one group of candidates whose first is the gold one. */
export function groupLoss(model: KernelRanker, q: number[], candidates: number[][], weight = 1): number {
  const caches = candidates.map((d) => model.forward(q, d));
  const max = Math.max(...caches.map((c) => c.score));
  const exps = caches.map((c) => Math.exp(c.score - max));
  const sum = exps.reduce((x, y) => x + y, 0);
  caches.forEach((c, j) => model.backward(c, weight * (exps[j]! / sum - (j === 0 ? 1 : 0))));
  return -(caches[0]!.score - max - Math.log(sum));
}
