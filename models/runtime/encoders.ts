/**
 * The bi-encoder (text -> normalised embedding) and the cross-encoder ((context, candidate) -> logit).
 * The ONNX sessions run on the inference thread (session.ts), so inference does not block the event
 * loop; what stays on the calling thread (tokenising, pooling) is small per call, and long jobs
 * (encoding a pool) yield between batches.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ModelError } from './errors.js';
import type { EncoderSpec, InputRole, Pooling } from './model-dir.js';
import { feedsFor, openSession, resolveInputs, runSession, type Session, type SessionOptions } from './session.js';
import type { EncodedBatch, Tokenizer } from './tokenizer.js';

const TOKEN_OUTPUTS = ['last_hidden_state', 'token_embeddings'];

const yieldToLoop = (): Promise<void> => new Promise((r) => setImmediate(r));

/** L2-normalises each row of a [rows, dim] matrix in place. */
export function normalizeRows(m: Float32Array, dim: number): Float32Array {
  for (let o = 0; o < m.length; o += dim) {
    let s = 0;
    for (let d = 0; d < dim; d++) s += m[o + d]! * m[o + d]!;
    const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
    for (let d = 0; d < dim; d++) m[o + d]! *= inv;
  }
  return m;
}

/** Masked mean (or first-token) pooling of token states [batch, tokens, dim] into [batch, dim]. */
export function poolTokens(states: Float32Array, batch: EncodedBatch, dim: number, pooling: Exclude<Pooling, 'none'>): Float32Array {
  const out = new Float32Array(batch.batch * dim);
  const T = batch.length;
  for (let b = 0; b < batch.batch; b++) {
    const o = b * dim;
    if (pooling === 'cls') {
      out.set(states.subarray(b * T * dim, b * T * dim + dim), o);
      continue;
    }
    let count = 0;
    for (let t = 0; t < T; t++) {
      if (batch.attentionMask[b * T + t] === 0n) continue;
      count++;
      const s = (b * T + t) * dim;
      for (let d = 0; d < dim; d++) out[o + d]! += states[s + d]!;
    }
    const inv = 1 / Math.max(count, 1e-9);
    for (let d = 0; d < dim; d++) out[o + d]! *= inv;
  }
  return out;
}

export class BiEncoder {
  private constructor(
    private readonly session: Session,
    readonly tokenizer: Tokenizer,
    readonly spec: EncoderSpec,
    private readonly inputs: Partial<Record<InputRole, string>>,
    readonly output: string,
    readonly pooling: Pooling,
    /** Changes when the model file, the tokenizer or the encoding settings change: the pool cache key. */
    readonly fingerprint: string,
  ) {}

  /** Output dimension, known after the first encode. */
  dim = 0;

  static async load(spec: EncoderSpec, tokenizer: Tokenizer, opts: SessionOptions = {}): Promise<BiEncoder> {
    const h = createHash('sha256');
    h.update(readFileSync(spec.path));
    for (const f of ['tokenizer.json', 'tokenizer_config.json']) h.update(readFileSync(join(tokenizer.dir, f)));
    const session = await openSession(spec.path, spec.path, opts);
    const inputs = resolveInputs(session, spec.path, spec.inputs, 'bi-encoder');
    const outs = session.outputNames;
    const output = spec.output ?? (outs.includes('sentence_embedding') ? 'sentence_embedding' : TOKEN_OUTPUTS.find((o) => outs.includes(o)));
    if (!output || !outs.includes(output)) {
      throw new ModelError(`${spec.path}: has no output ${output ? `"${output}"` : '"sentence_embedding" or "last_hidden_state"'} (its outputs: ${outs.join(', ')}); set bi_encoder.output in lightmud.json`);
    }
    const pooling: Pooling = spec.pooling ?? (TOKEN_OUTPUTS.includes(output) ? 'mean' : 'none');
    h.update(JSON.stringify({ inputs, output, pooling, maxTokens: spec.maxTokens }));
    return new BiEncoder(session, tokenizer, spec, inputs, output, pooling, h.digest('hex'));
  }

  /** Embeddings [texts.length, dim], L2-normalised, in one batch (texts truncated to max_tokens). */
  async encode(texts: string[], maxTokens = this.spec.maxTokens): Promise<Float32Array> {
    if (texts.length === 0) return new Float32Array(0);
    const batch = this.tokenizer.encode(texts, maxTokens);
    const t = await runSession(this.session, feedsFor(this.inputs, batch), this.output);
    const data = t.data as Float32Array;
    let pooled: Float32Array;
    let dim: number;
    if (this.pooling === 'none') {
      if (t.dims.length !== 2 || t.dims[0] !== batch.batch) {
        throw new ModelError(`${this.spec.path}: output "${this.output}" has shape [${t.dims.join(', ')}], expected [batch, dim] (use pooling "mean" or "cls" for token states)`);
      }
      dim = t.dims[1]!;
      pooled = new Float32Array(data); // copy: onnxruntime may reuse its buffer
    } else {
      if (t.dims.length !== 3 || t.dims[0] !== batch.batch || t.dims[1] !== batch.length) {
        throw new ModelError(`${this.spec.path}: output "${this.output}" has shape [${t.dims.join(', ')}], expected [batch, tokens, dim] for ${this.pooling} pooling`);
      }
      dim = t.dims[2]!;
      pooled = poolTokens(data, batch, dim, this.pooling);
    }
    this.dim = dim;
    return normalizeRows(pooled, dim);
  }

  /**
   * Encodes many texts in batches of similar length (less padding), yielding to the event loop
   * between batches. Returns [texts.length, dim] in the input order.
   */
  async encodeMany(texts: string[], opts: { batchSize?: number; onProgress?: (done: number, total: number) => void } = {}): Promise<Float32Array> {
    const batchSize = opts.batchSize ?? 128;
    const order = texts.map((t, i) => ({ i, len: t.length })).sort((a, b) => a.len - b.len);
    let out: Float32Array | undefined;
    for (let s = 0; s < order.length; s += batchSize) {
      const chunk = order.slice(s, s + batchSize);
      const emb = await this.encode(chunk.map((c) => texts[c.i]!));
      out ??= new Float32Array(texts.length * this.dim);
      chunk.forEach((c, j) => out!.set(emb.subarray(j * this.dim, (j + 1) * this.dim), c.i * this.dim));
      opts.onProgress?.(Math.min(s + batchSize, texts.length), texts.length);
      if (s + batchSize < order.length) await yieldToLoop();
    }
    return out ?? new Float32Array(0);
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}

export class CrossEncoder {
  private constructor(
    private readonly session: Session,
    readonly tokenizer: Tokenizer,
    readonly spec: EncoderSpec,
    private readonly inputs: Partial<Record<InputRole, string>>,
    readonly output: string,
  ) {}

  static async load(spec: EncoderSpec, tokenizer: Tokenizer, opts: SessionOptions = {}): Promise<CrossEncoder> {
    const session = await openSession(spec.path, spec.path, opts);
    const inputs = resolveInputs(session, spec.path, spec.inputs, 'cross-encoder');
    const outs = session.outputNames;
    const output = spec.output ?? (outs.includes('logits') ? 'logits' : outs.length === 1 ? outs[0] : undefined);
    if (!output || !outs.includes(output)) {
      throw new ModelError(`${spec.path}: has no output ${output ? `"${output}"` : '"logits"'} (its outputs: ${outs.join(', ')}); set cross_encoder.output in lightmud.json`);
    }
    return new CrossEncoder(session, tokenizer, spec, inputs, output);
  }

  /** One logit per candidate for the pairs (context, candidate). */
  async score(context: string, candidates: string[], batchSize = 32): Promise<Float32Array> {
    const out = new Float32Array(candidates.length);
    for (let s = 0; s < candidates.length; s += batchSize) {
      const chunk = candidates.slice(s, s + batchSize);
      const batch = this.tokenizer.encodePairs(context, chunk, this.spec.maxTokens);
      const t = await runSession(this.session, feedsFor(this.inputs, batch), this.output);
      const ok = t.dims[0] === chunk.length && (t.dims.length === 1 || (t.dims.length === 2 && t.dims[1] === 1));
      if (!ok) throw new ModelError(`${this.spec.path}: output "${this.output}" has shape [${t.dims.join(', ')}], expected [batch, 1]`);
      out.set(t.data as Float32Array, s);
    }
    return out;
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}
