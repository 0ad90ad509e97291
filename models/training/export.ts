/**
 * ONNX graphs of the trained models, computing exactly the training-time forward passes, with the
 * runtime's I/O contract (see models/runtime/model-dir.ts):
 *  - bi_encoder.onnx: input_ids, attention_mask -> sentence_embedding [batch, out] (L2-normalised)
 *  - cross_encoder.onnx: input_ids, attention_mask, token_type_ids -> logits [batch, 1]
 * Tables may be stored as float16 (with a Cast) to halve the file size.
 */
import { GraphBuilder, int } from '../onnx/onnx.js';
import { POOL_EPS, RECENCY_BUCKETS, type BagEncoder } from './bag-encoder.js';
import { ALPHA_EPS, KERNEL_MU, KERNEL_SIGMA, LOG_EPS, type KernelRanker } from './kernel-ranker.js';
import { SPECIAL_TOKENS } from '../tokenizer/wordpiece.js';

export interface ExportOptions { float16?: boolean }

/** IEEE half-precision bits of a float (round to nearest even). */
export function toHalf(f: number): number {
  const buf = new DataView(new ArrayBuffer(4));
  buf.setFloat32(0, f);
  const x = buf.getUint32(0);
  const sign = (x >>> 16) & 0x8000;
  let exp = ((x >>> 23) & 0xff) - 127 + 15;
  let mant = x & 0x7fffff;
  if (exp >= 31) return sign | 0x7c00;
  if (exp <= 0) {
    if (exp < -10) return sign;
    mant = (mant | 0x800000) >> (1 - exp);
    return sign | ((mant + 0x1000) >> 13);
  }
  const half = sign | (exp << 10) | (mant >> 13);
  return (mant & 0x1000) && ((mant & 0x2fff) !== 0) ? half + 1 : half;
}

export function halfToFloat(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * 2 ** -14 * (m / 1024);
  if (e === 31) return m ? NaN : s * Infinity;
  return s * 2 ** (e - 15) * (1 + m / 1024);
}

/** Round a table through float16 in place, so training-time checks see what the file holds. */
export function roundToHalf(values: Float32Array): Float32Array {
  for (let i = 0; i < values.length; i++) values[i] = halfToFloat(toHalf(values[i]!));
  return values;
}

function table(g: GraphBuilder, name: string, dims: number[], data: Float32Array, half: boolean): string {
  if (!half) return g.initializer(name, 'float', dims, data);
  const bits = new Uint16Array(data.length);
  for (let i = 0; i < data.length; i++) bits[i] = toHalf(data[i]!);
  g.initializer(`${name}_f16`, 'float16', dims, bits);
  return g.node('Cast', [`${name}_f16`], name, { to: int(1) });
}

/**
 * exp(logWeights[bucket(fromEnd)]) per position, with bucket(r) = clamp(floor(log2(r + 0.5)) + 1,
 * 0, buckets - 1) as in recencyBucket. `fromEnd` is a float tensor [B,T].
 */
function recencyWeights(g: GraphBuilder, fromEnd: string, logWeights: Float32Array, name: string): string {
  const table = g.initializer(`${name}_recency`, 'float', [logWeights.length], Float32Array.from(logWeights, Math.exp));
  const r = g.node('Max', [fromEnd, g.scalar(0)]);
  const log2 = g.node('Div', [g.node('Log', [g.node('Add', [r, g.scalar(0.5)])]), g.scalar(Math.LN2)]);
  const bucket = g.node('Min', [g.node('Max', [g.node('Add', [g.node('Floor', [log2]), g.scalar(1)]), g.scalar(0)]), g.scalar(RECENCY_BUCKETS - 1)]);
  return g.node('Gather', [table, g.node('Cast', [bucket], undefined, { to: int(7) })], `${name}_recency_weight`, { axis: int(0) });
}

export function bagEncoderGraph(enc: BagEncoder, opts: ExportOptions = {}): GraphBuilder {
  const { vocab, dim, out } = enc.shape;
  const g = new GraphBuilder('bi_encoder');
  g.input('input_ids', 'int64', ['batch', 'tokens']);
  g.input('attention_mask', 'int64', ['batch', 'tokens']);
  const E = table(g, 'embeddings', [vocab, dim], enc.E.value, !!opts.float16);
  g.initializer('token_weight_logits', 'float', [vocab], enc.u.value);
  g.initializer('projection', 'float', [dim, out], enc.W.value);
  const tok = g.node('Gather', [E, 'input_ids'], 'tok', { axis: int(0) }); // [B,T,D]
  const u = g.node('Gather', ['token_weight_logits', 'input_ids'], 'tok_u', { axis: int(0) }); // [B,T]
  const mask = g.node('Cast', ['attention_mask'], 'mask_f', { to: int(1) });
  const pos = g.node('CumSum', [mask, g.constant('int64', [], BigInt64Array.of(1n), 'axis1')], 'position_plus_1'); // [B,T]
  const len = g.node('ReduceSum', [mask, g.int64s([1])], 'length', { keepdims: int(1) }); // [B,1]
  const fromEnd = g.node('Sub', [len, pos], 'from_end'); // last real token: 0
  const recency = recencyWeights(g, fromEnd, enc.p.value, 'token');
  const a = g.node('Mul', [g.node('Mul', [g.node('Softplus', [u]), recency]), mask], 'weights'); // [B,T]
  const a3 = g.node('Unsqueeze', [a, g.int64s([2])], 'weights3'); // [B,T,1]
  const num = g.node('ReduceSum', [g.node('Mul', [tok, a3]), g.int64s([1])], 'weighted_sum', { keepdims: int(0) }); // [B,D]
  const den = g.node('Add', [g.node('ReduceSum', [a, g.int64s([1])], 'weight_total', { keepdims: int(1) }), g.scalar(POOL_EPS)]); // [B,1]
  const s = g.node('Div', [num, den], 'pooled');
  const h = g.node('MatMul', [s, 'projection'], 'projected'); // [B,out]
  const norm = g.node('Add', [g.node('Sqrt', [g.node('ReduceSum', [g.node('Mul', [h, h]), g.int64s([1])], 'sq', { keepdims: int(1) })]), g.scalar(1e-12)]);
  g.node('Div', [h, norm], 'sentence_embedding');
  g.output('sentence_embedding', 'float', ['batch', out]);
  return g;
}

export function kernelRankerGraph(model: KernelRanker, opts: ExportOptions = {}): GraphBuilder {
  const { vocab, dim, K } = model;
  // Normalise rows once: the graph is then a plain lookup.
  const unit = new Float32Array(model.F.value);
  for (let r = 0; r < vocab; r++) {
    let s = 0;
    for (let k = 0; k < dim; k++) s += unit[r * dim + k]! ** 2;
    const inv = 1 / (Math.sqrt(s) + 1e-12);
    for (let k = 0; k < dim; k++) unit[r * dim + k] = unit[r * dim + k]! * inv;
  }
  const g = new GraphBuilder('cross_encoder');
  g.input('input_ids', 'int64', ['batch', 'tokens']);
  g.input('attention_mask', 'int64', ['batch', 'tokens']);
  g.input('token_type_ids', 'int64', ['batch', 'tokens']);
  const N = table(g, 'unit_embeddings', [vocab, dim], unit, !!opts.float16);
  g.initializer('context_weight_logits', 'float', [vocab], model.v.value);
  g.initializer('mus', 'float', [K], Float32Array.from(KERNEL_MU));
  g.initializer('neg_inv_2sigma2', 'float', [K], Float32Array.from(KERNEL_SIGMA.map((s) => -1 / (2 * s * s))));
  g.initializer('kernel_weights', 'float', [2 * K, 1], Float32Array.from([...model.w.value, ...model.w2.value]));
  g.initializer('bias', 'float', [1], model.b.value);
  const n = g.node('Gather', [N, 'input_ids'], 'tok', { axis: int(0) }); // [B,T,D]
  const mask = g.node('Cast', ['attention_mask'], 'mask_f', { to: int(1) });
  const types = g.node('Cast', ['token_type_ids'], 'types_f', { to: int(1) });
  // Candidate tokens come after the context; compare every token only with the columns from the
  // earliest candidate start on (when a batch shares one context, just the candidate's).
  const start = g.node('ReduceMin', [g.node('ArgMax', [types], undefined, { axis: int(1), keepdims: int(0) })], 'candidate_start', { keepdims: int(1) }); // [1]
  const sliceCols = (x: string) => g.node('Slice', [x, start, g.int64s([2 ** 31 - 1]), g.int64s([1])]);
  const nc = sliceCols(n); // [B,Tc,D]
  const nct = g.node('Transpose', [nc], 'cand_t', { perm: { kind: 'ints', value: [0, 2, 1] } });
  const M = g.node('MatMul', [n, nct], 'sim'); // [B,T,Tc], M[b,i,j] = cos(token i, candidate-side token j)
  const notSpecial = g.node('Cast', [g.node('Greater', ['input_ids', g.constant('int64', [], BigInt64Array.of(BigInt(SPECIAL_TOKENS.length - 1)), 'last_special')])], 'not_special', { to: int(1) });
  const live = g.node('Mul', [mask, notSpecial]);
  const qmask = g.node('Mul', [live, g.node('Sub', [g.scalar(1), types])], 'context_mask'); // [B,T]
  const dmask = g.node('Mul', [live, types], 'candidate_mask'); // [B,T]
  const diff = g.node('Sub', [g.node('Unsqueeze', [M, g.int64s([3])]), 'mus']); // [B,T,T,K]
  const kern = g.node('Exp', [g.node('Mul', [g.node('Mul', [diff, diff]), 'neg_inv_2sigma2'])], 'kernels');
  const d4 = g.node('Unsqueeze', [sliceCols(dmask), g.int64s([1, 3])], 'candidate_mask4'); // [B,1,Tc,1]
  const Kik = g.node('ReduceSum', [g.node('Mul', [kern, d4]), g.int64s([2])], 'soft_tf', { keepdims: int(0) }); // [B,T,K]
  const L = g.node('Log', [g.node('Add', [Kik, g.scalar(LOG_EPS)])], 'log_tf');
  const v = g.node('Gather', ['context_weight_logits', 'input_ids'], 'tok_v', { axis: int(0) });
  const cq = g.node('CumSum', [qmask, g.constant('int64', [], BigInt64Array.of(1n), 'axis1')], 'context_position_plus_1');
  const Q = g.node('ReduceSum', [qmask, g.int64s([1])], 'context_length', { keepdims: int(1) });
  const recency = recencyWeights(g, g.node('Sub', [Q, cq]), model.r.value, 'context');
  const alpha = g.node('Mul', [g.node('Mul', [g.node('Softplus', [v]), recency]), qmask], 'alpha'); // [B,T]
  const A = g.node('Add', [g.node('ReduceSum', [alpha, g.int64s([1])], 'alpha_total', { keepdims: int(1) }), g.scalar(ALPHA_EPS)]); // [B,1]
  const phiNum = g.node('ReduceSum', [g.node('Mul', [L, g.node('Unsqueeze', [alpha, g.int64s([2])])]), g.int64s([1])], 'phi_sum', { keepdims: int(0) }); // [B,K]
  const phi = g.node('Div', [phiNum, A], 'context_features'); // [B,K]
  // candidate side: soft counts of each candidate word in the context
  const q4 = g.node('Unsqueeze', [qmask, g.int64s([2, 3])], 'context_mask4'); // [B,T,1,1]
  const Tjk = g.node('ReduceSum', [g.node('Mul', [kern, q4]), g.int64s([1])], 'candidate_tf', { keepdims: int(0) }); // [B,Tc,K]
  const Lc = g.node('Log', [g.node('Add', [Tjk, g.scalar(1)])], 'candidate_log_tf');
  const vc = g.node('Gather', ['context_weight_logits', sliceCols('input_ids')], 'cand_v', { axis: int(0) }); // [B,Tc]
  const beta = g.node('Mul', [g.node('Softplus', [vc]), sliceCols(dmask)], 'beta');
  const Bsum = g.node('Add', [g.node('ReduceSum', [beta, g.int64s([1])], 'beta_total', { keepdims: int(1) }), g.scalar(ALPHA_EPS)]);
  const psi = g.node('Div', [g.node('ReduceSum', [g.node('Mul', [Lc, g.node('Unsqueeze', [beta, g.int64s([2])])]), g.int64s([1])], 'psi_sum', { keepdims: int(0) }), Bsum], 'candidate_features');
  const feats = g.node('Concat', [phi, psi], 'features', { axis: int(1) }); // [B,2K]
  const kernelScore = g.node('Add', [g.node('MatMul', [feats, 'kernel_weights']), 'bias'], 'kernel_logits');
  if (!model.bag) g.node('Identity', [kernelScore], 'logits');
  else {
    // the bi-encoder applied to each side, as in training (no special tokens; recency within the side)
    const bag = model.bag;
    const E = table(g, 'bag_embeddings', [bag.shape.vocab, bag.shape.dim], bag.E.value, !!opts.float16);
    g.initializer('bag_weight_logits', 'float', [bag.shape.vocab], bag.u.value);
    g.initializer('bag_projection', 'float', [bag.shape.dim, bag.shape.out], bag.W.value);
    const tokE = g.node('Gather', [E, 'input_ids'], 'bag_tok', { axis: int(0) }); // [B,T,D]
    const w0 = g.node('Softplus', [g.node('Gather', ['bag_weight_logits', 'input_ids'], 'bag_u', { axis: int(0) })]);
    const side = (m: string, name: string) => {
      const pos = g.node('CumSum', [m, g.constant('int64', [], BigInt64Array.of(1n), `${name}_axis`)]);
      const len = g.node('ReduceSum', [m, g.int64s([1])], `${name}_len`, { keepdims: int(1) });
      const rec = recencyWeights(g, g.node('Sub', [len, pos]), bag.p.value, `bag_${name}`);
      const a = g.node('Mul', [g.node('Mul', [w0, rec]), m], `${name}_bag_weights`);
      const num = g.node('ReduceSum', [g.node('Mul', [tokE, g.node('Unsqueeze', [a, g.int64s([2])])]), g.int64s([1])], undefined, { keepdims: int(0) });
      const den = g.node('Add', [g.node('ReduceSum', [a, g.int64s([1])], undefined, { keepdims: int(1) }), g.scalar(POOL_EPS)]);
      const h = g.node('MatMul', [g.node('Div', [num, den]), 'bag_projection']);
      const norm = g.node('Add', [g.node('Sqrt', [g.node('ReduceSum', [g.node('Mul', [h, h]), g.int64s([1])], undefined, { keepdims: int(1) })]), g.scalar(1e-12)]);
      return g.node('Div', [h, norm], `${name}_bag`);
    };
    const sim = g.node('ReduceSum', [g.node('Mul', [side(qmask, 'context'), side(dmask, 'candidate')]), g.int64s([1])], 'bag_similarity', { keepdims: int(1) }); // [B,1]
    g.node('Add', [kernelScore, g.node('Mul', [sim, g.scalar(model.wb.value[0]!)])], 'logits');
  }
  g.output('logits', 'float', ['batch', 1]);
  return g;
}
