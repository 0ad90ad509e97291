/**
 * A tiny, real model directory for the tests: a WordPiece tokenizer over a few dozen words and
 * ONNX graphs built with models/onnx whose weights make rankings predictable.
 *
 *  - bi-encoder: every content word has its own one-hot embedding; stop words, punctuation and
 *    special tokens embed to zero. So a text's embedding is its normalised bag of content words and
 *    the cosine of two texts counts shared content words.
 *  - cross-encoder: K-NRM with one exact-match kernel: logit = sum over candidate words of
 *    ln(1 + times the word occurs in the context).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { biEncoderGraph, crossEncoderGraph, type BiEncoderGraphOptions } from '../../models/onnx/builders.js';
import { EMOTES } from '../../models/runtime/emotes.js';
import { withSpecialTokens, writeModelDir } from '../../models/runtime/write-model-dir.js';

export const CONTENT_WORDS = [
  'sword', 'shield', 'bread', 'ale', 'king', 'queen', 'dragon', 'gold', 'hello', 'goodbye', 'hungry', 'eat', 'drink',
  'fight', 'run', 'castle', 'forest', 'give', 'get', 'hit', 'hug', 'key', 'door', 'joke', 'funny', 'sad', 'tired',
  ...EMOTES,
];
export const STOP = ['the', 'a', 'i', 'you', 'my', 'is', 'want', 'to', 'me', 'your', 'here', 'what', 'that', 'was', 'task', 'speech',
  'action', 'emote', 'self', 'partner', 'say', 'act', 'setting', 'name', 'desc', 'persona', 'object', '_', ',', '.', '!', '?', ':'];

export const VOCAB = withSpecialTokens([...STOP, ...CONTENT_WORDS]);

export function oneHotEmbeddings(scale = 1): { embeddings: Float32Array; hidden: number } {
  const hidden = CONTENT_WORDS.length;
  const embeddings = new Float32Array(VOCAB.length * hidden);
  CONTENT_WORDS.forEach((w, k) => {
    const id = VOCAB.indexOf(w);
    embeddings[id * hidden + k] = scale;
  });
  return { embeddings, hidden };
}

/** A fixed rotation-free projection: 2 * identity (normalisation removes the scale). */
export function identityProjection(n: number, scale = 2): Float32Array {
  const p = new Float32Array(n * n);
  for (let i = 0; i < n; i++) p[i * n + i] = scale;
  return p;
}

export function biEncoderBytes(opts: BiEncoderGraphOptions = {}, scale = 1): Uint8Array {
  const { embeddings, hidden } = oneHotEmbeddings(scale);
  return biEncoderGraph({ vocab: VOCAB.length, hidden, embeddings, dim: hidden, projection: identityProjection(hidden) }, opts).toModelBytes();
}

export function crossEncoderBytes(): Uint8Array {
  const { embeddings, hidden } = oneHotEmbeddings();
  return crossEncoderGraph({ vocab: VOCAB.length, hidden, embeddings, mus: [1], sigmas: [0.001], weights: [1], bias: 0 }).toModelBytes();
}

export interface TinyModelOptions {
  bi?: BiEncoderGraphOptions;
  /** Scale of the bi-encoder's embeddings (changes the .onnx bytes, not the rankings). */
  scale?: number;
  cross?: boolean;
  /** lightmud.json; null: write none. */
  config?: object | null;
}

export const DEFAULT_CONFIG = {
  format: 'lightmud-model',
  version: 1,
  name: 'tiny test model',
  bi_encoder: { file: 'onnx/bi_encoder.onnx', inputs: ['input_ids', 'attention_mask'], output: 'sentence_embedding', pooling: 'none', max_tokens: 64 },
  cross_encoder: { file: 'onnx/cross_encoder.onnx', inputs: ['input_ids', 'attention_mask', 'token_type_ids'], output: 'logits', max_tokens: 96 },
};

const made: string[] = [];

export function tempDir(prefix = 'lightmud-rankers-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}

export function cleanupTempDirs(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

export function makeTinyModel(opts: TinyModelOptions = {}): string {
  const dir = tempDir();
  const cross = opts.cross ?? true;
  const config = opts.config === undefined ? (cross ? DEFAULT_CONFIG : { ...DEFAULT_CONFIG, cross_encoder: undefined }) : opts.config ?? undefined;
  return writeModelDir(dir, {
    vocab: VOCAB,
    biEncoder: biEncoderBytes(opts.bi, opts.scale),
    crossEncoder: cross ? crossEncoderBytes() : undefined,
    config,
  });
}
