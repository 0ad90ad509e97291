/**
 * Top-K by dot product over a pool of normalised embeddings.
 *
 * The pool [n, dim] becomes the constant B of a tiny ONNX graph, `Gemm(queries, pool, transB=1)`
 * then `TopK`, built in memory with models/onnx and run by onnxruntime on the inference thread
 * (session.ts), off the event loop. Its MLAS kernels are SIMD and multithreaded and the constant B
 * is pre-packed: for 110k x 128 (14M multiply-adds) it is several times faster than a JavaScript
 * loop (see bench/rankers.bench.ts). Queries may be batched [b, dim]. On request (IndexOptions.quantize)
 * a pool is scanned in int8 and the shortlist rescored exactly.
 *
 * The int8 scan is exact on every CPU, by two checks:
 * - Pool rows are quantised to 7 bits (-63..63). onnxruntime's u8 x s8 MatMulInteger on AVX2 without
 *   VNNI (and on AVX-512BW without VNNI) multiplies with vpmaddubsw, which adds each pair of u8 x s8
 *   products in saturating 16-bit arithmetic: 255 x 127 x 2 = 64,770 overflows 32,767, so with 8-bit
 *   rows some scores were clipped and true top rows fell out of the shortlist. 255 x 63 x 2 = 32,130
 *   cannot overflow (onnxruntime's own quantiser calls this `reduce_range`). The first int8 index a
 *   process builds also probes the kernel with the worst case (kernelProbe) and falls back to float32
 *   if the integer products are not exact.
 * - Every answer carries a certificate: a row outside the shortlist scores at most the shortlist's
 *   lowest approximate score plus the quantisation error bound, so when the k-th exact score in the
 *   shortlist is at least that, no row outside can belong to the top k. A query whose certificate
 *   fails is searched again with a shortlist four times larger, up to the whole pool (exact).
 */
import { GraphBuilder, int, ints } from '../onnx/onnx.js';
import { openSession, type Session, type SessionOptions, type TensorData } from './session.js';

export interface Hit {
  /** Row in the pool. */
  index: number;
  score: number;
}

export type Quantize = 'int8' | 'none';

export interface IndexOptions extends SessionOptions {
  /**
   * 'int8': scan an int8 copy of the pool (a quarter of the memory traffic; MatMulInteger, VNNI where
   * the CPU has it), then rescore the best `oversample x k` exactly in float32, so returned scores are
   * exact and the top k is the float32 top k unless int8 rounding pushed a row below the shortlist.
   * 'none': scan float32 (Gemm): exact by construction. The default: measured on the bundled model's
   * pool, the int8 certificate fails often (its lines' scores lie closer together than the error
   * bound), and each retry rescans, so int8 was 30x slower than float32 at 20k rows.
   */
  quantize?: Quantize;
  /** Shortlist size for int8, as a multiple of k (default 5; at least `minShortlist` rows). */
  oversample?: number;
  /** Smallest int8 shortlist (default 100). */
  minShortlist?: number;
}

/** Pools of at least this many rows would be scanned in int8 by default: none (see `quantize`). */
export const INT8_FROM = Number.POSITIVE_INFINITY;

/** Largest magnitude of a quantised pool value: 7 bits, so no pair of u8 x s8 products overflows int16. */
export const INT8_MAX_LEVEL = 63;

/**
 * Symmetric per-row quantisation to -63..63, stored transposed [dim, size] for MatMulInteger, with row
 * scales and each dequantised row's L1 norm (for the error bound).
 */
export function quantizeRows(matrix: Float32Array, dim: number): { transposed: Int8Array; scales: Float32Array; l1: Float32Array } {
  const size = matrix.length / dim;
  const transposed = new Int8Array(size * dim);
  const scales = new Float32Array(size);
  const l1 = new Float32Array(size);
  for (let i = 0; i < size; i++) {
    let m = 0;
    for (let d = 0; d < dim; d++) m = Math.max(m, Math.abs(matrix[i * dim + d]!));
    const scale = m > 0 ? m / INT8_MAX_LEVEL : 1;
    scales[i] = scale;
    let norm = 0;
    for (let d = 0; d < dim; d++) {
      const v = Math.round(matrix[i * dim + d]! / scale);
      transposed[d * size + i] = v;
      norm += Math.abs(v) * scale;
    }
    l1[i] = norm;
  }
  return { transposed, scales, l1 };
}

/**
 * Bound on |exact - approximate| score of any row for one query: the query's own quantisation
 * (DynamicQuantizeLinear: step (max(0,max q) - min(0,min q)) / 255, at most one step per value after
 * zero-point rounding) times the largest dequantised row L1 norm, plus the rows' rounding (half a step
 * each) times the query's L1 norm, plus a margin for float32 rounding.
 */
export function quantisationBound(query: Float32Array, maxScale: number, maxRowL1: number): number {
  let lo = 0, hi = 0, l1 = 0;
  for (const v of query) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
    l1 += Math.abs(v);
  }
  const step = (hi - lo) / 255;
  return step * maxRowL1 + (maxScale / 2) * l1 + 1e-5 * (1 + l1);
}

let probe: Promise<boolean> | undefined;

/**
 * Whether this CPU's MatMulInteger (u8 x s8) computes exact integer products for the worst case the
 * index feeds it: query bytes of 255 and 0 against pool values of +-63 in long runs. Checked once per
 * process against plain arithmetic.
 */
export function kernelProbe(opts: SessionOptions = {}): Promise<boolean> {
  probe ??= (async () => {
    const m = 4, k = 64, n = 48;
    const a = new Uint8Array(m * k);
    const b = new Int8Array(k * n);
    for (let i = 0; i < m * k; i++) a[i] = i % 7 === 3 ? 0 : i % 5 === 1 ? 128 : 255;
    for (let i = 0; i < k * n; i++) b[i] = (i % 11 === 4 ? -1 : 1) * (i % 13 === 0 ? 17 : INT8_MAX_LEVEL);
    const g = new GraphBuilder('lightmud_int8_probe');
    g.input('a', 'uint8', [m, k]);
    g.initializer('b', 'int8', [k, n], b);
    g.initializer('zero', 'uint8', [], Uint8Array.of(128));
    g.node('MatMulInteger', ['a', 'b', 'zero'], 'c');
    g.output('c', 'int32', [m, n]);
    const session = await openSession(g.toModelBytes(), 'int8 kernel probe', opts);
    try {
      const out = await session.run({ a: { type: 'uint8', data: a, dims: [m, k] } }, ['c']);
      const c = out.c!.data as Int32Array;
      for (let i = 0; i < m; i++) {
        for (let j = 0; j < n; j++) {
          let want = 0;
          for (let t = 0; t < k; t++) want += (a[i * k + t]! - 128) * b[t * n + j]!;
          if (c[i * n + j] !== want) return false;
        }
      }
      return true;
    } finally {
      await session.release();
    }
  })();
  return probe;
}

export class DotIndex {
  /** Searches that needed a larger shortlist than the first (int8 only; see the certificate above). */
  retries = 0;

  private constructor(
    private readonly session: Session | undefined,
    readonly size: number,
    readonly dim: number,
    readonly quantize: Quantize,
    private readonly oversample: number,
    private readonly minShortlist: number,
    private readonly maxScale = 0,
    private readonly maxRowL1 = 0,
  ) {}

  /** Builds the scoring graph over `matrix` ([size, dim], row-major). onnxruntime keeps its own copy. */
  static async create(matrix: Float32Array, dim: number, opts: IndexOptions = {}): Promise<DotIndex> {
    if (dim <= 0 || matrix.length % dim !== 0) throw new Error(`DotIndex: matrix of ${matrix.length} values is not a multiple of dim ${dim}`);
    const size = matrix.length / dim;
    let quantize = opts.quantize ?? (size >= INT8_FROM ? 'int8' : 'none');
    const oversample = Math.max(1, opts.oversample ?? 5);
    const minShortlist = Math.max(1, opts.minShortlist ?? 100);
    if (size === 0) return new DotIndex(undefined, 0, dim, quantize, oversample, minShortlist);
    if (quantize === 'int8' && !(await kernelProbe(opts))) {
      process.emitWarning('this CPU\'s int8 MatMulInteger is not exact; the top-K index scans float32 instead', 'LightmudWarning');
      quantize = 'none';
    }
    let maxScale = 0, maxRowL1 = 0;
    const g = new GraphBuilder('lightmud_dot_topk');
    g.input('queries', 'float', ['batch', dim]);
    g.input('k', 'int64', [1]);
    g.initializer('pool', 'float', [size, dim], matrix);
    if (quantize === 'none') {
      const scores = g.node('Gemm', ['queries', 'pool'], 'scores', { transB: int(1) });
      g.node('TopK', [scores, 'k'], ['values', 'indices'], { axis: int(-1), largest: int(1), sorted: int(1) });
    } else {
      g.input('shortlist', 'int64', [1]);
      const { transposed, scales, l1 } = quantizeRows(matrix, dim);
      for (let i = 0; i < size; i++) {
        maxScale = Math.max(maxScale, scales[i]!);
        maxRowL1 = Math.max(maxRowL1, l1[i]!);
      }
      g.initializer('pool_int8_t', 'int8', [dim, size], transposed);
      g.initializer('row_scales', 'float', [size], scales);
      g.node('DynamicQuantizeLinear', ['queries'], ['q_u8', 'q_scale', 'q_zero']);
      const approx = g.node('Mul', [g.node('Cast', [g.node('MatMulInteger', ['q_u8', 'pool_int8_t', 'q_zero'], 'scores_i32')], 'scores_q', { to: int(1) }), 'row_scales'], 'scores_approx');
      g.node('TopK', [approx, 'shortlist'], ['short_v', 'short_i'], { axis: int(-1), largest: int(1), sorted: int(0) });
      g.node('ReduceMin', ['short_v'], 'short_floor', { axes: ints([1]), keepdims: int(0) });
      const rows = g.node('Gather', ['pool', 'short_i'], 'short_rows', { axis: int(0) }); // [B,S,D]
      const q3 = g.node('Unsqueeze', ['queries', g.int64s([1])], 'queries3'); // [B,1,D]
      const exact = g.node('ReduceSum', [g.node('Mul', [rows, q3]), g.int64s([2])], 'short_exact', { keepdims: int(0) }); // [B,S]
      g.node('TopK', [exact, 'k'], ['values', 'short_pos'], { axis: int(-1), largest: int(1), sorted: int(1) });
      g.node('GatherElements', ['short_i', 'short_pos'], 'indices', { axis: int(1) });
    }
    g.output('values', 'float', ['batch', 'k']);
    g.output('indices', 'int64', ['batch', 'k']);
    if (quantize === 'int8') g.output('short_floor', 'float', ['batch']);
    const session = await openSession(g.toModelBytes(), 'top-K index', opts);
    return new DotIndex(session, size, dim, quantize, oversample, minShortlist, maxScale, maxRowL1);
  }

  /** The best `k` rows for each query; `queries` is [batch, dim]. Results are sorted best first. */
  async search(queries: Float32Array, k: number): Promise<Hit[][]> {
    const batch = queries.length / this.dim;
    if (!Number.isInteger(batch)) throw new Error(`DotIndex.search: ${queries.length} values is not a multiple of dim ${this.dim}`);
    const kk = Math.min(Math.max(1, Math.floor(k)), this.size);
    if (!this.session || batch === 0) return Array.from({ length: batch }, () => []);
    if (this.quantize === 'none') return (await this.run(queries, batch, kk, 0)).hits;
    const hits: Hit[][] = new Array(batch);
    let pending = Array.from({ length: batch }, (_, b) => b);
    let shortlist = Math.min(this.size, Math.max(kk * this.oversample, this.minShortlist, kk));
    for (;;) {
      const q = new Float32Array(pending.length * this.dim);
      pending.forEach((b, i) => q.set(queries.subarray(b * this.dim, (b + 1) * this.dim), i * this.dim));
      const { hits: found, floors } = await this.run(q, pending.length, kk, shortlist);
      const failed: number[] = [];
      pending.forEach((b, i) => {
        const row = found[i]!;
        const bound = quantisationBound(queries.subarray(b * this.dim, (b + 1) * this.dim), this.maxScale, this.maxRowL1);
        // certified: the k-th exact score beats anything outside the shortlist could reach
        if (shortlist >= this.size || row[kk - 1]!.score >= floors[i]! + bound) hits[b] = row;
        else failed.push(b);
      });
      if (!failed.length) return hits;
      this.retries += failed.length;
      pending = failed;
      shortlist = Math.min(this.size, shortlist * 4);
    }
  }

  /** One pass: the top kk of a shortlist, and each query's lowest approximate score in it (int8). */
  private async run(queries: Float32Array, batch: number, kk: number, shortlist: number): Promise<{ hits: Hit[][]; floors: Float32Array }> {
    const feeds: Record<string, TensorData> = {
      queries: { type: 'float32', data: queries, dims: [batch, this.dim] },
      k: { type: 'int64', data: BigInt64Array.of(BigInt(kk)), dims: [1] },
    };
    const names = ['values', 'indices'];
    if (this.quantize === 'int8') {
      feeds.shortlist = { type: 'int64', data: BigInt64Array.of(BigInt(shortlist)), dims: [1] };
      names.push('short_floor');
    }
    const out = await this.session!.run(feeds, names);
    const values = out.values!.data as Float32Array;
    const indices = out.indices!.data as BigInt64Array;
    const hits: Hit[][] = [];
    for (let b = 0; b < batch; b++) {
      const row: Hit[] = [];
      for (let j = 0; j < kk; j++) row.push({ index: Number(indices[b * kk + j]!), score: values[b * kk + j]! });
      hits.push(row);
    }
    return { hits, floors: (out.short_floor?.data as Float32Array | undefined) ?? new Float32Array(0) };
  }

  async release(): Promise<void> {
    await this.session?.release();
  }
}

/** Dot products of one query with each row of a small [n, dim] matrix (JavaScript; for tens to hundreds of rows). */
export function dotScores(query: Float32Array, matrix: Float32Array, dim: number): Float32Array {
  const n = matrix.length / dim;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    const o = i * dim;
    for (let d = 0; d < dim; d++) s += query[d]! * matrix[o + d]!;
    out[i] = s;
  }
  return out;
}

/** Indices of `scores` sorted by descending score (stable: ties keep input order). */
export function argsortDesc(scores: ArrayLike<number>): number[] {
  return Array.from({ length: scores.length }, (_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b);
}
