/**
 * Exact word evidence for ranking: words, TF-IDF vectors over a fixed document-frequency table, and
 * a LIGHT-format context read back into its parts (setting, persona, objects, who said what).
 *
 * The document frequencies are never fitted on the data being scored: they come from the training
 * split (stored in the model directory's `hybrid.json`) or from the live candidate pool.
 */

/** Words the lexical features ignore: articles, pronouns, auxiliaries and the like. */
export const STOP_WORDS = new Set(
  ('a an the and or but if of to in on at by for with from into onto as is are was were be been am i me my you your he him his ' +
    'she her it its we us our they them their this that these those there here what which who whom do does did not no so than ' +
    'too very can will just s t')
    .split(' '),
);

/** A whitespace token starting with "_" (LIGHT's prefixes), or a run of letters, digits and apostrophes. */
const IR_TOKEN = /(?<!\S)_\S*|[a-z0-9']+/g;

/** Lowercased runs of letters, digits and apostrophes; LIGHT's `_prefix` tokens and stop words dropped. */
export function irWords(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(IR_TOKEN)) {
    let word = m[0];
    if (word.charCodeAt(0) === 95 /* _ */) continue;
    if (word.charCodeAt(0) === 39 || word.charCodeAt(word.length - 1) === 39) word = word.replace(/^'+|'+$/g, '');
    if (word && !STOP_WORDS.has(word)) out.push(word);
  }
  return out;
}

/** Every lowercased word, stop words included (for pronouns, questions, greetings). */
export function allWords(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9']+/g) ?? [];
}

export interface TfIdfVector {
  weights: Map<string, number>;
  norm: number;
}

export const EMPTY_VECTOR: TfIdfVector = { weights: new Map(), norm: 0 };

/**
 * Document frequencies of words over N documents; idf(w) = ln((1 + N) / (1 + df(w))) + 1. Words are
 * `irWords` (stop words dropped) unless another word function is given (`allWords` keeps "who",
 * "you" and "any", which tell questions apart).
 */
export class DocFrequencies {
  readonly df = new Map<string, number>();
  docs = 0;

  constructor(private readonly words: (text: string) => string[] = irWords) {}

  /** Counts each word once per document. */
  add(documents: Iterable<string>): this {
    this.memo.clear();
    for (const d of documents) {
      this.docs++;
      for (const w of new Set(this.words(d))) this.df.set(w, (this.df.get(w) ?? 0) + 1);
    }
    return this;
  }

  idf(word: string): number {
    return Math.log((1 + this.docs) / (1 + (this.df.get(word) ?? 0))) + 1;
  }

  /**
   * Recent vectors by text: live play scores the same pool lines, personas, settings and objects
   * turn after turn. Bounded; emptied when full. Vectors are shared: never change one.
   */
  private readonly memo = new Map<string, TfIdfVector>();

  /** Sublinear TF (1 + ln tf) times IDF. */
  vector(text: string): TfIdfVector {
    let v = this.memo.get(text);
    if (v) return v;
    v = this.compute(text);
    if (this.memo.size >= 20_000) this.memo.clear();
    this.memo.set(text, v);
    return v;
  }

  private compute(text: string): TfIdfVector {
    const tf = new Map<string, number>();
    for (const w of this.words(text)) tf.set(w, (tf.get(w) ?? 0) + 1);
    const weights = new Map<string, number>();
    let sq = 0;
    for (const [w, c] of tf) {
      const v = (1 + Math.log(c)) * this.idf(w);
      weights.set(w, v);
      sq += v * v;
    }
    return { weights, norm: Math.sqrt(sq) };
  }

  toJSON(): { docs: number; df: Record<string, number> } {
    return { docs: this.docs, df: Object.fromEntries([...this.df].sort((a, b) => (a[0] < b[0] ? -1 : 1))) };
  }

  static fromJSON(data: { docs: number; df: Record<string, number> }): DocFrequencies {
    const f = new DocFrequencies();
    f.docs = data.docs;
    for (const [w, n] of Object.entries(data.df)) f.df.set(w, n);
    return f;
  }
}

/** Cosine of two TF-IDF vectors (0 when either is empty). */
export function cosine(a: TfIdfVector, b: TfIdfVector): number {
  if (a.norm === 0 || b.norm === 0) return 0;
  const [small, large] = a.weights.size <= b.weights.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [w, v] of small.weights) dot += v * (large.weights.get(w) ?? 0);
  return dot / (a.norm * b.norm);
}

export interface HistoryLine {
  who: 'self' | 'partner';
  kind: 'say' | 'act' | 'emote';
  text: string;
}

/** A LIGHT-format context read back into its parts. */
export interface ContextParts {
  task: string;
  setting: string;
  partner: string;
  self: string;
  persona: string;
  objects: string;
  history: HistoryLine[];
  /** The whole context, for the IR feature. */
  all: string;
}

const HISTORY = /^_(self|partner)_(say|act|emote) ?(.*)$/;

export function readContext(context: string): ContextParts {
  const parts: ContextParts = { task: '', setting: '', partner: '', self: '', persona: '', objects: '', history: [], all: context };
  const objects: string[] = [];
  for (const line of context.split('\n')) {
    const h = HISTORY.exec(line);
    if (h) {
      parts.history.push({ who: h[1] as 'self' | 'partner', kind: h[2] as 'say' | 'act' | 'emote', text: h[3]! });
      continue;
    }
    const space = line.indexOf(' ');
    const key = space < 0 ? line : line.slice(0, space);
    const value = space < 0 ? '' : line.slice(space + 1);
    if (key.startsWith('_task_')) parts.task = key.slice(6);
    else if (key === '_setting_name' || key === '_setting_desc') parts.setting += (parts.setting ? ' ' : '') + value;
    else if (key === '_partner_name') parts.partner = value;
    else if (key === '_self_name') parts.self = value;
    else if (key === '_self_persona') parts.persona = value;
    else if (key === '_object_desc') objects.push(value);
  }
  parts.objects = objects.join(' ');
  return parts;
}

/** Does a line ask (end in "?", closing quotes or brackets allowed)? */
export function isQuestion(text: string): boolean {
  return /\?\s*["')]*\s*$/.test(text);
}

/** The last history line matching `who` and `kind`, if any. */
export function lastOf(history: HistoryLine[], who: 'self' | 'partner', kind: 'say' | 'act' | 'emote'): HistoryLine | undefined {
  for (let i = history.length - 1; i >= 0; i--) if (history[i]!.who === who && history[i]!.kind === kind) return history[i];
  return undefined;
}

/**
 * An inverted index over candidate texts for retrieval by word overlap: the rows sharing the
 * query's rarer words, ranked by TF-IDF cosine. Words in more than `maxShare` of the rows are not
 * followed (they match nearly everything and decide nothing).
 */
export class LexicalIndex {
  /** word -> rows containing it, and the word's TF-IDF weight in each row. */
  private readonly postings = new Map<string, { rows: number[]; weights: number[] }>();
  private readonly norms: Float64Array;
  /** Scratch: one running dot product a row, zero between searches. */
  private readonly acc: Float64Array;

  /** Over the rows' TF-IDF vectors (see `fromTexts`). */
  constructor(
    rows: readonly TfIdfVector[],
    private readonly maxShare = 0.02,
  ) {
    this.norms = new Float64Array(rows.length);
    this.acc = new Float64Array(rows.length);
    rows.forEach((v, i) => {
      this.norms[i] = v.norm;
      for (const [w, x] of v.weights) {
        let p = this.postings.get(w);
        if (!p) this.postings.set(w, (p = { rows: [], weights: [] }));
        p.rows.push(i);
        p.weights.push(x);
      }
    });
  }

  static fromTexts(texts: readonly string[], freq: DocFrequencies, maxShare?: number): LexicalIndex {
    return new LexicalIndex(texts.map((t) => freq.vector(t)), maxShare);
  }

  /**
   * The best `k` rows for a query vector by TF-IDF cosine, best first (ties: the lower row),
   * accumulated over the postings of the query's words (rows with no rare word in common are not
   * scored).
   */
  search(query: TfIdfVector, k: number): number[] {
    if (query.norm === 0) return [];
    const limit = Math.max(50, this.norms.length * this.maxShare);
    const acc = this.acc;
    const touched: number[] = [];
    for (const [w, q] of query.weights) {
      const p = this.postings.get(w);
      if (!p || p.rows.length > limit) continue;
      for (let j = 0; j < p.rows.length; j++) {
        const r = p.rows[j]!;
        if (acc[r] === 0) touched.push(r);
        acc[r] = acc[r]! + q * p.weights[j]!;
      }
    }
    const best = new TopK(k);
    for (const r of touched) {
      best.push(r, acc[r]! / (query.norm * (this.norms[r] || 1)));
      acc[r] = 0;
    }
    return best.sorted();
  }
}

/** The k ids with the highest scores (a min-heap; of equal scores, the lower id ranks higher). */
class TopK {
  private readonly ids: number[] = [];
  private readonly scores: number[] = [];
  constructor(private readonly k: number) {}

  /** Does slot a rank below slot b? */
  private below(a: number, b: number): boolean {
    const sa = this.scores[a]!, sb = this.scores[b]!;
    return sa < sb || (sa === sb && this.ids[a]! > this.ids[b]!);
  }

  private swap(a: number, b: number): void {
    [this.ids[a], this.ids[b]] = [this.ids[b]!, this.ids[a]!];
    [this.scores[a], this.scores[b]] = [this.scores[b]!, this.scores[a]!];
  }

  push(id: number, score: number): void {
    if (this.k <= 0) return;
    if (this.ids.length < this.k) {
      this.ids.push(id);
      this.scores.push(score);
      for (let i = this.ids.length - 1; i > 0; ) {
        const p = (i - 1) >> 1;
        if (!this.below(i, p)) break;
        this.swap(i, p);
        i = p;
      }
      return;
    }
    if (score < this.scores[0]! || (score === this.scores[0]! && id > this.ids[0]!)) return;
    this.ids[0] = id;
    this.scores[0] = score;
    for (let i = 0; ; ) {
      const l = 2 * i + 1, r = l + 1;
      let m = i;
      if (l < this.ids.length && this.below(l, m)) m = l;
      if (r < this.ids.length && this.below(r, m)) m = r;
      if (m === i) break;
      this.swap(i, m);
      i = m;
    }
  }

  /** The ids kept, best first. */
  sorted(): number[] {
    return this.ids.map((id, i) => ({ id, s: this.scores[i]! })).sort((a, b) => b.s - a.s || a.id - b.id).map((x) => x.id);
  }
}
