/**
 * Replies people gave to lines like the one just heard, and who gave them.
 *
 * A pool line scored only against the context answers whatever shares its words: asked "Do you have
 * any family?", a dockhand says a goatherd's line about goats. The written episodes know more: each
 * line was said in answer to something, by someone. So, for the line a character just heard:
 *
 * - `similarPrompts`: the corpus lines most like it (TF-IDF cosine over every word, IDF over the
 *   corpus's prompts), whose replies are candidates on the topic asked about;
 * - `roleFit`: how much a candidate's original speakers are like this speaker (TF-IDF cosine of name
 *   and persona): a farmer's line fits a drover better than a ghost's.
 *
 * Built once per pool from the written episodes and the corpus world; pure, no I/O.
 */
import type { Episode } from '../episodes/episode.js';
import type { World } from '../engine/world.js';
import { lastSentence } from './line-kind.js';
import { allWords, cosine, DocFrequencies, irWords, LexicalIndex, type TfIdfVector } from '../../models/runtime/lexical.js';

const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Words any question or remark is made of: never what it turns on (ReplyExamples.focusOf). */
const QUESTION_WORDS = new Set(
  ('how why when where while like likes best most favourite favorite think thought know knew ever really much many some any every all tell say said ' +
    'around here today tonight now also about got get getting have has had would could should shall might must want wanted ' +
    'need go going make makes made come came let thing things something anything way well good great nice bit little ' +
    "lot kind sort always never often still yet ask asked mind please thank thanks sorry hello hi hey yes no oh i'm " +
    "you're it's that's what's don't didn't can't won't isn't aren't i've you've i'd you'd i'll you'll one ones time")
    .split(' '),
);

/** A word's plain form for matching ("animals" -> "animal", "seasons" -> "season", "stories" -> "stori"). */
export const stemOf = (w: string): string => (w.length > 4 ? w.replace(/(?:ies|es|s|ed|ing)$/, '') : w.length > 3 ? w.replace(/s$/, '') : w);

/** The plain forms of words to look for with hasWord (made once for many texts). */
export const stemsOf = (words: string[]): ReadonlySet<string> => new Set(words.map(stemOf));

/** Does `text` have any of the words whose plain forms are `stems` (stemsOf)? */
export function hasWord(text: string, stems: ReadonlySet<string>): boolean {
  return irWords(text).some((w) => stems.has(stemOf(w)));
}


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
  /** prompt -> its row in `prompts`. */
  private readonly promptRow = new Map<string, number>();
  /** Words of the prompts, every word counted, stop words included ("who", "you", "any" tell questions apart); IDF over the prompts. */
  private readonly promptWords: DocFrequencies;
  private readonly promptVectors: TfIdfVector[];
  /** The prompts by their rarer words: a word in more than one prompt in five ("you", "the") finds none. */
  private readonly promptIndex: LexicalIndex;
  /** Speakers (character ids) of each line in the corpus. */
  private readonly speakers = new Map<string, string[]>();
  /** Name-and-persona vectors of the corpus world's characters. */
  private readonly personas = new Map<string, TfIdfVector>();
  /** The words cosine of a speaker's vector with each corpus character's persona, by speaker vector (vectors are shared while memoised). */
  private readonly personaCosines = new WeakMap<TfIdfVector, Map<string, number>>();
  /** Name-and-persona texts of the corpus world's characters (for the caller's own encoder). */
  readonly personaTexts = new Map<string, string>();

  constructor(
    episodes: readonly Episode[],
    corpusWorld: World | undefined,
    private readonly freq: DocFrequencies,
  ) {
    for (const ep of episodes) {
      let prev: { speaker: string; say: string } | undefined;
      for (const t of ep.turns) {
        if (!t.say) continue;
        const say = norm(t.say);
        let s = this.speakers.get(say);
        if (!s) this.speakers.set(say, (s = []));
        if (!s.includes(t.speaker)) s.push(t.speaker);
        if (prev && prev.speaker !== t.speaker) {
          let i = this.promptRow.get(prev.say);
          if (i === undefined) {
            this.promptRow.set(prev.say, (i = this.prompts.length));
            this.prompts.push(prev.say);
            this.replies.push([]);
          }
          if (!this.replies[i]!.includes(say)) this.replies[i]!.push(say);
        }
        prev = { speaker: t.speaker, say };
      }
    }
    this.promptWords = new DocFrequencies(allWords).add(this.prompts);
    this.promptVectors = this.prompts.map((p) => this.promptWords.vector(p));
    this.promptIndex = new LexicalIndex(this.promptVectors, 0.2);
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

  /** How alike two lines are by words (the measure `similarPrompts` ranks by). */
  wordSimilarity(a: string, b: string): number {
    const i = this.promptRow.get(b);
    return cosine(this.promptWords.vector(a), i === undefined ? this.promptWords.vector(b) : this.promptVectors[i]!);
  }

  /**
   * The `k` corpus lines most like `line` by words (TF-IDF cosine), best first, with their replies:
   * the best 4k found through their rarer words, then ranked by their whole cosine.
   */
  similarPrompts(line: string, k: number): SimilarPrompt[] {
    const q = this.promptWords.vector(line);
    return this.promptIndex
      .search(q, 4 * k)
      .map((i) => ({ i, s: cosine(q, this.promptVectors[i]!) }))
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .slice(0, k)
      .map(({ i, s }) => ({ prompt: this.prompts[i]!, lexical: s, replies: this.replies[i]! }));
  }

  /** The replies a given corpus line got (none if it is not a prompt in the corpus). */
  repliesTo(prompt: string): string[] {
    const i = this.promptRow.get(prompt);
    return i === undefined ? [] : this.replies[i]!;
  }

  /**
   * The words a line turns on ("Which season do you like best?" -> season, year; "Is there
   * somewhere I could sleep tonight?" -> somewhere, sleep): the words of its last sentence less stop
   * words and the words any question is made of ("like", "best", "favourite", "think", "tonight").
   */
  focusOf(line: string): string[] {
    return [...new Set(irWords(lastSentence(line)).filter((w) => w.length >= 3 && !QUESTION_WORDS.has(w)))];
  }

  /** The vector of a speaker's name and persona, to compare with the corpus's speakers. */
  speakerVector(name: string, persona: string): TfIdfVector {
    return this.freq.vector(`${name}. ${name}. ${persona}`);
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
    let byId = this.personaCosines.get(speaker);
    if (!byId) this.personaCosines.set(speaker, (byId = new Map()));
    for (const id of ids) {
      let words = byId.get(id);
      if (words === undefined) {
        const v = this.personas.get(id);
        if (!v) continue;
        byId.set(id, (words = cosine(speaker, v)));
      }
      const sem = semantic?.(id);
      const c = sem === undefined ? words : (words + Math.max(0, sem)) / 2;
      if (best === undefined || c > best) best = c;
    }
    return best;
  }
}
