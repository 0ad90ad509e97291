/**
 * Build a WordPiece vocabulary: special tokens, single characters (plain and ##-continued), common
 * suffix pieces, every word of the training texts, then the most frequent pretrained words up to
 * the size budget, so words players type that the corpus never used still get a known vector.
 */
import { basicTokens, SPECIAL_TOKENS } from '../tokenizer/wordpiece.js';

const SUFFIXES = ['s', 'es', 'ed', 'ing', 'ly', 'er', 'ers', 'est', 'ness', 'ment', 'ful', 'less', 'able', 'ion', 'ions', 'y', 'ies', 'ish', "'s", 'n', 'd', 'en'];

export interface VocabOptions {
  size: number;
  /** Words of the pretrained embeddings, most frequent first. */
  pretrainedWords?: string[];
  /** Corpus words seen fewer times than this are left to word pieces unless pretrained. */
  minCount?: number;
}

export function buildVocab(texts: Iterable<string>, opts: VocabOptions): string[] {
  const counts = new Map<string, number>();
  for (const t of texts) for (const w of basicTokens(t)) counts.set(w, (counts.get(w) ?? 0) + 1);
  const tokens: string[] = [...SPECIAL_TOKENS];
  const seen = new Set<string>(tokens);
  const add = (t: string) => {
    if (!seen.has(t) && tokens.length < opts.size) {
      seen.add(t);
      tokens.push(t);
    }
  };
  const chars = new Set<string>();
  for (const w of counts.keys()) for (const ch of w) chars.add(ch);
  for (const ch of 'abcdefghijklmnopqrstuvwxyz0123456789.,!?;:\'"-()[]{}<>/\\@#$%^&*_+=~`|') chars.add(ch);
  const sortedChars = [...chars].sort();
  for (const ch of sortedChars) add(ch);
  for (const ch of sortedChars) if (!/\p{P}/u.test(ch)) add(`##${ch}`);
  for (const s of SUFFIXES) add(`##${s}`);
  const minCount = opts.minCount ?? 1;
  const pretrained = new Set(opts.pretrainedWords ?? []);
  const corpusWords = [...counts.entries()]
    .filter(([w, c]) => c >= minCount || pretrained.has(w))
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([w]) => w);
  for (const w of corpusWords) add(w);
  for (const w of opts.pretrainedWords ?? []) {
    if (tokens.length >= opts.size) break;
    if (/^[a-z][a-z'-]*$/.test(w)) add(w);
  }
  return tokens;
}
