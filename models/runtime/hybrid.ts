/**
 * The hybrid ranker: the bi-encoder's learned score combined, by a linear model, with exact word
 * evidence (TF-IDF overlap of each candidate with each part of the context) and features of the
 * conversation itself (a question wants an answer, "you" wants "I", greetings come early, thanks
 * follow a gift). It is never worse than word overlap alone because word overlap is one of its
 * features and the weights are fitted (models/training/fit-hybrid.ts) on examples the encoders
 * never trained on.
 *
 * Stored in the model directory as `hybrid.json`: the document frequencies of the training split
 * (IDF is never fitted on the data being scored), and per task the feature names and weights.
 * Everything here is TypeScript on the calling thread: a few microseconds per candidate.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EMOTES } from './emotes.js';
import { ASSOCIATION_FEATURES, Associations, type AssociationProfile } from './associations.js';
import { allWords, cosine, DocFrequencies, EMPTY_VECTOR, irWords, isQuestion, lastOf, readContext, type ContextParts, type TfIdfVector } from './lexical.js';
import type { Ranker, RankOptions, ScoredCandidate } from './ranker.js';

export type HybridTask = 'speech' | 'action' | 'emote';

export interface HybridWeights {
  features: string[];
  weights: number[];
}

export interface HybridModel {
  format: 'lightmud-hybrid';
  version: 1;
  /** Document frequencies (training split contexts and labels). */
  idf: { docs: number; df: Record<string, number> };
  tasks: Partial<Record<HybridTask, HybridWeights>>;
  /**
   * Speech weights for live play, fitted where the candidates are what live play retrieves (the
   * bi-encoder's and the word index's best from the pool: lines of the same kind of scene), so that
   * what tells the gold apart is the fit to the conversation, not the scene's words. Absent: `tasks.speech`.
   */
  live?: HybridWeights;
  /** How the weights were fitted, and the figures measured then. */
  fitted?: Record<string, unknown>;
}

export const HYBRID_FILE = 'hybrid.json';

/** The parts of a context that candidates are compared with, computed once per context. */
export interface ContextEvidence {
  parts: ContextParts;
  all: TfIdfVector;
  last: TfIdfVector;
  earlier: TfIdfVector;
  selfSaid: TfIdfVector;
  selfLast: TfIdfVector;
  persona: TfIdfVector;
  setting: TfIdfVector;
  objects: TfIdfVector;
  lastSay: string;
  lastWords: Set<string>;
  selfLastWords: Set<string>;
  /** Turns of speech so far. */
  said: number;
  partnerGave: boolean;
  partnerHostile: boolean;
  selfLastAct: string;
  selfActs: string[];
  partnerHead: string;
  selfHead: string;
  /** Word-association profiles of the sources (speech contexts, when the model has associations). */
  assoc: AssociationProfile[];
  associations?: Associations;
}

const GREETING = /^(?:hello|hi|hey|greetings|good (?:morning|day|evening|afternoon)|well met|welcome|ho there|hail|howdy)\b/i;
const FAREWELL = /\b(?:goodbye|farewell|good night|bye|see you|until next time|safe travels|take care)\b/i;
const THANKS = /\b(?:thank|thanks|grateful|much obliged)\b/i;
const YOU = /\b(?:you|your|you're|yours|yourself)\b/i;
const FIRST = /\b(?:i|i'm|i've|i'll|i'd|me|my|mine|myself)\b/i;
const WH = /^(?:what|where|who|why|how|which|when)\b/i;
const ANSWER_START = /^(?:yes|no|aye|nay|yeah|well|i|it|that|sure|of course|indeed|not|nothing|just|only|because|maybe|perhaps)\b/i;

/** The last word of a name, lowercased ("the old fisherman" -> "fisherman"). */
export function headWord(name: string): string {
  const w = allWords(name);
  return w[w.length - 1] ?? '';
}

export function contextEvidence(context: string, freq: DocFrequencies, associations?: Associations): ContextEvidence {
  const parts = readContext(context);
  const speech = parts.task === '' || parts.task === 'speech';
  const says = parts.history.filter((h) => h.kind === 'say');
  const lastPartner = lastOf(parts.history, 'partner', 'say');
  const lastSelf = lastOf(parts.history, 'self', 'say');
  const lastSay = lastPartner?.text ?? '';
  const earlier = says.filter((h) => h !== lastPartner).map((h) => h.text).join(' ');
  const recent = parts.history.slice(-4);
  const selfActs = parts.history.filter((h) => h.who === 'self' && h.kind === 'act').map((h) => h.text);
  return {
    parts,
    all: freq.vector(context),
    last: lastSay ? freq.vector(lastSay) : EMPTY_VECTOR,
    earlier: earlier ? freq.vector(earlier) : EMPTY_VECTOR,
    selfSaid: freq.vector(says.filter((h) => h.who === 'self').map((h) => h.text).join(' ')),
    selfLast: lastSelf ? freq.vector(lastSelf.text) : EMPTY_VECTOR,
    persona: freq.vector(parts.persona),
    setting: freq.vector(parts.setting),
    objects: freq.vector(parts.objects),
    lastSay,
    lastWords: new Set(irWords(lastSay)),
    selfLastWords: new Set(irWords(lastSelf?.text ?? '')),
    said: says.length,
    partnerGave: recent.some((h) => h.who === 'partner' && h.kind === 'act' && /^give /.test(h.text)),
    partnerHostile: parts.history.some((h) => h.who === 'partner' && h.kind === 'act' && /^(?:hit|steal) /.test(h.text)),
    selfLastAct: selfActs[selfActs.length - 1] ?? '',
    selfActs,
    partnerHead: headWord(parts.partner.split(',')[0] ?? ''),
    selfHead: headWord(parts.self),
    assoc: associations && speech ? associations.profiles(parts) : [],
    ...(associations && speech ? { associations } : {}),
  };
}

/** Share of the candidate's content words found in `words`. */
function covered(candidate: string[], words: Set<string>): number {
  if (!candidate.length) return 0;
  let n = 0;
  for (const w of candidate) if (words.has(w)) n++;
  return n / candidate.length;
}

export const SPEECH_FEATURES = [
  'bi', 'ir_context', 'ir_last', 'ir_earlier', 'ir_self_said', 'ir_persona', 'ir_setting', 'ir_objects', 'covered_last',
  'log_words', 'log_words_after_wh', 'question_after_question', 'answer_after_question', 'first_person_after_you',
  'greeting_early', 'greeting_late', 'farewell_after_farewell', 'thanks_after_gift', 'thanks_without_gift',
  'names_partner', 'names_self', 'question_opening',
  // models/runtime/associations.ts (ASSOCIATION_FEATURES, in its order)
  'assoc_last_max', 'assoc_last_mean', 'assoc_self_max', 'assoc_self_mean', 'assoc_persona_max', 'assoc_persona_mean',
  'assoc_partner_act_max', 'assoc_partner_act_mean',
] as const;

const ASSOC_AT = SPEECH_FEATURES.indexOf('assoc_last_max');
if (ASSOCIATION_FEATURES.some((f, i) => SPEECH_FEATURES[ASSOC_AT + i] !== f)) throw new Error('hybrid: the association features are out of order');

/** A candidate line's words (content words, and all), by line: live play scores the same pool lines turn after turn. */
const lineWords = new Map<string, LineTraits>();

/** What a candidate line is, apart from any context: its words and the forms the features test. Memoised. */
interface LineTraits {
  words: string[];
  all: string[];
  question: boolean;
  greeting: boolean;
  thanks: boolean;
  answerStart: boolean;
  firstPerson: boolean;
  farewell: boolean;
}

function wordsOf(line: string): LineTraits {
  let w = lineWords.get(line);
  if (!w) {
    const t = line.trim();
    w = {
      words: irWords(line),
      all: allWords(line),
      question: isQuestion(line),
      greeting: GREETING.test(t),
      thanks: THANKS.test(line),
      answerStart: ANSWER_START.test(t),
      firstPerson: FIRST.test(line),
      farewell: FAREWELL.test(line),
    };
    if (lineWords.size >= 50_000) lineWords.clear();
    lineWords.set(line, w);
  }
  return w;
}

export function speechFeatures(ev: ContextEvidence, candidate: string, bi: number, freq: DocFrequencies): number[] {
  return writeSpeechFeatures(new Array<number>(SPEECH_FEATURES.length), ev, candidate, bi, freq);
}

/** `speechFeatures` written into `out` (live scoring reuses one row instead of allocating one per candidate). */
function writeSpeechFeatures<T extends { [i: number]: number }>(out: T, ev: ContextEvidence, candidate: string, bi: number, freq: DocFrequencies): T {
  const v = freq.vector(candidate);
  const c = wordsOf(candidate);
  const { words, all } = c;
  const n = all.length;
  const last = wordsOf(ev.lastSay);
  const q = last.question;
  const candQ = c.question;
  const logWords = Math.log(1 + n);
  out[0] = bi;
  out[1] = cosine(ev.all, v);
  out[2] = cosine(ev.last, v);
  out[3] = cosine(ev.earlier, v);
  out[4] = cosine(ev.selfSaid, v);
  out[5] = cosine(ev.persona, v);
  out[6] = cosine(ev.setting, v);
  out[7] = cosine(ev.objects, v);
  out[8] = covered(words, ev.lastWords);
  out[9] = logWords;
  out[10] = WH.test(ev.lastSay.trim()) ? logWords : 0;
  out[11] = q && candQ ? 1 : 0;
  out[12] = q && !candQ && c.answerStart ? 1 : 0;
  out[13] = YOU.test(ev.lastSay) && c.firstPerson ? 1 : 0;
  out[14] = c.greeting && ev.said <= 1 ? 1 : 0;
  out[15] = c.greeting && ev.said > 1 ? 1 : 0;
  out[16] = last.farewell && c.farewell ? 1 : 0;
  out[17] = c.thanks && ev.partnerGave ? 1 : 0;
  out[18] = c.thanks && !ev.partnerGave ? 1 : 0;
  out[19] = ev.partnerHead && all.includes(ev.partnerHead) ? 1 : 0;
  out[20] = ev.selfHead && all.includes(ev.selfHead) ? 1 : 0;
  out[21] = ev.said === 0 && candQ ? 1 : 0;
  if (ev.associations && ev.assoc.length) Associations.write(out, ASSOC_AT, ev.assoc, ev.associations.replyIds(candidate));
  else for (let i = 0; i < ASSOCIATION_FEATURES.length; i++) out[ASSOC_AT + i] = 0;
  return out;
}

const VERBS = ['get', 'drop', 'put', 'give', 'steal', 'wear', 'wield', 'remove', 'eat', 'drink', 'hit', 'hug'] as const;

/** Does `act` undo `previous` (get/drop, get from/put, wear or wield/remove, give/steal back)? */
export function undoes(act: string, previous: string): boolean {
  let m: RegExpExecArray | null;
  if ((m = /^get (.+) from (.+)$/.exec(previous))) return act === `put ${m[1]} in ${m[2]}` || act === `put ${m[1]} on ${m[2]}`;
  if ((m = /^put (.+) (?:in|on) (.+)$/.exec(previous))) return act === `get ${m[1]} from ${m[2]}`;
  if ((m = /^get (.+)$/.exec(previous))) return act === `drop ${m[1]}`;
  if ((m = /^drop (.+)$/.exec(previous))) return act === `get ${m[1]}`;
  if ((m = /^(?:wear|wield) (.+)$/.exec(previous))) return act === `remove ${m[1]}`;
  if ((m = /^remove (.+)$/.exec(previous))) return act === `wear ${m[1]}` || act === `wield ${m[1]}`;
  if ((m = /^give (.+) to (.+)$/.exec(previous))) return act === `steal ${m[1]} from ${m[2]}`;
  if ((m = /^steal (.+) from (.+)$/.exec(previous))) return act === `give ${m[1]} to ${m[2]}`;
  return false;
}

/** The object and target words of an action ("give bread to baker" -> object "bread", target "baker"). */
export function actionParts(act: string): { verb: string; object: string; target: string } {
  const verb = act.split(' ')[0] ?? '';
  let m: RegExpExecArray | null;
  if ((m = /^(?:give) (.+) to (.+)$/.exec(act))) return { verb, object: m[1]!, target: m[2]! };
  if ((m = /^(?:steal) (.+) from (.+)$/.exec(act))) return { verb, object: m[1]!, target: m[2]! };
  if ((m = /^(?:hit|hug) (.+)$/.exec(act))) return { verb, object: '', target: m[1]! };
  if ((m = /^(?:get) (.+) from (.+)$/.exec(act))) return { verb, object: m[1]!, target: '' };
  if ((m = /^(?:put) (.+) (?:in|on) (.+)$/.exec(act))) return { verb, object: m[1]!, target: '' };
  return { verb, object: act.slice(verb.length + 1), target: '' };
}

export const ASK = /\b(?:give|hand|pass|lend|spare|can i have|could i have|may i have|i need|i want|i'd like|let me have)\b/i;

export const ACTION_FEATURES = [
  'bi', 'ir_context', 'ir_last', 'ir_self_last', 'object_in_last', 'object_in_self_last', 'to_partner', 'asked_and_gives',
  'undoes_own_last', 'repeats_own', ...VERBS.map((v) => `verb_${v}`),
] as const;

export function actionFeatures(ev: ContextEvidence, candidate: string, bi: number, freq: DocFrequencies): number[] {
  const v = freq.vector(candidate);
  const { verb, object, target } = actionParts(candidate);
  const objWords = irWords(object);
  const toPartner = target !== '' && ev.partnerHead !== '' && headWord(target) === ev.partnerHead;
  return [
    bi,
    cosine(ev.all, v),
    cosine(ev.last, v),
    cosine(ev.selfLast, v),
    covered(objWords, ev.lastWords),
    covered(objWords, ev.selfLastWords),
    toPartner ? 1 : 0,
    verb === 'give' && toPartner && ASK.test(ev.lastSay) && covered(objWords, ev.lastWords) > 0 ? 1 : 0,
    ev.selfLastAct && undoes(candidate, ev.selfLastAct) ? 1 : 0,
    ev.selfActs.slice(-3).includes(candidate) ? 1 : 0,
    ...VERBS.map((x) => (verb === x ? 1 : 0)),
  ];
}

/** Words that go with each emote, for the word-evidence features. */
const EMOTE_WORDS: Record<string, string[]> = {
  applaud: ['bravo', 'well done', 'wonderful', 'splendid', 'congratulations', 'excellent', 'marvellous'],
  blush: ['kind', 'flatter', 'pretty', 'beautiful', 'handsome', 'embarrass', 'compliment', 'sweet'],
  cry: ['sad', 'died', 'dead', 'tears', 'lost', 'grief', 'miss', 'alone', 'weep', 'sorrow'],
  dance: ['dance', 'music', 'song', 'celebrate', 'festival', 'merry', 'sing'],
  frown: ['no', 'not', 'bad', 'wrong', 'worse', 'trouble', 'sorry', 'never', "don't", "can't", 'worry'],
  gasp: ['what', 'really', 'oh', 'terrible', 'dead', 'dragon', 'monster', 'stolen', 'gods'],
  grin: ['ha', 'heh', 'clever', 'trick', 'deal', 'fun', 'luck'],
  groan: ['ugh', 'again', 'tired', 'work', 'heavy', 'ache', 'ill'],
  growl: ['get out', 'leave', 'back off', 'thief', 'enemy', 'kill', 'fight', 'angry', 'how dare'],
  laugh: ['ha', 'haha', 'funny', 'joke', 'laugh', 'silly', 'fool'],
  nod: ['yes', 'aye', 'indeed', 'right', 'agreed', 'sure', 'of course', 'true', 'very well'],
  nudge: ['look', 'see', 'psst', 'hey', 'come on'],
  ponder: ['hmm', 'wonder', 'think', 'perhaps', 'maybe', 'why', 'how', 'strange', 'curious'],
  pout: ['unfair', 'please', 'want', 'never', 'mean'],
  scream: ['help', 'aaah', 'no', 'monster', 'kill', 'die', 'run', 'fire'],
  shrug: ["don't know", 'maybe', 'perhaps', 'whatever', 'suppose', 'who knows', 'not sure'],
  sigh: ['alas', 'tired', 'long', 'sad', 'oh well', 'if only', 'weary'],
  smile: ['thank', 'glad', 'happy', 'welcome', 'good', 'nice', 'pleasure', 'lovely', 'friend'],
  stare: ['what', 'who', 'strange', 'watch', 'look'],
  wave: ['hello', 'hi', 'greetings', 'goodbye', 'farewell', 'bye', 'welcome', 'good day'],
  wink: ['secret', "between us", 'trust me', 'little', 'deal', 'favour'],
  yawn: ['tired', 'sleep', 'bed', 'boring', 'late', 'night', 'rest'],
};

/** Lines in emote-word form (" lowercased words "), by line: each is looked at once per emote. */
const emoteForms = new Map<string, string>();

function emoteEvidence(text: string, emote: string): number {
  let t = emoteForms.get(text);
  if (t === undefined) {
    t = ` ${text.toLowerCase().replace(/[^a-z' ]+/g, ' ').replace(/\s+/g, ' ')} `;
    if (emoteForms.size >= 1000) emoteForms.clear();
    emoteForms.set(text, t);
  }
  return (EMOTE_WORDS[emote] ?? []).some((w) => t.includes(` ${w} `)) ? 1 : 0;
}

export const EMOTE_FEATURES = [
  'bi', 'words_self_last', 'words_partner_last',
  ...EMOTES.map((e) => `prior_${e}`),
  ...EMOTES.map((e) => `after_question_${e}`),
  ...EMOTES.map((e) => `opening_${e}`),
  ...EMOTES.map((e) => `after_gift_${e}`),
] as const;

/** Emote features: learned score, word evidence, and per-emote weights for the situation (a prior, after a question, at the start, after a gift). */
export function emoteFeatures(ev: ContextEvidence, candidate: string, bi: number): number[] {
  const selfLast = lastOf(ev.parts.history, 'self', 'say')?.text ?? '';
  const one = EMOTES.map((e) => (e === candidate ? 1 : 0));
  const q = isQuestion(ev.lastSay) ? 1 : 0;
  const opening = ev.said <= 1 ? 1 : 0;
  const gift = ev.partnerGave ? 1 : 0;
  return [bi, emoteEvidence(selfLast, candidate), emoteEvidence(ev.lastSay, candidate), ...one, ...one.map((x) => x * q), ...one.map((x) => x * opening), ...one.map((x) => x * gift)];
}

/** Feature rows for candidates of one context. */
export function featureRows(task: HybridTask, ev: ContextEvidence, candidates: readonly string[], bi: ArrayLike<number>, freq: DocFrequencies): number[][] {
  return candidates.map((c, i) =>
    task === 'speech' ? speechFeatures(ev, c, bi[i]!, freq) : task === 'action' ? actionFeatures(ev, c, bi[i]!, freq) : emoteFeatures(ev, c, bi[i]!),
  );
}

export function featureNames(task: HybridTask): readonly string[] {
  return task === 'speech' ? SPEECH_FEATURES : task === 'action' ? ACTION_FEATURES : EMOTE_FEATURES;
}

/** The linear model's score of one feature row. */
export function linearScore(row: ArrayLike<number>, w: HybridWeights): number {
  let s = 0;
  for (let i = 0; i < row.length; i++) s += row[i]! * (w.weights[i] ?? 0);
  return s;
}

export class Hybrid {
  readonly freq: DocFrequencies;
  /** Per task, the weights aligned to this runtime's feature rows (features a file does not name weigh 0). */
  private readonly aligned = new Map<HybridTask | 'live', HybridWeights>();

  /**
   * Weights name their features: a file fitted before a feature was added still works (the new
   * feature weighs 0). A file naming a feature this runtime does not know is refused, as is one
   * that weighs the association features without the associations to compute them.
   */
  constructor(
    readonly model: HybridModel,
    readonly associations?: Associations,
  ) {
    this.freq = DocFrequencies.fromJSON(model.idf);
    const entries = [...(Object.entries(model.tasks) as [HybridTask, HybridWeights][]), ...(model.live ? [['live', model.live] as const] : [])];
    for (const [task, w] of entries) {
      const want = featureNames(task === 'live' ? 'speech' : task);
      const weights = new Array<number>(want.length).fill(0);
      if (w.features.length !== w.weights.length) throw new Error(`${HYBRID_FILE}: the ${task} weights (${w.weights.length}) do not match their features (${w.features.length}); refit with lightmud fit-hybrid`);
      w.features.forEach((f, i) => {
        const at = want.indexOf(f);
        if (at < 0) throw new Error(`${HYBRID_FILE}: the ${task} feature "${f}" is not one of this runtime's; refit with lightmud fit-hybrid`);
        weights[at] = w.weights[i]!;
      });
      if (!associations && ASSOCIATION_FEATURES.some((f) => weights[want.indexOf(f)])) {
        throw new Error(`${HYBRID_FILE}: the ${task} weights use word associations, but the model directory has no associations.bin; refit with lightmud fit-hybrid`);
      }
      this.aligned.set(task, { features: [...want], weights });
    }
  }

  static read(dir: string): Hybrid | undefined {
    let text: string;
    try {
      text = readFileSync(join(dir, HYBRID_FILE), 'utf8');
    } catch {
      return undefined;
    }
    const model = JSON.parse(text) as HybridModel;
    if (model.format !== 'lightmud-hybrid') throw new Error(`${join(dir, HYBRID_FILE)}: not a lightmud-hybrid file`);
    return new Hybrid(model, Associations.read(dir));
  }

  has(task: HybridTask): boolean {
    return this.aligned.has(task);
  }

  evidence(context: string): ContextEvidence {
    return contextEvidence(context, this.freq, this.associations);
  }

  /** Scores of pool lines retrieved in live play (the live speech weights, else the speech weights). */
  scoreLive(ev: ContextEvidence, candidates: readonly string[], bi: ArrayLike<number>): number[] {
    const w = this.aligned.get('live') ?? this.aligned.get('speech');
    if (!w) return Array.from(bi);
    // = featureRows('speech', ...).map((r) => linearScore(r, w)), the same sums, in one reused row
    const row = new Float64Array(SPEECH_FEATURES.length);
    return candidates.map((c, i) => linearScore(writeSpeechFeatures(row, ev, c, bi[i]!, this.freq), w));
  }

  /** Scores of candidates given their bi-encoder scores (higher is better). */
  score(task: HybridTask, ev: ContextEvidence, candidates: readonly string[], bi: ArrayLike<number>): number[] {
    const w = this.aligned.get(task);
    if (!w) return Array.from(bi);
    return featureRows(task, ev, candidates, bi, this.freq).map((r) => linearScore(r, w));
  }
}

/** The task of a LIGHT-format context, from its `_task_` line (default speech). */
export function taskOf(context: string): HybridTask {
  const m = /^_task_(speech|action|emote)\b/m.exec(context);
  return (m?.[1] as HybridTask | undefined) ?? 'speech';
}

/** A Ranker that rescores a base ranker's bi-encoder scores with the hybrid model. */
export class HybridRanker implements Ranker {
  constructor(
    private readonly base: Ranker,
    readonly hybrid: Hybrid,
  ) {}

  get name(): string {
    return `${this.base.name} + hybrid`;
  }

  async release(): Promise<void> {
    await (this.base as { release?: () => Promise<void> }).release?.();
  }

  async rank(context: string, candidates: readonly string[], opts: RankOptions = {}): Promise<ScoredCandidate[]> {
    const ranked = await this.base.rank(context, candidates, opts);
    const bi = new Float64Array(candidates.length);
    for (const r of ranked) bi[r.index] = r.biScore ?? r.score;
    const task = taskOf(context);
    const scores = this.hybrid.score(task, this.hybrid.evidence(context), candidates, bi);
    return candidates
      .map((text, index) => ({ text, index, score: scores[index]!, biScore: bi[index]! }))
      .sort((a, b) => b.score - a.score || a.index - b.index);
  }
}
