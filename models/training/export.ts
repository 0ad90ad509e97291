/**
 * ONNX graphs of the trained models, computing exactly the training-time forward passes, with the
 * runtime's I/O contract (see models/runtime/model-dir.ts):
 *  - bi_encoder.onnx: input_ids, attention_mask -> sentence_embedding [batch, out] (L2-normalised)
 *  - cross_encoder.onnx: input_ids, attention_mask, token_type_ids -> logits [batch, 1]
 * Tables may be stored as float16 (with a Cast) to halve the file size.
 */
import { GraphBuilder, int } from '../onnx/onnx.js';
import { POOL_EPS, type BagEncoder } from './bag-encoder.js';
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
  const a = g.node('Mul', [g.node('Softplus', [u]), mask], 'weights'); // [B,T]
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
  g.initializer('kernel_weights', 'float', [K, 1], model.w.value);
  g.initializer('bias', 'float', [1], model.b.value);
  const n = g.node('Gather', [N, 'input_ids'], 'tok', { axis: int(0) }); // [B,T,D]
  const nt = g.node('Transpose', [n], 'tok_t', { perm: { kind: 'ints', value: [0, 2, 1] } });
  const M = g.node('MatMul', [n, nt], 'sim'); // [B,T,T], M[b,i,j] = cos(i, j)
  const mask = g.node('Cast', ['attention_mask'], 'mask_f', { to: int(1) });
  const types = g.node('Cast', ['token_type_ids'], 'types_f', { to: int(1) });
  const notSpecial = g.node('Cast', [g.node('Greater', ['input_ids', g.constant('int64', [], BigInt64Array.of(BigInt(SPECIAL_TOKENS.length - 1)), 'last_special')])], 'not_special', { to: int(1) });
  const live = g.node('Mul', [mask, notSpecial]);
  const qmask = g.node('Mul', [live, g.node('Sub', [g.scalar(1), types])], 'context_mask'); // [B,T]
  const dmask = g.node('Mul', [live, types], 'candidate_mask'); // [B,T]
  const diff = g.node('Sub', [g.node('Unsqueeze', [M, g.int64s([3])]), 'mus']); // [B,T,T,K]
  const kern = g.node('Exp', [g.node('Mul', [g.node('Mul', [diff, diff]), 'neg_inv_2sigma2'])], 'kernels');
  const d4 = g.node('Unsqueeze', [dmask, g.int64s([1, 3])], 'candidate_mask4'); // [B,1,T,1]
  const Kik = g.node('ReduceSum', [g.node('Mul', [kern, d4]), g.int64s([2])], 'soft_tf', { keepdims: int(0) }); // [B,T,K]
  const L = g.node('Log', [g.node('Add', [Kik, g.scalar(LOG_EPS)])], 'log_tf');
  const v = g.node('Gather', ['context_weight_logits', 'input_ids'], 'tok_v', { axis: int(0) });
  const alpha = g.node('Mul', [g.node('Softplus', [v]), qmask], 'alpha'); // [B,T]
  const A = g.node('Add', [g.node('ReduceSum', [alpha, g.int64s([1])], 'alpha_total', { keepdims: int(1) }), g.scalar(ALPHA_EPS)]); // [B,1]
  const phiNum = g.node('ReduceSum', [g.node('Mul', [L, g.node('Unsqueeze', [alpha, g.int64s([2])])]), g.int64s([1])], 'phi_sum', { keepdims: int(0) }); // [B,K]
  const phi = g.node('Div', [phiNum, A], 'features');
  g.node('Add', [g.node('MatMul', [phi, 'kernel_weights']), 'bias'], 'logits');
  g.output('logits', 'float', ['batch', 1]);
  return g;
}
