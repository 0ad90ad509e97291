/**
 * Counts the word associations of models/runtime/associations.ts on the training split: for every
 * dialogue example, each source's tokens (the partner's last line, the speaker's own last line, the
 * speaker's persona, the partner's last action or emote) against the gold reply's tokens. Keeps the pairs seen in at least `minCount`
 * exchanges whose PMI is positive. Never counts the data being scored.
 */
import { readContext } from '../runtime/lexical.js';
import { ASSOCIATION_SOURCES, Associations, replyTokens, sourceTokens, type AssociationSource } from '../runtime/associations.js';

export interface AssociationExample {
  context: string;
  reply: string;
}

/** Pairs seen in fewer exchanges are dropped (2 kept the best held-out figures; 1 is 3x the size). */
export const MIN_PAIR_COUNT = 2;

export function fitAssociations(examples: Iterable<AssociationExample>, minCount = MIN_PAIR_COUNT): Associations {
  // word ids and packed pair keys keep millions of counts cheap
  const ids = new Map<string, number>();
  const words: string[] = [];
  const id = (w: string) => {
    let i = ids.get(w);
    if (i === undefined) {
      ids.set(w, (i = words.length));
      words.push(w);
    }
    return i;
  };
  const replyCount = new Map<number, number>();
  const count = Object.fromEntries(ASSOCIATION_SOURCES.map((s) => [s, { source: new Map<number, number>(), pair: new Map<number, number>() }])) as Record<AssociationSource, { source: Map<number, number>; pair: Map<number, number> }>;
  let n = 0;
  const PAIR = 2 ** 22;
  for (const ex of examples) {
    n++;
    const parts = readContext(ex.context);
    const reply = replyTokens(ex.reply).map(id);
    for (const r of reply) replyCount.set(r, (replyCount.get(r) ?? 0) + 1);
    for (const s of ASSOCIATION_SOURCES) {
      const c = count[s];
      for (const src of sourceTokens(s, parts).map(id)) {
        c.source.set(src, (c.source.get(src) ?? 0) + 1);
        for (const r of reply) {
          const k = src * PAIR + r;
          c.pair.set(k, (c.pair.get(k) ?? 0) + 1);
        }
      }
    }
  }
  if (words.length >= PAIR) throw new Error(`associations: ${words.length} distinct tokens, more than ${PAIR}`);
  const pairs = {} as Record<AssociationSource, Map<string, Map<string, number>>>;
  for (const s of ASSOCIATION_SOURCES) {
    const out = new Map<string, Map<string, number>>();
    const c = count[s];
    for (const [k, m] of c.pair) {
      if (m < minCount) continue;
      const src = Math.floor(k / PAIR);
      const r = k % PAIR;
      const pmi = Math.log((m * n) / (c.source.get(src)! * replyCount.get(r)!));
      if (pmi <= 0) continue;
      let row = out.get(words[src]!);
      if (!row) out.set(words[src]!, (row = new Map()));
      row.set(words[r]!, pmi);
    }
    pairs[s] = out;
  }
  return Associations.fromPairs(pairs, { exchanges: n, min_count: minCount });
}
