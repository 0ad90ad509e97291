/**
 * Noun phrases to nodes: "the 2nd scroll", "scroll 2", "rusty sw", "orc". Articles are ignored,
 * words may be prefixes of the name's words, an exact name wins over partial ones, and ordinals
 * pick among duplicates. The result keeps every match in preference order; the caller decides
 * which one makes its action succeed, and asks when differently named things remain.
 */
import type { NodeId } from './types.js';
import type { World } from './world.js';

const ARTICLES = new Set(['a', 'an', 'the', 'some', 'my', 'your', 'his', 'her', 'their', 'its']);
const ORDINAL_WORDS: Record<string, number> = {
  first: 1, second: 2, third: 3, fourth: 4, fifth: 5, sixth: 6, seventh: 7, eighth: 8, ninth: 9, tenth: 10,
};

export interface Phrase {
  words: string[];
  /** 1-based ordinal, if one was given. */
  ordinal?: number;
  text: string;
}

export function normaliseWords(text: string): string[] {
  return text.toLowerCase().replace(/[^\p{L}\p{N}'\- ]+/gu, ' ').split(/\s+/).filter(Boolean);
}

export function parsePhrase(text: string): Phrase {
  let words = normaliseWords(text);
  let ordinal: number | undefined;
  // "2.scroll"
  const dotted = /^(\d+)\.(.+)$/.exec(text.trim());
  if (dotted) {
    ordinal = Number(dotted[1]);
    words = normaliseWords(dotted[2]!);
  }
  words = words.filter((w, i) => !(i === 0 && ARTICLES.has(w)));
  const first = words[0];
  if (ordinal === undefined && first !== undefined) {
    const m = /^(\d+)(st|nd|rd|th)$/.exec(first);
    if (m) ordinal = Number(m[1]);
    else if (ORDINAL_WORDS[first]) ordinal = ORDINAL_WORDS[first];
    if (ordinal !== undefined) words = words.slice(1).filter((w, i) => !(i === 0 && ARTICLES.has(w)));
  }
  const last = words[words.length - 1];
  if (ordinal === undefined && words.length > 1 && last !== undefined && /^\d+$/.test(last)) {
    ordinal = Number(last);
    words = words.slice(0, -1);
  }
  return { words, ordinal, text: text.trim() };
}

/**
 * How well a phrase names a node: 2 exact, 1 partial (each word the start of a name word, or the end
 * of a compound one, in order), 0 no.
 */
export function matchScore(phrase: Phrase, name: string): 0 | 1 | 2 {
  const nameWords = normaliseWords(name);
  if (phrase.words.length === 0) return 0;
  if (phrase.words.join(' ') === nameWords.join(' ')) return 2;
  let j = 0;
  for (const w of phrase.words) {
    // a word may start a name word ("shov" -> shovel) or end a compound one ("bell" -> handbell)
    while (j < nameWords.length && !nameWords[j]!.startsWith(w) && !(w.length >= 3 && nameWords[j]!.endsWith(w))) j++;
    if (j === nameWords.length) return 0;
    j++;
  }
  return 1;
}

export type Resolution =
  | { kind: 'found'; ids: NodeId[] }
  | { kind: 'none' }
  | { kind: 'ordinal_out_of_range'; count: number };

/**
 * Nodes among `pool` named by `text`, best first: exact names before partial ones. With an
 * ordinal, exactly that one of the matches (in pool order). A name that itself ends in a number
 * or starts with an ordinal word ("kha warrior 2", "first mate") is matched whole before any
 * ordinal is read from it; when the ordinal reading finds too few, the whole words are tried.
 */
export function resolve(world: World, text: string, pool: NodeId[]): Resolution {
  const phrase = parsePhrase(text);
  const whole = pool.filter((id) => exactName(text, world.node(id)?.name ?? ''));
  if (whole.length) return { kind: 'found', ids: whole };
  const r = resolvePhrase(world, phrase, pool);
  if (phrase.ordinal === undefined || r.kind !== 'ordinal_out_of_range') return r;
  const partial = resolvePhrase(world, literalPhrase(text), pool);
  return partial.kind === 'found' ? partial : r;
}

/** The phrase's words with a leading article dropped and no ordinal read from them. */
function literalPhrase(text: string): Phrase {
  const words = normaliseWords(text);
  if (words.length > 1 && ARTICLES.has(words[0]!)) words.shift();
  return { words, text: text.trim() };
}

const sameWords = (x: string[], y: string[]) => x.length > 0 && x.length === y.length && x.every((w, i) => w === y[i]);

/** `text` is `name`, word for word, with or without a leading article on either. */
export function exactName(text: string, name: string): boolean {
  const t = normaliseWords(text);
  const n = normaliseWords(name);
  return sameWords(t, n) || (ARTICLES.has(t[0] ?? '') && sameWords(t.slice(1), n)) || (ARTICLES.has(n[0] ?? '') && sameWords(t, n.slice(1)));
}

function resolvePhrase(world: World, phrase: Phrase, pool: NodeId[]): Resolution {
  const scored = pool
    .map((id) => ({ id, score: matchScore(phrase, world.node(id)?.name ?? '') }))
    .filter((m) => m.score > 0);
  if (scored.length === 0) return { kind: 'none' };
  const exact = scored.filter((m) => m.score === 2);
  const matches = (exact.length ? exact : scored).map((m) => m.id);
  if (phrase.ordinal !== undefined) {
    const pick = matches[phrase.ordinal - 1];
    return pick ? { kind: 'found', ids: [pick] } : { kind: 'ordinal_out_of_range', count: matches.length };
  }
  return { kind: 'found', ids: matches };
}

/** Does `text` name `id` exactly (its whole name, articles aside)? */
export function namesExactly(world: World, text: string, id: NodeId): boolean {
  const name = world.node(id)?.name ?? '';
  return exactName(text, name) || matchScore(parsePhrase(text), name) === 2;
}

/** Distinct names among ids, in order; names differing only in case are one ("Farmhouse", "farmhouse"). */
export function distinctNames(world: World, ids: NodeId[]): string[] {
  const byKey = new Map<string, string>();
  for (const id of ids) {
    const name = world.node(id)?.name ?? id;
    if (!byKey.has(name.toLowerCase())) byKey.set(name.toLowerCase(), name);
  }
  return [...byKey.values()];
}
