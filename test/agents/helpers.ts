/**
 * Helpers for the agent tests: a tiny real model directory (WordPiece tokenizer + ONNX bi-encoder
 * written with models/onnx), so the agent logic runs through the real runtime in CI without the
 * bundled model; the little test world as a world file; temp dirs.
 *
 * The tiny bi-encoder embeds each content word as a fixed pseudo-random ±1 vector (hashed from the
 * word, 96 dimensions); stop words, LIGHT's _prefix words and punctuation embed to zero. A text's
 * embedding is then its normalised bag of words, and cosine similarity tracks shared words.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { biEncoderGraph } from '../../models/onnx/builders.js';
import { withSpecialTokens, writeModelDir } from '../../models/runtime/write-model-dir.js';
import { EMOTES } from '../../server/engine/index.js';
import { LITTLE_WORLD } from '../fixtures/little-world.js';

const made: string[] = [];

export function tempDir(prefix = 'lightmud-agents-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}

export function cleanup(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

const ZERO = new Set([
  'a', 'an', 'the', 'i', 'you', 'me', 'my', 'your', 'is', 'are', 'to', 'of', 'and', 'in', 'on', 'it', 'that', 'this', 'task', 'speech', 'action',
  'emote', 'setting', 'name', 'desc', 'partner', 'self', 'persona', 'object', 'say', 'act', 'from',
]);

export function words(texts: string[]): string[] {
  const out = new Set<string>();
  for (const t of texts) for (const w of t.toLowerCase().split(/[^a-z0-9]+/)) if (w) out.add(w);
  return [...out].sort();
}

function hashVector(word: string, dim: number): Float32Array {
  let h = 2166136261;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619) >>> 0;
  const v = new Float32Array(dim);
  for (let d = 0; d < dim; d++) {
    h = Math.imul(h ^ (h >>> 13), 0x5bd1e995) >>> 0;
    v[d] = h & 1 ? 1 : -1;
  }
  return v;
}

/** A model directory whose vocabulary covers `texts` (plus the emotes and LIGHT's prefixes). */
export function makeAgentModel(texts: string[], dim = 96): string {
  const vocabWords = words([...texts, ...EMOTES, ...ZERO]);
  const vocab = withSpecialTokens([...vocabWords, '_', ':', ',', '.', '!', '?', "'", '"', '-']);
  const embeddings = new Float32Array(vocab.length * dim);
  vocab.forEach((w, i) => {
    if (ZERO.has(w) || !/^[a-z0-9]+$/.test(w)) return;
    embeddings.set(hashVector(w, dim), i * dim);
  });
  const projection = new Float32Array(dim * dim);
  for (let i = 0; i < dim; i++) projection[i * dim + i] = 1;
  const bi = biEncoderGraph({ vocab: vocab.length, hidden: dim, embeddings, dim, projection }).toModelBytes();
  const dir = tempDir('lightmud-agent-model-');
  return writeModelDir(dir, {
    vocab,
    biEncoder: bi,
    config: {
      format: 'lightmud-model', version: 1, name: 'tiny agent test model',
      bi_encoder: { file: 'onnx/bi_encoder.onnx', inputs: ['input_ids', 'attention_mask'], output: 'sentence_embedding', pooling: 'none', max_tokens: 256 },
    },
  });
}

/** Utterances for the tiny model's pool. */
export const UTTERANCES = [
  'Good morning to you!',
  'Those cabbages will not grow themselves.',
  'Keep your orc hands off my garden.',
  'I like shiny rings more than anything.',
  'Have you seen my apple?',
  'The ale is for after the digging.',
  'What a fine day for weeding.',
  'Purr. I am going to nap in the sun.',
  'Go away, you smelly orc.',
  'A ring! Give me the ring!',
  'I am so tired of this muddy road.',
  'The shed is haunted, you know.',
];

/** The texts a model for the little world should know. */
export function littleWorldTexts(): string[] {
  const w = LITTLE_WORLD;
  return [
    ...(w.rooms ?? []).flatMap((r) => [r.name, r.description, r.category]),
    ...(w.characters ?? []).flatMap((c) => [c.name, c.persona]),
    ...(w.objects ?? []).flatMap((o) => [o.name, o.description]),
    ...UTTERANCES,
    'get give drop put wear wield remove eat drink hit hug steal',
  ];
}

/** The little world as a file, with policies set per character. */
export function writeLittleWorld(dir: string, policies: Record<string, string> = {}): string {
  const data = structuredClone(LITTLE_WORLD) as unknown as { characters: { id: string; policy?: string }[] };
  for (const c of data.characters) if (policies[c.id]) c.policy = policies[c.id];
  const file = join(dir, 'little-world.json');
  writeFileSync(file, JSON.stringify(data));
  return file;
}

export function writeUtterances(dir: string): string {
  const file = join(dir, 'utterances.txt');
  writeFileSync(file, UTTERANCES.join('\n') + '\n');
  return file;
}
