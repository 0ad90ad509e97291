/**
 * Writes a model directory in the layout the runtime reads (see model-dir.ts): a BERT-style
 * WordPiece tokenizer.json + tokenizer_config.json, onnx/*.onnx and lightmud.json. Used by the
 * tests and the bench to make small real models, and by training to export.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SPECIAL_TOKENS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;

/** The vocabulary with the special tokens first: [PAD]=0, [UNK]=1, [CLS]=2, [SEP]=3, [MASK]=4. */
export function withSpecialTokens(words: string[]): string[] {
  const seen = new Set<string>(SPECIAL_TOKENS);
  const out: string[] = [...SPECIAL_TOKENS];
  for (const w of words) if (!seen.has(w)) {
    seen.add(w);
    out.push(w);
  }
  return out;
}

/** A lowercasing BERT WordPiece tokenizer.json over `vocab` (which must include the special tokens). */
export function wordPieceTokenizerJson(vocab: string[]): object {
  const ids: Record<string, number> = {};
  vocab.forEach((t, i) => (ids[t] = i));
  for (const s of SPECIAL_TOKENS) if (ids[s] === undefined) throw new Error(`tokenizer vocabulary lacks ${s}`);
  const cls = ids['[CLS]']!;
  const sep = ids['[SEP]']!;
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map((content) => ({ id: ids[content], content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [cls], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [sep], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: ids },
  };
}

export const TOKENIZER_CONFIG = {
  tokenizer_class: 'BertTokenizer',
  do_lower_case: true,
  model_max_length: 512,
  cls_token: '[CLS]',
  sep_token: '[SEP]',
  pad_token: '[PAD]',
  unk_token: '[UNK]',
  mask_token: '[MASK]',
};

export function writeTokenizer(dir: string, vocab: string[]): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(wordPieceTokenizerJson(vocab)));
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify(TOKENIZER_CONFIG, null, 2));
}

export interface ModelDirFiles {
  vocab: string[];
  biEncoder: Uint8Array;
  crossEncoder?: Uint8Array;
  /** lightmud.json contents; omitted: no lightmud.json (everything inferred). */
  config?: object;
}

export function writeModelDir(dir: string, files: ModelDirFiles): string {
  writeTokenizer(dir, files.vocab);
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  writeFileSync(join(dir, 'onnx', 'bi_encoder.onnx'), files.biEncoder);
  if (files.crossEncoder) writeFileSync(join(dir, 'onnx', 'cross_encoder.onnx'), files.crossEncoder);
  if (files.config) writeFileSync(join(dir, 'lightmud.json'), JSON.stringify(files.config, null, 2));
  return dir;
}
