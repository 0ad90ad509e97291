/**
 * Replies people gave to lines like the one just heard, and who gave them.
 *
 * A pool line scored only against the context answers whatever shares its words: asked "Do you have
 * any family?", a dockhand says a goatherd's line about goats. The written episodes know more: each
 * line was said in answer to something, by someone. So, for the line a character just heard:
 *
 * - `similarPrompts`: the corpus lines most like it (TF-IDF cosine over words, IDF from the model's
 *   training split), whose replies are candidates on the topic asked about;
 * - `roleFit`: how much a candidate's original speakers are like this speaker (TF-IDF cosine of name
 *   and persona): a farmer's line fits a drover better than a ghost's.
 *
 * Built once per pool from the written episodes and the corpus world; pure, no I/O.
 */
import type { Episode } from '../episodes/episode.js';
import type { World } from '../engine/world.js';
import { allWords, cosine, type DocFrequencies, type TfIdfVector } from '../../models/runtime/lexical.js';

const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

export interface SimilarPrompt {
  /** The corpus line (a pool text). */
  prompt: string;
  /** Its TF-IDF cosine with the line heard. */
  lexical: number;
  /** The lines said in answer to it, in corpus order. */
  replies: string[];
}

export class ReplyExamples {
  /** Distinct prompts, and the replies each got. */
  readonly prompts: string[] = [];
  private readonly replies: string[][] = [];
  /** Prompt word vectors over every word, stop words included ("who", "you", "any" tell questions apart), IDF over the prompts. */
  private readonly promptVectors: TfIdfVector[];
  /** word -> prompts containing it, and its weight in each. */
  private readonly postings = new Map<string, { rows: number[]; weights: number[] }>();
  private readonly idf = new Map<string, number>();
  /** Speakers (character ids) of each line in the corpus. */
  private readonly speakers = new Map<string, string[]>();
  /** Name-and-persona vectors of the corpus world's characters. */
  private readonly personas = new Map<string, TfIdfVector>();
  /** Name-and-persona texts of the corpus world's characters (for the caller's own encoder). */
  readonly personaTexts = new Map<string, string>();

  constructor(
    episodes: readonly Episode[],
    corpusWorld: World | undefined,
    private readonly freq: DocFrequencies,
  ) {
    const byPrompt = new Map<string, number>();
    for (const ep of episodes) {
      let prev: { speaker: string; say: string } | undefined;
      for (const t of ep.turns) {
        if (!t.say) continue;
        const say = norm(t.say);
        let s = this.speakers.get(say);
        if (!s) this.speakers.set(say, (s = []));
        if (!s.includes(t.speaker)) s.push(t.speaker);
        if (prev && prev.speaker !== t.speaker) {
          let i = byPrompt.get(prev.say);
          if (i === undefined) {
            byPrompt.set(prev.say, (i = this.prompts.length));
            this.prompts.push(prev.say);
            this.replies.push([]);
          }
          if (!this.replies[i]!.includes(say)) this.replies[i]!.push(say);
        }
        prev = { speaker: t.speaker, say };
      }
    }
    const df = new Map<string, number>();
    for (const p of this.prompts) for (const w of new Set(allWords(p))) df.set(w, (df.get(w) ?? 0) + 1);
    for (const [w, n] of df) this.idf.set(w, Math.log((1 + this.prompts.length) / (1 + n)) + 1);
    this.promptVectors = this.prompts.map((p, i) => {
      const v = this.wordVector(p);
      for (const [w, x] of v.weights) {
        let p = this.postings.get(w);
        if (!p) this.postings.set(w, (p = { rows: [], weights: [] }));
        p.rows.push(i);
        p.weights.push(x);
      }
      return v;
    });
    if (corpusWorld) {
      for (const c of corpusWorld.characters()) {
        this.personas.set(c.id, freq.vector(`${c.name}. ${c.name}. ${c.persona}`));
        this.personaTexts.set(c.id, `${c.name}. ${c.persona}`);
      }
    }
  }

  get size(): number {
    return this.prompts.length;
  }

  /** Sublinear TF times IDF over every word (unknown words count as rare). */
  wordVector(text: string): TfIdfVector {
    const tf = new Map<string, number>();
    for (const w of allWords(text)) tf.set(w, (tf.get(w) ?? 0) + 1);
    const weights = new Map<string, number>();
    let sq = 0;
    const rare = Math.log(1 + this.prompts.length) + 1;
    for (const [w, c] of tf) {
      const x = (1 + Math.log(c)) * (this.idf.get(w) ?? rare);
      weights.set(w, x);
      sq += x * x;
    }
    return { weights, norm: Math.sqrt(sq) };
  }

  /** How alike two lines are by words (the measure `similarPrompts` ranks by). */
  wordSimilarity(a: string, b: string): number {
    const i = this.promptIndexOf.get(b);
    return cosine(this.wordVector(a), i === undefined ? this.wordVector(b) : this.promptVectors[i]!);
  }

  /**
   * The `k` corpus lines most like `line` by words (TF-IDF cosine), best first, with their replies.
   * Found through their rarer words: a word in more than one prompt in five ("you", "the") only adds
   * to the cosine of prompts found by another.
   */
  similarPrompts(line: string, k: number): SimilarPrompt[] {
    const q = this.wordVector(line);
    if (q.norm === 0) return [];
    const limit = Math.max(50, this.prompts.length / 5);
    const acc = (this.acc ??= new Float64Array(this.prompts.length));
    const touched: number[] = [];
    for (const [w, x] of q.weights) {
      const p = this.postings.get(w);
      if (!p || p.rows.length > limit) continue;
      for (let j = 0; j < p.rows.length; j++) {
        const r = p.rows[j]!;
        if (acc[r] === 0) touched.push(r);
        acc[r] = acc[r]! + x * p.weights[j]!;
      }
    }
    // the best 4k by those words (a bounded heap), then their whole cosine
    const heap = new TopK(4 * k);
    for (const r of touched) {
      heap.push(r, acc[r]! / this.promptVectors[r]!.norm);
      acc[r] = 0;
    }
    return heap
      .items()
      .map((i) => ({ i, s: cosine(q, this.promptVectors[i]!) }))
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .slice(0, k)
      .map(({ i, s }) => ({ prompt: this.prompts[i]!, lexical: s, replies: this.replies[i]! }));
  }

  /** Scratch accumulator, one slot a prompt (kept zeroed between calls). */
  private acc?: Float64Array;

  /** The replies a given corpus line got (none if it is not a prompt in the corpus). */
  repliesTo(prompt: string): string[] {
    const i = this.promptIndexOf.get(prompt);
    return i === undefined ? [] : this.replies[i]!;
  }

  private _promptIndexOf?: Map<string, number>;
  private get promptIndexOf(): Map<string, number> {
    return (this._promptIndexOf ??= new Map(this.prompts.map((p, i) => [p, i])));
  }

  /** The vector of a speaker's name and persona, to compare with the corpus's speakers. */
  speakerVector(name: string, persona: string): TfIdfVector {
    return this.freq.vector(`${name}. ${name}. ${persona}`);
  }

  /** Ids of the characters who said a line in the corpus (empty for a line no known character said). */
  speakersOf(line: string): readonly string[] {
    return this.speakers.get(line) ?? [];
  }

  /**
   * How well a line's original speakers match this one: the best over them of the words their names
   * and personas share (TF-IDF cosine), averaged with `semantic(id)` when given (the caller's
   * encoder's cosine of the two personas, which also tells a parrot from a fisherman when they share
   * no words). Undefined for a line no known character said (the model's own utterances.txt).
   */
  roleFit(line: string, speaker: TfIdfVector, semantic?: (id: string) => number | undefined): number | undefined {
    const ids = this.speakers.get(line);
    if (!ids) return undefined;
    let best: number | undefined;
    for (const id of ids) {
      const v = this.personas.get(id);
      if (!v) continue;
      const words = cosine(speaker, v);
      const sem = semantic?.(id);
      const c = sem === undefined ? words : (words + Math.max(0, sem)) / 2;
      if (best === undefined || c > best) best = c;
    }
    return best;
  }
}

/** The k items with the highest scores (a min-heap; ties keep the lower id). */
class TopK {
  private readonly ids: number[] = [];
  private readonly scores: number[] = [];
  constructor(private readonly k: number) {}

  private less(a: number, b: number): boolean {
    const sa = this.scores[a]!, sb = this.scores[b]!;
    return sa < sb || (sa === sb && this.ids[a]! > this.ids[b]!);
  }

  private swap(a: number, b: number): void {
    [this.ids[a], this.ids[b]] = [this.ids[b]!, this.ids[a]!];
    [this.scores[a], this.scores[b]] = [this.scores[b]!, this.scores[a]!];
  }

  push(id: number, score: number): void {
    if (this.ids.length < this.k) {
      this.ids.push(id);
      this.scores.push(score);
      for (let i = this.ids.length - 1; i > 0; ) {
        const p = (i - 1) >> 1;
        if (!this.less(i, p)) break;
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
      if (l < this.ids.length && this.less(l, m)) m = l;
      if (r < this.ids.length && this.less(r, m)) m = r;
      if (m === i) break;
      this.swap(i, m);
      i = m;
    }
  }

  items(): number[] {
    return [...this.ids];
  }
}
