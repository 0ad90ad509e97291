/**
 * The cross-encoder: a kernel-pooling neural ranker (K-NRM, Xiong et al., 2017) that reads the
 * context and the candidate together. Every context word is compared with every candidate word
 * (cosine of their embeddings); RBF kernels count soft matches at several similarity levels; the
 * log counts are pooled over context words with learned per-word weights, and a linear layer
 * scores the pair.
 *
 *   M_ij   = n(q_i) . n(d_j)                        n(t) = F[t] / |F[t]|
 *   K_k(i) = sum_j exp(-(M_ij - mu_k)^2 / (2 sigma_k^2))
 *   phi_k  = sum_i alpha_i log(K_k(i) + eps) / sum_i alpha_i
 *   alpha_i = softplus(v[q_i]) * exp(r[bucket of q_i's distance from the end of the context])
 *   psi_k  = sum_j beta_j log(1 + T_k(j)) / sum_j beta_j          beta_j = softplus(v[d_j])
 *            T_k(j) = sum_i exp(-(M_ij - mu_k)^2 / (2 sigma_k^2))  (soft count of candidate word j
 *            in the context: the candidate-side view, close to what TF-IDF overlap measures)
 *   score  = w . phi + w2 . psi + wb * cos(bag(q), bag(d)) + b
 *
 * where bag() is the trained bi-encoder applied to each side (its weights fixed here): the reranker
 * starts from the bi-encoder's judgement and learns how much word-level evidence to add to it.
 */
import { Param, sigmoid, softplus } from './params.js';
import { RECENCY_BUCKETS, recencyBucket, type BagEncoder } from './bag-encoder.js';

export const KERNEL_MU = [1.0, 0.9, 0.7, 0.5, 0.3, 0.1, -0.1, -0.3, -0.5, -0.7, -0.9];
export const KERNEL_SIGMA = [1e-3, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1];
export const LOG_EPS = 1e-3;
export const ALPHA_EPS = 1e-6;

export class KernelRanker {
  readonly F: Param;
  readonly v: Param;
  readonly w: Param;
  readonly w2: Param;
  readonly b: Param;
  /** Weight of the bi-encoder similarity feature (used when `bag` is set). */
  readonly wb: Param;
  /** The trained bi-encoder, read-only, for the similarity feature. */
  bag?: BagEncoder;
  /** Log-weights of context recency buckets. */
  readonly r: Param;
  readonly K = KERNEL_MU.length;

  /** Keep the embedding table fixed (much cheaper backward: no gradient through similarities). */
  freezeEmbeddings = false;
  /** Keep the per-word weights fixed (IDF): only the scorer's few weights learn, which overfits less. */
  freezeWordWeights = false;

  constructor(readonly vocab: number, readonly dim: number, embeddings: Float32Array) {
    this.F = new Param('F', embeddings, [vocab, dim], dim);
    this.v = new Param('v', new Float32Array(vocab), [vocab], 1);
    // start by rewarding exact and close matches
    this.w = new Param('w', Float32Array.from(KERNEL_MU.map((mu) => (mu >= 0.5 ? mu : 0) * 0.5)), [this.K]);
    this.w2 = new Param('w2', Float32Array.from(KERNEL_MU.map((mu) => (mu >= 0.5 ? mu : 0) * 0.5)), [this.K]);
    this.b = new Param('b', new Float32Array(1), [1]);
    this.wb = new Param('wb', Float32Array.of(10), [1]);
    this.r = new Param('r', new Float32Array(RECENCY_BUCKETS), [RECENCY_BUCKETS]);
  }

  params(): Param[] {
    const own = [...(this.freezeWordWeights ? [] : [this.v]), this.w, this.w2, this.b, this.r, ...(this.bag ? [this.wb] : [])];
    return this.freezeEmbeddings ? own : [this.F, ...own];
  }

  /** Normalised embeddings of tokens, to share across the candidates of one context. */
  units(ids: number[]): Unit[] {
    return ids.map((t) => this.unit(t));
  }

  /** Normalised embedding of a token and its norm. */
  private unit(t: number): Unit {
    const off = t * this.dim;
    let norm = 0;
    for (let k = 0; k < this.dim; k++) norm += this.F.value[off + k]! ** 2;
    norm = Math.sqrt(norm) + 1e-12;
    const n = new Float32Array(this.dim);
    for (let k = 0; k < this.dim; k++) n[k] = this.F.value[off + k]! / norm;
    return { n, norm };
  }

  /** Score one (context, candidate) pair of token ids (no special tokens). */
  /** The bi-encoder's embedding of one side, or null without a bag model. */
  bagVector(ids: number[]): Float32Array | null {
    return this.bag ? this.bag.forward(ids).z : null;
  }

  forward(q: number[], d: number[], qUnits?: Unit[], qBag?: Float32Array | null): PairCache {
    const K = this.K;
    const qs = qUnits ?? this.units(q);
    const ds = this.units(d);
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
    // kernel values, kept for backward: kv[(i * d + j) * K + k]
    const kv = new Float32Array(q.length * d.length * K);
    for (let i = 0; i < q.length; i++) {
      for (let j = 0; j < d.length; j++) {
        const m = M[i * d.length + j]!;
        const base = (i * d.length + j) * K;
        for (let k = 0; k < K; k++) {
          const diff = m - MU[k]!;
          if (diff > CUT[k]! || diff < -CUT[k]!) continue; // below exp(-50): adds nothing
          const e = Math.exp(diff * diff * NEG_INV_2S2[k]!);
          kv[base + k] = e;
          Kik[i * K + k] = Kik[i * K + k]! + e;
        }
      }
    }
    const alpha = new Float64Array(q.length);
    let A = ALPHA_EPS;
    for (let i = 0; i < q.length; i++) {
      alpha[i] = softplus(this.v.value[q[i]!]!) * Math.exp(this.r.value[recencyBucket(q.length - 1 - i)]!);
      A += alpha[i]!;
    }
    const phi = new Float64Array(K);
    for (let i = 0; i < q.length; i++) for (let k = 0; k < K; k++) phi[k] = phi[k]! + (alpha[i]! * Math.log(Kik[i * K + k]! + LOG_EPS)) / A;
    // candidate side
    const Tjk = new Float64Array(d.length * K);
    for (let i = 0; i < q.length; i++) {
      for (let j = 0; j < d.length; j++) {
        const base = (i * d.length + j) * K;
        for (let k = 0; k < K; k++) Tjk[j * K + k] = Tjk[j * K + k]! + kv[base + k]!;
      }
    }
    const beta = new Float64Array(d.length);
    let B = ALPHA_EPS;
    for (let j = 0; j < d.length; j++) {
      beta[j] = softplus(this.v.value[d[j]!]!);
      B += beta[j]!;
    }
    const psi = new Float64Array(K);
    for (let j = 0; j < d.length; j++) for (let k = 0; k < K; k++) psi[k] = psi[k]! + (beta[j]! * Math.log1p(Tjk[j * K + k]!)) / B;
    let score = this.b.value[0]!;
    for (let k = 0; k < K; k++) score += this.w.value[k]! * phi[k]! + this.w2.value[k]! * psi[k]!;
    let bagSim = 0;
    if (this.bag) {
      const zq = qBag ?? this.bagVector(q)!;
      const zd = this.bagVector(d)!;
      for (let k = 0; k < zq.length; k++) bagSim += zq[k]! * zd[k]!;
      score += this.wb.value[0]! * bagSim;
    }
    return { q, d, qs, ds, M, Kik, kv, alpha, A, phi, Tjk, beta, B, psi, bagSim, score };
  }

  /**
   * Accumulate gradients given dL/dscore. With `dq`, the context side's gradient is added there
   * (shared by the candidates of one context) and the caller applies it once with applyUnitGrads.
   */
  backward(c: PairCache, dscore: number, dq?: Float64Array[]): void {
    const K = this.K;
    const { q, d } = c;
    this.b.grad[0] = this.b.grad[0]! + dscore;
    if (this.bag) this.wb.grad[0] = this.wb.grad[0]! + dscore * c.bagSim;
    const dphi = new Float64Array(K);
    const dpsi = new Float64Array(K);
    for (let k = 0; k < K; k++) {
      this.w.grad[k] = this.w.grad[k]! + dscore * c.phi[k]!;
      this.w2.grad[k] = this.w2.grad[k]! + dscore * c.psi[k]!;
      dphi[k] = dscore * this.w.value[k]!;
      dpsi[k] = dscore * this.w2.value[k]!;
    }
    // candidate side: beta weights and soft counts
    const dT = new Float64Array(d.length * K);
    for (let j = 0; j < d.length; j++) {
      let dbeta = 0;
      for (let k = 0; k < K; k++) {
        const L = Math.log1p(c.Tjk[j * K + k]!);
        dbeta += (dpsi[k]! * (L - c.psi[k]!)) / c.B;
        dT[j * K + k] = (dpsi[k]! * c.beta[j]!) / c.B / (1 + c.Tjk[j * K + k]!);
      }
      const t = d[j]!;
      this.v.grad[t] = this.v.grad[t]! + dbeta * sigmoid(this.v.value[t]!);
      this.v.touched.add(t);
    }
    const dnq = dq ?? q.map(() => new Float64Array(this.dim));
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
      const rb = recencyBucket(q.length - 1 - i);
      this.v.grad[t] = this.v.grad[t]! + dalpha * sigmoid(this.v.value[t]!) * Math.exp(this.r.value[rb]!);
      this.v.touched.add(t);
      this.r.grad[rb] = this.r.grad[rb]! + dalpha * c.alpha[i]!;
      if (this.freezeEmbeddings) continue;
      for (let j = 0; j < d.length; j++) {
        const m = c.M[i * d.length + j]!;
        let dM = 0;
        const base = (i * d.length + j) * K;
        for (let k = 0; k < K; k++) {
          const e = c.kv[base + k]!;
          if (e === 0) continue;
          dM += (dK[k]! + dT[j * K + k]!) * e * (m - MU[k]!) * NEG_INV_S2[k]!;
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
    if (this.freezeEmbeddings) return;
    if (!dq) this.applyUnitGrads(q, c.qs, dnq);
    this.applyUnitGrads(d, c.ds, dnd);
  }

  /** Turn gradients on normalised embeddings into gradients on the table F. */
  applyUnitGrads(ids: number[], units: Unit[], dn: Float64Array[]): void {
    ids.forEach((t, i) => {
      const u = units[i]!;
      const g = dn[i]!;
      let ndn = 0;
      for (let k = 0; k < this.dim; k++) ndn += u.n[k]! * g[k]!;
      if (ndn === 0 && g.every((x) => x === 0)) return;
      const off = t * this.dim;
      for (let k = 0; k < this.dim; k++) this.F.grad[off + k] = this.F.grad[off + k]! + (g[k]! - u.n[k]! * ndn) / u.norm;
      this.F.touched.add(t);
    });
  }
}

export interface Unit { n: Float32Array; norm: number }

/** Beyond this distance from a kernel's centre its value is below exp(-50). */
const CUT = Float64Array.from(KERNEL_SIGMA.map((s) => 10 * s));
const MU = Float64Array.from(KERNEL_MU);
const NEG_INV_2S2 = Float64Array.from(KERNEL_SIGMA.map((s) => -1 / (2 * s * s)));
const NEG_INV_S2 = Float64Array.from(KERNEL_SIGMA.map((s) => -1 / (s * s)));

export interface PairCache {
  q: number[];
  d: number[];
  qs: Unit[];
  ds: Unit[];
  M: Float32Array;
  Kik: Float64Array;
  kv: Float32Array;
  alpha: Float64Array;
  A: number;
  phi: Float64Array;
  Tjk: Float64Array;
  beta: Float64Array;
  B: number;
  psi: Float64Array;
  bagSim: number;
  score: number;
}

/** Softmax cross-entropy over one group of candidates whose first is the gold one. */
export function groupLoss(model: KernelRanker, q: number[], candidates: number[][], weight = 1): number {
  const qUnits = model.units(q);
  const qBag = model.bagVector(q);
  const caches = candidates.map((d) => model.forward(q, d, qUnits, qBag));
  const max = Math.max(...caches.map((c) => c.score));
  const exps = caches.map((c) => Math.exp(c.score - max));
  const sum = exps.reduce((x, y) => x + y, 0);
  const dq = q.map(() => new Float64Array(model.dim));
  caches.forEach((c, j) => model.backward(c, weight * (exps[j]! / sum - (j === 0 ? 1 : 0)), dq));
  if (!model.freezeEmbeddings) model.applyUnitGrads(q, qUnits, dq);
  return -(caches[0]!.score - max - Math.log(sum));
}
