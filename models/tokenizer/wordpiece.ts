/**
 * A BERT-style WordPiece tokenizer in plain TypeScript: the same normalisation, pre-tokenisation
 * and greedy longest-match-first word pieces as Hugging Face's `tokenizer.json` with
 * BertNormalizer (lowercase, strip accents, clean text), BertPreTokenizer and the WordPiece model.
 * Training uses it for speed; the runtime loads the saved tokenizer.json with @xenova/transformers,
 * and a test checks both give the same ids.
 */

export const SPECIAL_TOKENS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;
export const PAD_ID = 0;
export const UNK_ID = 1;
export const CLS_ID = 2;
export const SEP_ID = 3;

function isPunctuation(ch: string): boolean {
  const cp = ch.codePointAt(0)!;
  if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126)) return true;
  return /\p{P}/u.test(ch);
}

function isControl(ch: string): boolean {
  if (ch === '\t' || ch === '\n' || ch === '\r') return false;
  return /\p{Cc}|\p{Cf}/u.test(ch);
}

function isChinese(cp: number): boolean {
  return (cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0x3400 && cp <= 0x4dbf) || (cp >= 0x20000 && cp <= 0x2a6df) || (cp >= 0x2a700 && cp <= 0x2b73f) ||
    (cp >= 0x2b740 && cp <= 0x2b81f) || (cp >= 0x2b820 && cp <= 0x2ceaf) || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0x2f800 && cp <= 0x2fa1f);
}

/** BertNormalizer + BertPreTokenizer: lower-cased, accent-free words and punctuation marks. */
export function basicTokens(text: string): string[] {
  let clean = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp === 0 || cp === 0xfffd || isControl(ch)) continue;
    if (/\s/u.test(ch)) clean += ' ';
    else if (isChinese(cp)) clean += ` ${ch} `;
    else clean += ch;
  }
  clean = clean.toLowerCase().normalize('NFD').replace(/\p{Mn}/gu, '');
  const out: string[] = [];
  for (const word of clean.split(/\s+/)) {
    if (!word) continue;
    let cur = '';
    for (const ch of word) {
      if (isPunctuation(ch)) {
        if (cur) out.push(cur);
        out.push(ch);
        cur = '';
      } else cur += ch;
    }
    if (cur) out.push(cur);
  }
  return out;
}

export class WordPiece {
  readonly vocab: Map<string, number>;
  readonly tokens: string[];
  private cache = new Map<string, number[]>();

  constructor(tokens: string[], readonly maxCharsPerWord = 100) {
    this.tokens = tokens;
    this.vocab = new Map(tokens.map((t, i) => [t, i]));
  }

  /** Word pieces of one basic token, as ids. */
  wordIds(word: string): number[] {
    const hit = this.cache.get(word);
    if (hit) return hit;
    const chars = [...word];
    let ids: number[] = [];
    if (chars.length > this.maxCharsPerWord) ids = [UNK_ID];
    else {
      let start = 0;
      while (start < chars.length) {
        let end = chars.length;
        let found = -1;
        while (start < end) {
          const piece = (start > 0 ? '##' : '') + chars.slice(start, end).join('');
          const id = this.vocab.get(piece);
          if (id !== undefined) {
            found = id;
            break;
          }
          end--;
        }
        if (found < 0) {
          ids = [UNK_ID];
          break;
        }
        ids.push(found);
        start = end;
      }
    }
    if (this.cache.size < 200_000) this.cache.set(word, ids);
    return ids;
  }

  /** Token ids of a text, without [CLS]/[SEP]. */
  encode(text: string): number[] {
    const out: number[] = [];
    for (const w of basicTokens(text)) for (const id of this.wordIds(w)) out.push(id);
    return out;
  }

  /** [CLS] a [SEP] (b [SEP]), truncated from the front of `a` (older context first) to fit maxLen. */
  encodeForModel(a: string, b?: string, maxLen = 256): { ids: number[]; typeIds: number[] } {
    let ai = this.encode(a);
    const bi = b === undefined ? [] : this.encode(b).slice(0, Math.max(8, Math.floor(maxLen / 2)));
    const room = maxLen - 2 - (b === undefined ? 0 : bi.length + 1);
    if (ai.length > room) ai = ai.slice(ai.length - room);
    const ids = [CLS_ID, ...ai, SEP_ID, ...(b === undefined ? [] : [...bi, SEP_ID])];
    const typeIds = ids.map((_, i) => (i < ai.length + 2 ? 0 : 1));
    return { ids, typeIds };
  }
}

/** The Hugging Face tokenizer.json for a WordPiece vocabulary, loadable by AutoTokenizer. */
export function tokenizerJson(tokens: string[]): object {
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map((content, id) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: true, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [CLS_ID], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [SEP_ID], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(tokens.map((t, i) => [t, i])),
    },
  };
}

export function tokenizerConfigJson(maxLength = 256): object {
  return {
    tokenizer_class: 'BertTokenizer',
    do_lower_case: true,
    model_max_length: maxLength,
    unk_token: '[UNK]', sep_token: '[SEP]', pad_token: '[PAD]', cls_token: '[CLS]', mask_token: '[MASK]',
  };
}
