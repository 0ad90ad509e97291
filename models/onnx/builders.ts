/**
 * Graphs of the two ranking models, with the I/O contract of sentence-transformers and
 * cross-encoder ONNX exports, built from given weights. Tests use them with hand-made weights
 * (predictable rankings), the bench with random weights of a realistic size, and the training
 * issue can export trained weights with them.
 *
 *  - bag-of-embeddings bi-encoder: Gather(embeddings, input_ids) -> masked mean -> MatMul(projection)
 *    -> `sentence_embedding` [batch, dim]; or, with tokenStates, MatMul per token -> `last_hidden_state`
 *    [batch, tokens, dim] (the runtime then mean-pools).
 *  - K-NRM cross-encoder (Xiong et al., 2017): cosine similarity of every candidate token
 *    (token_type 1) with every context token (token_type 0), RBF kernels, log soft-TF summed over
 *    the candidate, then a linear layer -> `logits` [batch, 1]. The graph first gathers each side's
 *    tokens (TopK over a position key, GatherElements), so the kernels run on candidate x context
 *    pairs only, not on all tokens x tokens: ~6x less work for a 130-token context and a 25-token
 *    candidate.
 */
import { GraphBuilder, int } from './onnx.js';

export interface BiEncoderWeights {
  vocab: number;
  /** Embedding width. */
  hidden: number;
  /** [vocab, hidden] */
  embeddings: Float32Array;
  /** Output width. */
  dim: number;
  /** [hidden, dim] */
  projection: Float32Array;
}

export interface BiEncoderGraphOptions {
  /** Emit `last_hidden_state` [batch, tokens, dim] instead of pooled `sentence_embedding`. */
  tokenStates?: boolean;
  /** Also declare a token_type_ids input (ignored), as BERT-style exports do. */
  tokenTypeIds?: boolean;
  /** Input names (defaults: input_ids, attention_mask, token_type_ids). */
  names?: { inputIds?: string; attentionMask?: string; tokenTypeIds?: string };
}

export function biEncoderGraph(w: BiEncoderWeights, opts: BiEncoderGraphOptions = {}): GraphBuilder {
  const ids = opts.names?.inputIds ?? 'input_ids';
  const maskName = opts.names?.attentionMask ?? 'attention_mask';
  const g = new GraphBuilder('bi_encoder');
  g.input(ids, 'int64', ['batch', 'tokens']);
  g.input(maskName, 'int64', ['batch', 'tokens']);
  if (opts.tokenTypeIds) g.input(opts.names?.tokenTypeIds ?? 'token_type_ids', 'int64', ['batch', 'tokens']);
  g.initializer('embeddings', 'float', [w.vocab, w.hidden], w.embeddings);
  g.initializer('projection', 'float', [w.hidden, w.dim], w.projection);
  const tok = g.node('Gather', ['embeddings', ids], 'token_embeddings', { axis: int(0) });
  if (opts.tokenStates) {
    g.node('MatMul', [tok, 'projection'], 'last_hidden_state');
    g.output('last_hidden_state', 'float', ['batch', 'tokens', w.dim]);
    return g;
  }
  const mask = g.node('Cast', [maskName], 'mask_f', { to: int(1) });
  const mask3 = g.node('Unsqueeze', [mask, g.int64s([2])], 'mask_3');
  const masked = g.node('Mul', [tok, mask3]);
  const sum = g.node('ReduceSum', [masked, g.int64s([1])], 'sum', { keepdims: int(0) });
  const count = g.node('ReduceSum', [mask3, g.int64s([1])], 'count', { keepdims: int(0) });
  const safe = g.node('Max', [count, g.scalar(1e-9)]);
  const mean = g.node('Div', [sum, safe], 'mean');
  g.node('MatMul', [mean, 'projection'], 'sentence_embedding');
  g.output('sentence_embedding', 'float', ['batch', w.dim]);
  return g;
}

export interface CrossEncoderWeights {
  vocab: number;
  hidden: number;
  /** [vocab, hidden]; rows are L2-normalised by the graph (zero rows stay zero: use them for special tokens). */
  embeddings: Float32Array;
  /** Kernel centres and widths (K-NRM: 1.0 with a tiny width for exact match, then a spread). */
  mus: number[];
  sigmas: number[];
  /** [kernels] -> logit */
  weights: number[];
  bias: number;
}

export function crossEncoderGraph(w: CrossEncoderWeights): GraphBuilder {
  const K = w.mus.length;
  if (w.sigmas.length !== K || w.weights.length !== K) throw new Error('crossEncoderGraph: mus, sigmas and weights need the same length');
  // Normalise embedding rows here, once, so the graph is a plain lookup.
  const emb = new Float32Array(w.embeddings);
  for (let r = 0; r < w.vocab; r++) {
    let s = 0;
    for (let d = 0; d < w.hidden; d++) s += emb[r * w.hidden + d]! ** 2;
    const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
    for (let d = 0; d < w.hidden; d++) emb[r * w.hidden + d]! *= inv;
  }
  const g = new GraphBuilder('cross_encoder');
  g.input('input_ids', 'int64', ['batch', 'tokens']);
  g.input('attention_mask', 'int64', ['batch', 'tokens']);
  g.input('token_type_ids', 'int64', ['batch', 'tokens']);
  g.initializer('embeddings', 'float', [w.vocab, w.hidden], emb);
  g.initializer('mus', 'float', [K], Float32Array.from(w.mus));
  g.initializer('neg_inv_2sigma2', 'float', [K], Float32Array.from(w.sigmas.map((s) => -1 / (2 * s * s))));
  g.initializer('kernel_weights', 'float', [K, 1], Float32Array.from(w.weights));
  g.initializer('bias', 'float', [1], Float32Array.of(w.bias));
  const mask = g.node('Cast', ['attention_mask'], 'mask_f', { to: int(1) });
  const types = g.node('Cast', ['token_type_ids'], 'types_f', { to: int(1) });
  const ctxSel = g.node('Mul', [mask, g.node('Sub', [g.scalar(1), types])], 'ctx_sel'); // [B,T]
  const candSel = g.node('Mul', [mask, types], 'cand_sel'); // [B,T]
  // Positions 0..T-1, to keep the gathered tokens in order.
  const T = g.node('Gather', [g.node('Shape', ['input_ids']), g.constant('int64', [], BigInt64Array.of(1n), 'one')], 'T', { axis: int(0) });
  const pos = g.node('Cast', [g.node('Range', [g.constant('int64', [], BigInt64Array.of(0n), 'zero'), T, g.constant('int64', [], BigInt64Array.of(1n), 'step')])], 'pos', { to: int(1) });
  /** The tokens of one side, gathered to the front: ids [B, L] and their mask [B, L], L = the longest side in the batch. */
  const side = (sel: string, name: string): { ids: string; m: string } => {
    const count = g.node('ReduceSum', [sel, g.int64s([1])], `${name}_count`, { keepdims: int(0) }); // [B]
    const k = g.node('Cast', [g.node('ReduceMax', [count], `${name}_max`, { keepdims: int(1) })], `${name}_k`, { to: int(7) }); // [1]
    const key = g.node('Sub', [g.node('Mul', [sel, g.scalar(1e6)]), pos], `${name}_key`); // selected first, in position order
    const idx = `${name}_idx`;
    g.node('TopK', [key, k], [`${name}_topv`, idx], { axis: int(-1), largest: int(1), sorted: int(1) });
    return {
      ids: g.node('GatherElements', ['input_ids', idx], `${name}_ids`, { axis: int(1) }),
      m: g.node('GatherElements', [sel, idx], `${name}_mask`, { axis: int(1) }),
    };
  };
  const ctx = side(ctxSel, 'ctx');
  const cand = side(candSel, 'cand');
  const Eq = g.node('Gather', ['embeddings', ctx.ids], 'ctx_emb', { axis: int(0) }); // [B,Lq,H]
  const Ed = g.node('Gather', ['embeddings', cand.ids], 'cand_emb', { axis: int(0) }); // [B,Ld,H]
  const S = g.node('MatMul', [Ed, g.node('Transpose', [Eq], 'ctx_emb_t', { perm: { kind: 'ints', value: [0, 2, 1] } })], 'sim'); // [B,Ld,Lq]
  const diff = g.node('Sub', [g.node('Unsqueeze', [S, g.int64s([3])], 'sim4'), 'mus']); // [B,Ld,Lq,K]
  const kern = g.node('Exp', [g.node('Mul', [g.node('Mul', [diff, diff]), 'neg_inv_2sigma2'])], 'kernels');
  const ctx4 = g.node('Unsqueeze', [ctx.m, g.int64s([1, 3])], 'ctx_mask4'); // [B,1,Lq,1]
  const tf = g.node('ReduceSum', [g.node('Mul', [kern, ctx4]), g.int64s([2])], 'soft_tf', { keepdims: int(0) }); // [B,Ld,K]
  const logTf = g.node('Log', [g.node('Add', [tf, g.scalar(1)])], 'log_tf');
  const cand3 = g.node('Unsqueeze', [cand.m, g.int64s([2])], 'cand_mask3'); // [B,Ld,1]
  const feats = g.node('ReduceSum', [g.node('Mul', [logTf, cand3]), g.int64s([1])], 'features', { keepdims: int(0) }); // [B,K]
  g.node('Add', [g.node('MatMul', [feats, 'kernel_weights']), 'bias'], 'logits');
  g.output('logits', 'float', ['batch', 1]);
  return g;
}

/** Reference K-NRM score in JavaScript for one encoded pair (for tests of the graph). */
export function crossEncoderReference(w: CrossEncoderWeights, ids: number[], types: number[]): number {
  const H = w.hidden;
  const rows = ids.map((id) => {
    const r = w.embeddings.slice(id * H, id * H + H);
    const n = Math.sqrt(r.reduce((a, v) => a + v * v, 0));
    return n > 0 ? r.map((v) => v / n) : r;
  });
  const feats = w.mus.map(() => 0);
  for (let i = 0; i < ids.length; i++) {
    if (types[i] !== 1) continue;
    w.mus.forEach((mu, k) => {
      let tf = 0;
      for (let j = 0; j < ids.length; j++) {
        if (types[j] !== 0) continue;
        let s = 0;
        for (let d = 0; d < H; d++) s += rows[i]![d]! * rows[j]![d]!;
        tf += Math.exp(-((s - mu) ** 2) / (2 * w.sigmas[k]! ** 2));
      }
      feats[k]! += Math.log(1 + tf);
    });
  }
  return feats.reduce((a, f, k) => a + f * w.weights[k]!, w.bias);
}
