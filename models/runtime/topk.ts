/**
 * Top-K by dot product over a pool of normalised embeddings.
 *
 * The pool [n, dim] becomes the constant B of a tiny ONNX graph, `Gemm(queries, pool, transB=1)`
 * then `TopK`, built in memory with models/onnx and run by onnxruntime on the inference thread
 * (session.ts), off the event loop. Its MLAS kernels are SIMD and multithreaded and the constant B
 * is pre-packed: for 110k x 128 (14M multiply-adds) it is several times faster than a JavaScript
 * loop (see bench/rankers.bench.ts). Queries may be batched [b, dim]. Large pools are scanned in
 * int8 and the shortlist rescored exactly (IndexOptions.quantize).
 */
import { GraphBuilder, int } from '../onnx/onnx.js';
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
   * 'none': scan float32 (Gemm). Default: int8 from INT8_FROM rows up.
   */
  quantize?: Quantize;
  /** Shortlist size for int8, as a multiple of k (default 5; at least 100 rows). */
  oversample?: number;
}

/** Pools of at least this many rows are scanned in int8 by default. */
export const INT8_FROM = 20_000;

/** Symmetric per-row int8 quantisation, stored transposed [dim, size] for MatMulInteger, with row scales. */
export function quantizeRows(matrix: Float32Array, dim: number): { transposed: Int8Array; scales: Float32Array } {
  const size = matrix.length / dim;
  const transposed = new Int8Array(size * dim);
  const scales = new Float32Array(size);
  for (let i = 0; i < size; i++) {
    let m = 0;
    for (let d = 0; d < dim; d++) m = Math.max(m, Math.abs(matrix[i * dim + d]!));
    const scale = m > 0 ? m / 127 : 1;
    scales[i] = scale;
    for (let d = 0; d < dim; d++) transposed[d * size + i] = Math.round(matrix[i * dim + d]! / scale);
  }
  return { transposed, scales };
}

export class DotIndex {
  private constructor(
    private readonly session: Session | undefined,
    readonly size: number,
    readonly dim: number,
    readonly quantize: Quantize,
    private readonly oversample: number,
  ) {}

  /** Builds the scoring graph over `matrix` ([size, dim], row-major). onnxruntime keeps its own copy. */
  static async create(matrix: Float32Array, dim: number, opts: IndexOptions = {}): Promise<DotIndex> {
    if (dim <= 0 || matrix.length % dim !== 0) throw new Error(`DotIndex: matrix of ${matrix.length} values is not a multiple of dim ${dim}`);
    const size = matrix.length / dim;
    const quantize = opts.quantize ?? (size >= INT8_FROM ? 'int8' : 'none');
    const oversample = Math.max(1, opts.oversample ?? 5);
    if (size === 0) return new DotIndex(undefined, 0, dim, quantize, oversample);
    const g = new GraphBuilder('lightmud_dot_topk');
    g.input('queries', 'float', ['batch', dim]);
    g.input('k', 'int64', [1]);
    g.initializer('pool', 'float', [size, dim], matrix);
    if (quantize === 'none') {
      const scores = g.node('Gemm', ['queries', 'pool'], 'scores', { transB: int(1) });
      g.node('TopK', [scores, 'k'], ['values', 'indices'], { axis: int(-1), largest: int(1), sorted: int(1) });
    } else {
      g.input('shortlist', 'int64', [1]);
      const { transposed, scales } = quantizeRows(matrix, dim);
      g.initializer('pool_int8_t', 'int8', [dim, size], transposed);
      g.initializer('row_scales', 'float', [size], scales);
      g.node('DynamicQuantizeLinear', ['queries'], ['q_u8', 'q_scale', 'q_zero']);
      const approx = g.node('Mul', [g.node('Cast', [g.node('MatMulInteger', ['q_u8', 'pool_int8_t', 'q_zero'], 'scores_i32')], 'scores_q', { to: int(1) }), 'row_scales'], 'scores_approx');
      g.node('TopK', [approx, 'shortlist'], ['short_v', 'short_i'], { axis: int(-1), largest: int(1), sorted: int(0) });
      const rows = g.node('Gather', ['pool', 'short_i'], 'short_rows', { axis: int(0) }); // [B,S,D]
      const q3 = g.node('Unsqueeze', ['queries', g.int64s([1])], 'queries3'); // [B,1,D]
      const exact = g.node('ReduceSum', [g.node('Mul', [rows, q3]), g.int64s([2])], 'short_exact', { keepdims: int(0) }); // [B,S]
      g.node('TopK', [exact, 'k'], ['values', 'short_pos'], { axis: int(-1), largest: int(1), sorted: int(1) });
      g.node('GatherElements', ['short_i', 'short_pos'], 'indices', { axis: int(1) });
    }
    g.output('values', 'float', ['batch', 'k']);
    g.output('indices', 'int64', ['batch', 'k']);
    const session = await openSession(g.toModelBytes(), 'top-K index', opts);
    return new DotIndex(session, size, dim, quantize, oversample);
  }

  /** The best `k` rows for each query; `queries` is [batch, dim]. Results are sorted best first. */
  async search(queries: Float32Array, k: number): Promise<Hit[][]> {
    const batch = queries.length / this.dim;
    if (!Number.isInteger(batch)) throw new Error(`DotIndex.search: ${queries.length} values is not a multiple of dim ${this.dim}`);
    const kk = Math.min(Math.max(1, Math.floor(k)), this.size);
    if (!this.session || batch === 0) return Array.from({ length: batch }, () => []);
    const feeds: Record<string, TensorData> = {
      queries: { type: 'float32', data: queries, dims: [batch, this.dim] },
      k: { type: 'int64', data: BigInt64Array.of(BigInt(kk)), dims: [1] },
    };
    if (this.quantize === 'int8') {
      const shortlist = Math.min(this.size, Math.max(kk * this.oversample, 100));
      feeds.shortlist = { type: 'int64', data: BigInt64Array.of(BigInt(shortlist)), dims: [1] };
    }
    const out = await this.session.run(feeds, ['values', 'indices']);
    const values = out.values!.data as Float32Array;
    const indices = out.indices!.data as BigInt64Array;
    const hits: Hit[][] = [];
    for (let b = 0; b < batch; b++) {
      const row: Hit[] = [];
      for (let j = 0; j < kk; j++) row.push({ index: Number(indices[b * kk + j]!), score: values[b * kk + j]! });
      hits.push(row);
    }
    return hits;
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
