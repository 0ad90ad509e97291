/** The project's WordPiece tokenizer: its tokenizer.json loads in @xenova/transformers and agrees with the training-time encoder. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AutoTokenizer, env } from '@xenova/transformers';
import { basicTokens, tokenizerConfigJson, tokenizerJson, WordPiece } from '../models/tokenizer/wordpiece.js';
import { buildVocab } from '../models/training/vocab.js';

const texts = [
  'Could you hand me that rake? I need it for the cabbages.',
  "The orc's club is knotted, and he WIELDS it with Ünïcode flair!",
  'give rake to gardener',
  '_setting_name Walled Garden, Farm\n_partner_say hello there',
];

describe('WordPiece tokenizer', () => {
  it('splits like BERT: lower case, accents stripped, punctuation apart', () => {
    expect(basicTokens("The orc's CLUB, ünïcode!")).toEqual(['the', 'orc', "'", 's', 'club', ',', 'unicode', '!']);
  });

  it('builds a vocabulary with corpus words first and falls back to pieces', () => {
    const vocab = buildVocab(texts, { size: 400, pretrainedWords: ['sword', 'shield', 'the'] });
    expect(vocab.slice(0, 5)).toEqual(['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']);
    expect(vocab).toContain('rake');
    expect(vocab).toContain('sword');
    const wp = new WordPiece(vocab);
    const ids = wp.encode('rakes');
    expect(ids.map((i) => vocab[i])).toEqual(['rake', '##s']);
  });

  it('saves a tokenizer.json that AutoTokenizer loads from a local path and encodes identically', async () => {
    const vocab = buildVocab(texts, { size: 300 });
    const dir = mkdtempSync(join(tmpdir(), 'lightmud-tok-'));
    writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJson(vocab)));
    writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify(tokenizerConfigJson()));
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = dirname(dir);
    const tok = await AutoTokenizer.from_pretrained(basename(dir));
    const wp = new WordPiece(vocab);
    for (const t of [...texts, 'zebra xylophone quux', '   ', 'a\u0000b\u200bc']) {
      const theirs = Array.from((tok(t) as { input_ids: { data: BigInt64Array } }).input_ids.data, Number);
      expect(theirs, t).toEqual(wp.encodeForModel(t).ids);
    }
    const pair = tok(texts[0]!, { text_pair: texts[2]! }) as { input_ids: { data: BigInt64Array }; token_type_ids: { data: BigInt64Array } };
    const mine = wp.encodeForModel(texts[0]!, texts[2]!);
    expect(Array.from(pair.input_ids.data, Number)).toEqual(mine.ids);
    expect(Array.from(pair.token_type_ids.data, Number)).toEqual(mine.typeIds);
  });
});
