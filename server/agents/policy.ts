/**
 * The model policy: what a character says, does and emotes this turn.
 *
 * Rules first, where a line is clear (request following, truthful answers, cues: see requests.ts,
 * self-state.ts, cues.ts); the rankers for everything else, as in LIGHT:
 *   - speech: the dialogue pool, retrieved with the bi-encoder and reranked with the cross-encoder;
 *   - action: the character's valid actions, ranked with the bi-encoder; taken when the best score
 *     reaches the action threshold;
 *   - emote: LIGHT's 22, ranked with the bi-encoder; taken (when no action is) at the emote threshold.
 * Thresholds are tuned on the written corpus (thresholds.ts) or given.
 *
 * `decide()` takes a batch of turns and ranks them together: one context encoding per phase, one
 * pool search, one cross-encoder call per turn; candidate embeddings (actions, emotes) are
 * memoised. Results do not depend on what else is in the batch. Inference runs on the runtime's
 * inference thread, so the event loop stays free.
 */
import { argsortDesc, EMOTES, type CandidatePool, type ModelRanker } from '../../models/runtime/index.js';
import { actionParts, ASK, headWord, Hybrid, undoes, type ContextEvidence } from '../../models/runtime/hybrid.js';
import { irWords } from '../../models/runtime/lexical.js';
import { LexicalIndex } from '../../models/runtime/lexical.js';
import { flowOf, reacts, thanksFor } from './conversation-flow.js';
import { handingOnly, LineJudge, tellsOwnLife, type Scene } from './line-judge.js';
import { isPlainLine, unsureKind, unsureLine, type UnsureKind } from './unsure.js';
import { asksAboutYou, lineKind, yesNoToWh } from './line-kind.js';
import { hasWord, stemsOf, type ReplyExamples } from './reply-examples.js';
import { formatContext, type ContextTask, type HistoryEntry } from './context.js';
import { cueOf, FEAR_EMOTES } from './cues.js';
import type { AgentView } from './view.js';

export interface Thresholds {
  /** Take the best valid action when its bi-encoder score is at least this. */
  action: number;
  /** Else emote when the best emote's score is at least this. */
  emote: number;
}

export interface TurnInput {
  view: AgentView;
  /** The character's memory, oldest first (without this turn). */
  history: HistoryEntry[];
  /** An action the character already committed to (the next step of a plan); taken if still valid. */
  queued?: string;
  /** Picks among phrasings of rule-made replies (deterministic: no randomness inside). */
  variant?: number;
}

/** A line chosen by the model; `unsure` when it was too unsure of its best one and said a plain line (unsure.ts). */
export interface Said {
  text: string;
  unsure?: boolean;
}

/** Where a line came from: the model, a rule (answer, request, refusal), or the model unsure (unsure.ts). */
export type SaySource = 'model' | 'answer' | 'request' | 'refusal' | 'unsure';
export type ActSource = 'request' | 'plan' | 'cue' | 'model' | 'none';

export interface TurnChoice {
  /** What to say ('' for nothing). */
  say: string;
  /** Graph actions to take, in order: a request's plan, or the model's one action. */
  actions: string[];
  emote?: string;
  /** Say after the actions (a plan that stops part-way: do what can be done, then say why not). */
  sayAfter?: boolean;
  why: { say: SaySource; act: ActSource; emote?: 'model' | 'cue' };
  /** Scores, for the behaviour suite and for tuning. */
  scores?: { action?: number; emote?: number; topAction?: string; topEmote?: string };
}

export interface PolicyOptions {
  /** Cross-encoder rerank of the best k retrieved utterances (0: bi-encoder only). Default 20. */
  rerank?: number;
  /**
   * Lines from the word index (TF-IDF over the whole pool) added to the bi-encoder's best 100 for
   * the partner's line, with the hybrid model. Default 0: such lines come from any scene, and in
   * the conversation probe generic lines sharing one word ("Is it safe?" -> "There. Safe.") won
   * for every character alike.
   */
  wordCandidates?: number;
  /** History lines kept in the context (newest). Default 16. */
  historyLimit?: number;
  thresholds?: Thresholds;
  /** The hybrid ranker (the model directory's hybrid.json): word evidence on top of the bi-encoder. */
  hybrid?: Hybrid;
  /** Rules on retrieved lines (who they were written to, names, claims, repeats). */
  judge?: LineJudge;
  /**
   * Replies the corpus gave to lines like the partner's, and who gave them (reply-examples.ts):
   * with the hybrid model, their replies join the candidates, and every candidate is scored up by
   * how like the line heard its prompt was and how like this speaker its speakers were.
   */
  examples?: ReplyExamples;
  /** Weights of those two scores on the hybrid's scale (default EXAMPLE_WEIGHTS). */
  exampleWeights?: ExampleWeights;
  /** When the model is unsure of its best line, below both of these (default UNSURE; null: never). */
  unsure?: Unsure | null;
}

/**
 * How like the line heard a reply's prompt counts when neither the prompt nor the reply has any of the
 * words the heard line turns on (ReplyExamples.focusOf): "Which season do you like best?" is not "What
 * do you like best to eat?", however alike their words. Read blind against 1 (off) on the held-out and
 * both newer fresh probes (six readers, 360 replies a version): nonsense 87 against 102, sensible 96
 * against 97.
 */
export const FOCUS_MISS = 0.5;

/** Replies to lines like the partner's that join the candidates, at most (the best by likeness): a line answered in many ways ("Hello.") adds no more. */
export const ANALOGOUS_REPLIES = 200;

/**
 * Below both, the model is unsure of its best line and a plain line is said instead (unsure.ts): how
 * like the line heard the line's corpus prompt was (s), and how like this character its speakers were
 * (r). Chosen on the development probe's blind readings (DEV_LINES): of the 44 replies below both,
 * 35 were read as nonsense and 2 as sensible.
 */
export const UNSURE: Unsure = { prompt: 0.55, role: 0.5, offTopic: 0.34 };

/**
 * When the model is unsure of its best line (see UNSURE): below both `prompt` and `role`, or, whoever
 * said the line, below `offTopic` (how like the line heard its corpus prompt was). In the earlier blind
 * readings of all four probes, the 24 replies below 0.34 (all the character's own lines) were read as
 * nonsense 13 times and sensible 4; plain lines other than greetings and farewells about 1 in 10.
 */
export interface Unsure {
  prompt: number;
  role: number;
  offTopic?: number;
}

/**
 * Heard lines answered with a plain line of their kind (unsure.ts), never the model's: in the earlier
 * blind readings of all four probes, the model's replies to goodbyes were nonsense in 8 of 29 (sensible
 * in 3), to greetings in 3 of 3, to "how are you" in 3 of 11 (sensible in 1), to "I'm so tired" in 6
 * of 12 (sensible in 3); the plain farewells were read as sensible 125 times in 125, the plain
 * greetings 51 in 61 (never nonsense). Since the sixth session also lines that call for a reaction
 * more than an answer, each with plain lines of its own: a hurt ("I cut my hand and it still stings"),
 * a thing lost, nervousness, a sorrow or worry, a mishap, good news, a plan, a promise to come back,
 * an offer made ("If you ever want company, just ask"), praise, "what do you think of me?" and an
 * offer to tell something ("Want to hear a riddle?"): on the third fresh probe the model answered
 * such lines with "Yes. Pick up that bundle first..." and "Loud, but they pay in coin, not promises".
 * Read blind on two fresh probes written after these rules (fifth and sixth), replies went from 20% to
 * 29% sensible and from 24% to 20% nonsense (n = 240 each).
 */
const FORMULAS = new Set<UnsureKind>(['farewell', 'greeting', 'wellbeing', 'tired', 'lostThing', 'nervous', 'hurt', 'sad', 'goodNews', 'theirNews', 'plans', 'offered', 'promise', 'mishap', 'compliment', 'aboutMe', 'willTell']);

/** A plain line of the kind the partner's line calls for (unsure.ts), unless every such line was said already. */
function plainReply(scene: Scene, kind?: UnsureKind): Said | undefined {
  const text = scene.partnerLine ? unsureLine(scene.partnerLine, scene.said, scene.selfName, kind) : undefined;
  return text ? { text, unsure: true } : undefined;
}

/**
 * A line said in the corpus only by characters less like this one than this (r, as for UNSURE) is not
 * said when it names a thing that is not at hand (line-judge.ts `absentThings`: "you'd need waders",
 * said by six characters on the ordinary probe before) or tells its speaker's own life (`tellsOwnLife`:
 * "Since I married...", said by five). Read blind on the development, held-out and fresh probes, the
 * second rule changed 36 of 360 replies: 5 fewer nonsense, as many sensible.
 */
export const STRANGERS_THINGS = 0.5;

/** Chosen by reading the replies to a development probe (bench/conversation.bench.ts, DEV_LINES). */
export const EXAMPLE_WEIGHTS: ExampleWeights = { prompt: 6, answer: 15, role: 2 };

/** Added to a candidate's hybrid score: prompt * s + answer * s * r + role * r, for s how like the line heard its prompt was and r how like this speaker its speakers were. */
export interface ExampleWeights {
  prompt: number;
  answer: number;
  role: number;
}

export const DEFAULT_THRESHOLDS: Thresholds = { action: 0.35, emote: 0.35 };

const ACK: Record<string, string[]> = {
  give: ['Here, take {obj}.', 'Of course. Here you are.', 'Here it is; mind you look after it.', 'Take it, then.'],
  get: ['Right away.', 'I can do that.', 'There, I have it.', 'As you like.'],
  put: ['There. Done.', 'As you wish.', 'All right, there it goes.'],
  drop: ['There, I have put it down.', 'Very well.', 'Fine, there it is.'],
  wear: ['Very well, I shall put it on.', 'If you think it suits me.', 'All right.'],
  wield: ['Then I shall arm myself.', 'Very well.', 'So be it.'],
  remove: ['All right, off it comes.', 'Very well.', 'If you insist.'],
  eat: ['Gladly; I am hungry.', "Don't mind if I do.", 'Mm, all right.'],
  drink: ["Don't mind if I do.", 'Cheers, then.', 'Well, just a sip.'],
  hug: ['Come here, you.', 'There, there.', 'Of course, friend.'],
  hit: ['You asked for it!', 'Have it your way!', 'So be it!'],
  steal: ['If you say so...', 'Quietly, then.'],
  equip: ['Very well.', 'All right.'],
};

const pick = <T>(items: readonly T[], variant: number): T => items[Math.abs(Math.trunc(variant)) % items.length]!;

/** The reply for carrying out a request: "Here, take the flask of rum." */
export function acknowledge(verb: string, steps: string[], variant = 0): string {
  const templates = ACK[verb] ?? ['As you wish.', 'All right.'];
  // Everything given to whoever the last step gives to: "give bread to x", "give cheese to x".
  const to = /^give .+ to (.+)$/.exec(steps[steps.length - 1] ?? '')?.[1];
  const given = steps.map((s) => /^give (.+) to (.+)$/.exec(s)).filter((m) => !!to && m?.[2] === to).map((m) => `the ${m![1]}`);
  if (given.length > 1) return `Here, take ${given.slice(0, -1).join(', ')} and ${given[given.length - 1]}.`;
  const t = pick(templates, variant);
  return t.includes('{obj}') ? (given.length ? t.replace('{obj}', given[0]!) : 'Here you are.') : t;
}

/** The reply for a request that cannot be carried out: "Sorry, I don't have a sword." */
export function refuse(reason: string, done: number): string {
  const r = reason.replace(/\s+/g, ' ').trim();
  if (r.endsWith('?')) return r; // a question back: "Which knife do you mean: ...?"
  if (done > 0) return `That's as far as I can go: ${lowerFirst(r)}`;
  return /^(I|My)\b/.test(r) ? `Sorry, ${lowerFirst(r)}` : r;
}

const lowerFirst = (s: string) => (/^I\b/.test(s) ? s : s.charAt(0).toLowerCase() + s.slice(1));

export const HOSTILE = /^(hit|steal) /;

/**
 * Is a model-chosen action grounded in the conversation? Its object is named in the partner's last
 * line or in what the character says with it ("Here, have some bread." + give bread), or it gives
 * the partner something the partner asked for. Actions from nowhere (taking off one's boots in
 * answer to "Is it safe here?") read as nonsense, so the model takes only grounded ones.
 */
export function motivated(action: string, history: HistoryEntry[], say: string, partner: string | undefined): boolean {
  const { verb, object, target } = actionParts(action);
  const partnerLine = [...history].reverse().find((h) => h.kind === 'say' && h.speaker === 'partner')?.text ?? '';
  const heard = new Set([...irWords(partnerLine), ...irWords(say)]);
  const obj = irWords(object).filter((w) => w.length > 2);
  if (obj.some((w) => heard.has(w) || heard.has(`${w}s`) || heard.has(w.replace(/s$/, '')))) return true;
  const toPartner = !!partner && !!target && headWord(target) === headWord(partner);
  if (verb === 'give' && toPartner && ASK.test(partnerLine.replace(NO_THING_ASKED, ''))) return true;
  if ((verb === 'hug' || verb === 'hit') && toPartner) return heard.has(verb) || (verb === 'hit' && /^(?:hit|steal) /.test(history[history.length - 1]?.text ?? ''));
  return false;
}

/** Asking for time, help or attention, not a thing ("Have you got a moment to spare?", "Lend me a hand."): nothing to hand over. */
const NO_THING_ASKED = /\b(?:(?:spare|give|lend|need|want)\s+(?:me\s+|us\s+)?(?:a|an|your|some)?\s*(?:moment|minute|second|word|hand|ear|while|chance|rest|break|hint|clue|time)s?\b|(?:moment|minute|second|while|time)s?\s+to\s+spare\b)/gi;

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A persona that gives a reason to steal, or to strike first: in its own words, about itself ("I am a
 * cutpurse", "I steal buttons", "I would bite the lord"). A word anywhere was not enough: the hunter's
 * persona calls someone else a thief, and she robbed and hit the verderer in a seeded episode.
 */
const THIEF = /\bI(?: am|'m| was)(?: a| an| the)?(?: [a-z-]+){0,2} (?:thief|pickpocket|cutpurse|robber|bandit|brigand|pirate|burglar|urchin)\b|\bI(?: [a-z]+)? (?:steal|stole|rob|robbed|pinch|nick|filch|snatch|pick pockets|cut purses)\b/i;
const FIGHTER = /\bI(?: am|'m| was)(?: a| an| the)?(?: [a-z-]+){0,2} (?:bully|brute|brawler|killer|murderer|assassin|bandit|brigand|raider|monster|mercenary)\b|\bI(?: [a-z]+)? (?:fight|fought|kill|killed|brawl|bite|attack|beat|punch|love a fight|like a fight)\b/i;

/**
 * Actions the model may take given its history, persona and what it says this turn (`said`): no
 * repeat of its last three, nothing that undoes one of them (drop what it just got, take back what it
 * just put down), nothing taken or used while declining, and `hit` or `steal` only with a reason: the
 * partner hit, robbed or threatened it, or its persona is a thief's (steal) or a fighter's (hit).
 */
export function actionFilter(history: HistoryEntry[], persona = '', said = ''): (action: string) => boolean {
  const mine = history.slice(-8).filter((h) => h.speaker === 'self' && h.kind === 'act').slice(-3).map((h) => h.text);
  // Whether it was provoked is the same for every action: read the history once, when the first hostile action is asked about.
  let provoked: boolean | undefined;
  let thief: boolean | undefined;
  let fighter: boolean | undefined;
  const byPersona = (action: string) => (/^steal /.test(action) ? (thief ??= hostileByPersona(persona, action)) : (fighter ??= hostileByPersona(persona, action)));
  const hostile = (action: string) => !HOSTILE.test(action) || (provoked ??= wasProvoked(history)) || byPersona(action);
  // "No, I'm all right, thank you." and then drinking the gin: a character that declines this turn takes nothing.
  const declined = DECLINING.test(said.trim());
  return (action) => !mine.includes(action) && !mine.some((m) => undoes(action, m)) && hostile(action) && !(declined && TAKING.test(action));
}

/** A line that declines ("No, thank you.", "Not just now, thanks.", "Kind of you, but no."). */
const DECLINING = /^(?:no\b|not just now|kind of you, but no|i'll pass|i'd rather not)/i;
/** Actions that take or use something. */
const TAKING = /^(?:get|eat|drink|wear|wield) /;

/** Did the partner hit, rob or threaten the character in the last 8 events? */
function wasProvoked(history: HistoryEntry[]): boolean {
  return history.slice(-8).some((h) => h.speaker === 'partner' && ((h.kind === 'act' && HOSTILE.test(h.text)) || (h.kind === 'say' && cueOf(h.text) === 'threat')));
}

/** Does the persona give a reason for this hostile action (a thief's to steal, a fighter's to hit)? */
function hostileByPersona(persona: string, action: string): boolean {
  return (/^steal /.test(action) ? THIEF : FIGHTER).test(persona);
}

/** Is `action` not hostile, or hostile with a reason (provoked in the last 8 events, or the persona's)? */
export function hostilityAllowed(history: HistoryEntry[], persona: string, action: string): boolean {
  if (!HOSTILE.test(action)) return true;
  return wasProvoked(history) || hostileByPersona(persona, action);
}

/** Two LIGHT contexts that differ only in their first line, each a `_task_` line. */
function sameButTask(a: string, b: string): boolean {
  const i = a.indexOf('\n');
  const j = b.indexOf('\n');
  return i >= 0 && j >= 0 && /^_task_\w+$/.test(a.slice(0, i)) && /^_task_\w+$/.test(b.slice(0, j)) && a.slice(i) === b.slice(j);
}

/** Emotes the character made in its last two turns (not repeated back to back). */
function recentEmotes(history: HistoryEntry[]): Set<string> {
  return new Set(history.filter((h) => h.speaker === 'self' && h.kind === 'emote').slice(-2).map((h) => h.text));
}

/**
 * The scene a line is judged against: who speaks, to whom, who else is here, what is here, and the
 * lines already said in the conversation it remembers.
 */
export function sceneOf(view: AgentView, history: HistoryEntry[]): Scene {
  // Every line of the conversation it remembers, its own and others': saying a line again, or the
  // partner's back to them, reads as a parrot.
  const said = new Set(history.filter((e) => e.kind === 'say').map((e) => e.text.toLowerCase().trim()));
  // what it may point at as at hand: words of its persona, the setting, the objects here and the conversation
  const f = view.facts;
  const known = new Set(
    [f.self.persona, f.setting.name, f.setting.description, ...f.objects.flatMap((o) => [o.name, o.description]), ...view.objects, ...history.map((e) => e.text)]
      .join(' ')
      .toLowerCase()
      .match(/[a-z']+/g) ?? [],
  );
  return {
    selfName: view.facts.self.name,
    selfPersona: view.facts.self.persona,
    partnerName: view.partner?.name,
    present: view.others.map((o) => o.name),
    objects: view.objects,
    held: view.held,
    said,
    partnerLine: [...history].reverse().find((e) => e.kind === 'say' && e.speaker === 'partner')?.text,
    known,
    flow: flowOf(history),
  };
}

interface Scored {
  texts: string[];
  scores: number[];
}

export class Policy {
  thresholds: Thresholds;
  readonly hybrid?: Hybrid;
  readonly judge?: LineJudge;
  private readonly rerank: number;
  private readonly wordCandidates: number;
  private readonly historyLimit: number;
  private readonly memo = new Map<string, Float32Array>();

  constructor(
    readonly ranker: ModelRanker,
    readonly pool: CandidatePool,
    opts: PolicyOptions = {},
  ) {
    this.thresholds = opts.thresholds ?? DEFAULT_THRESHOLDS;
    this.rerank = ranker.crossEncoder ? Math.max(0, opts.rerank ?? 20) : 0;
    this.historyLimit = opts.historyLimit ?? 16;
    this.wordCandidates = Math.max(0, opts.wordCandidates ?? 0);
    this.hybrid = opts.hybrid;
    this.judge = opts.judge;
    this.examples = opts.examples;
    this.exampleWeights = opts.exampleWeights ?? EXAMPLE_WEIGHTS;
    this.unsure = opts.unsure === undefined ? UNSURE : (opts.unsure ?? undefined);
  }

  readonly examples?: ReplyExamples;
  exampleWeights: ExampleWeights;
  readonly unsure?: Unsure;
  private poolRows?: Map<string, number>;

  /** Pool text -> its row (for the pool embeddings of lines found by text). */
  private get poolRow(): Map<string, number> {
    return (this.poolRows ??= new Map(this.pool.texts.map((t, i) => [t, i])));
  }

  /** The corpus characters' persona embeddings (unit vectors), computed once. */
  private corpusPersonas?: Promise<Map<string, Float32Array>>;

  private corpusPersonaVectors(): Promise<Map<string, Float32Array>> {
    const texts = this.examples!.personaTexts;
    return (this.corpusPersonas ??= this.embed([...texts.values()]).then((emb) => new Map([...texts].map(([id, t]) => [id, emb.get(t)!]))));
  }

  /** A speaker's name and persona as one text, as the corpus characters' are embedded. */
  private static personaText(scene: Scene): string {
    return `${scene.selfName}. ${scene.selfPersona ?? ''}`;
  }

  /** The bi-encoder's cosine of a speaker's persona with each corpus character's (for ReplyExamples.roleFit). */
  private async personaSimilarity(scene: Scene): Promise<(id: string) => number | undefined> {
    const all = await this.corpusPersonaVectors();
    const persona = Policy.personaText(scene);
    const me = (await this.embed([persona])).get(persona)!;
    const memo = new Map<string, number>();
    return (id) => {
      let v = memo.get(id);
      if (v === undefined) {
        const e = all.get(id);
        if (!e) return undefined;
        memo.set(id, (v = Policy.dot(me, e)));
      }
      return v;
    };
  }

  /**
   * Candidates from the corpus's replies to lines like `line`, each with how like `line` its prompt
   * was (half TF-IDF cosine, half the bi-encoder's cosine of the two lines; best over its prompts).
   */
  private async analogous(lines: (string | undefined)[]): Promise<Map<string, number>[]> {
    const out = lines.map(() => new Map<string, number>());
    const emb = this.pool.embeddings;
    const ex = this.examples;
    if (!ex || !emb) return out;
    const asked = lines.map((l, i) => ({ l, i })).filter((x): x is { l: string; i: number } => !!x.l);
    if (!asked.length) return out;
    // one encoding call and one search for the whole batch
    const vecs = await this.embed(asked.map((a) => a.l));
    const d = this.ranker.biEncoder.dim;
    const flat = new Float32Array(asked.length * d);
    asked.forEach((a, j) => flat.set(vecs.get(a.l)!, j * d));
    const near = await this.pool.search(flat, 100);
    asked.forEach(({ l: line, i }, j) => {
      const v = vecs.get(line)!;
      const focus = stemsOf(FOCUS_MISS < 1 ? ex.focusOf(line) : []);
      // Prompts alike by words, and by the bi-encoder (lines it places near the one heard).
      const prompts = new Map<string, number>(ex.similarPrompts(line, 40).map((p) => [p.prompt, p.lexical]));
      for (const h of near[j] ?? []) {
        const t = this.pool.texts[h.index]!;
        if (!prompts.has(t) && ex.repliesTo(t).length) prompts.set(t, ex.wordSimilarity(line, t));
      }
      for (const [prompt, lexical] of prompts) {
        const row = this.poolRow.get(prompt);
        const bi = row === undefined ? 0 : Policy.dotRow(v, emb, row);
        // Both must agree: a shared rare word with another meaning ("in charge" / "free of charge"), or a
        // line the bi-encoder places near for its tone, is not the same question.
        const sim = Math.sqrt(Math.max(0, lexical) * Math.max(0, bi));
        // the question turned on another thing ("season" heard, "food" asked): an answer about that
        const onFocus = !focus.size || hasWord(prompt, focus);
        for (const r of ex.repliesTo(prompt)) {
          const s = onFocus || hasWord(r, focus) ? sim : sim * FOCUS_MISS;
          if ((out[i]!.get(r) ?? -Infinity) < s) out[i]!.set(r, s);
        }
      }
      // the best ANALOGOUS_REPLIES only: each one more is scored by the hybrid too
      if (out[i]!.size > ANALOGOUS_REPLIES) out[i] = new Map([...out[i]!].sort((a, b) => b[1] - a[1]).slice(0, ANALOGOUS_REPLIES));
    });
    return out;
  }

  /** The LIGHT-format context for a task. */
  context(view: AgentView, history: HistoryEntry[], task: ContextTask): string {
    return formatContext({ ...view.facts, history: history.slice(-this.historyLimit) }, task);
  }

  /** Normalised embeddings of candidate texts, memoised. */
  private async embed(texts: string[]): Promise<Map<string, Float32Array>> {
    const missing = [...new Set(texts.filter((t) => !this.memo.has(t)))];
    if (missing.length) {
      const emb = await this.ranker.biEncoder.encodeMany(missing, { batchSize: 128 });
      const d = this.ranker.biEncoder.dim;
      missing.forEach((t, i) => {
        if (this.memo.size >= 50_000) this.memo.delete(this.memo.keys().next().value as string);
        this.memo.set(t, emb.slice(i * d, (i + 1) * d));
      });
    }
    const out = new Map<string, Float32Array>();
    for (const t of texts) out.set(t, this.memo.get(t)!);
    return out;
  }

  /** Contexts embedded in one batch; returns one vector per context. */
  private async encode(contexts: string[]): Promise<Float32Array[]> {
    if (!contexts.length) return [];
    const q = await this.ranker.encodeContexts(contexts);
    const d = q.length / contexts.length;
    return contexts.map((_, i) => q.subarray(i * d, (i + 1) * d));
  }

  private static dot(a: Float32Array, b: Float32Array): number {
    let s = 0;
    for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
    return s;
  }

  /** The dot product of `q` with row `row` of the pool's embeddings (rows of q.length). */
  private static dotRow(q: Float32Array, emb: Float32Array, row: number): number {
    const d = q.length;
    let s = 0;
    for (let j = 0; j < d; j++) s += q[j]! * emb[row * d + j]!;
    return s;
  }

  /** Best-first scores of candidates for one query vector (ties keep candidate order). */
  private scoreList(q: Float32Array, cands: string[], emb: Map<string, Float32Array>): Scored {
    const s = cands.map((c) => Policy.dot(q, emb.get(c)!));
    const order = argsortDesc(s);
    return { texts: order.map((i) => cands[i]!), scores: order.map((i) => s[i]!) };
  }

  /**
   * Names of the world's characters (and other proper names) that an utterance must not address or
   * mention unless their bearer is present: a retrieved line that greets "Laundress!" is not said
   * to a minstrel. Set once per world (`setWorldNames`); each speech turn passes who is present.
   */
  private worldNames: { name: string; re: RegExp }[] = [];

  setWorldNames(names: string[]): void {
    const uniq = [...new Set(names.map((n) => n.toLowerCase().trim()).filter((n) => n.length > 2))].sort((a, b) => b.length - a.length);
    this.worldNames = uniq.map((name) => ({ name, re: new RegExp(`\\b${escapeRe(name)}\\b`, 'i') }));
    this.anyWorldName = uniq.length ? new RegExp(`\\b(?:${uniq.map(escapeRe).join('|')})\\b`, 'i') : null;
  }

  /** One pattern for all the names: most lines name nobody, and are settled by one test. */
  private anyWorldName: RegExp | null = null;

  /** Does the utterance name a character of the world who is not one of `present`? */
  namesAbsent(text: string, present: string[]): boolean {
    if (!this.anyWorldName?.test(text)) return false;
    const here = present.map((p) => p.toLowerCase());
    return this.worldNames.some((n) => !here.some((h) => h === n.name || h.includes(n.name) || n.name.includes(h)) && n.re.test(text));
  }

  /** Word index over the pool, for candidates that share rare words with the partner's line. */
  private lexical?: LexicalIndex;

  /** The pool rows worth scoring for one context: the bi-encoder's best, and (if asked for) the best by word overlap. */
  private candidatesFor(ev: ContextEvidence | undefined, hits: { index: number; score: number }[], q: Float32Array): { index: number; bi: number }[] {
    const out = new Map<number, number>(hits.map((h) => [h.index, h.score]));
    if (ev && this.hybrid && this.pool.embeddings && this.wordCandidates > 0) {
      this.lexical ??= LexicalIndex.fromTexts(this.pool.texts, this.hybrid.freq);
      // what the partner just said, else the conversation so far
      for (const i of this.lexical.search(ev.last.norm ? ev.last : ev.earlier, this.wordCandidates)) {
        if (!out.has(i)) out.set(i, Policy.dotRow(q, this.pool.embeddings, i));
      }
    }
    return [...out].map(([index, bi]) => ({ index, bi }));
  }

  /**
   * What to say, for several speech contexts: retrieve from the pool (bi-encoder, and word overlap
   * when asked for with the hybrid model), order by the hybrid score (or the cross-encoder, or the
   * bi-encoder), and say the best line the judge accepts for this speaker and scene (with the
   * partner's name in its slot). Nothing acceptable among the first 100: nothing is said.
   */
  async speak(contexts: string[], scenes: (Scene | undefined)[] = []): Promise<Said[]> {
    if (!contexts.length) return [];
    // The replies to like lines (their own encoding and search) and the speakers' personas (for the
    // role fit; memoised) are asked for first and in parallel with the contexts: each is the same call
    // as one after the other, and the inference thread works on them while this one waits.
    const withExamples = !!(this.examples && this.hybrid);
    const analogsP = withExamples ? this.analogous(scenes.map((sc) => sc?.partnerLine)) : Promise.resolve([]);
    const personasP = withExamples ? this.embed(scenes.flatMap((sc) => (sc ? [Policy.personaText(sc)] : []))) : undefined;
    // (a failure is thrown where each is awaited, below; not reported as unhandled meanwhile)
    analogsP.catch(() => {});
    personasP?.catch(() => {});
    const q = await this.ranker.encodeContexts(contexts);
    const d = q.length / contexts.length;
    const k = Math.max(this.judge ? 100 : 20, this.rerank);
    const hits = await this.pool.search(q, k);
    const analogs = await analogsP;
    await personasP;
    return Promise.all(
      contexts.map(async (ctx, i) => {
        const scene = scenes[i];
        // both have said goodbye: nothing more to say (a wave, perhaps: the actions and emotes are ranked apart)
        if (scene?.flow?.closed) return { text: '' };
        // a greeting, a goodbye or "how are you": a plain line (the corpus's are about their own scenes)
        const heardKind = scene?.partnerLine && this.unsure ? unsureKind(scene.partnerLine) : undefined;
        // (thanks with nothing more asked: "Hm, I'll keep that in mind, thank you." -> "You're welcome.")
        if (scene && heardKind && (FORMULAS.has(heardKind) || (heardKind === 'thanks' && thanksFor(scene.partnerLine!) && lineKind(scene.partnerLine!) === 'remark'))) {
          const plain = plainReply(scene, heardKind);
          if (plain) return plain;
        }
        const qi = q.subarray(i * d, (i + 1) * d);
        const ev = this.hybrid?.has('speech') ? this.hybrid.evidence(ctx) : undefined;
        const found = this.candidatesFor(ev, hits[i] ?? [], qi);
        let texts: string[];
        /** Each scored candidate's evidence from the corpus: its prompt's likeness to the line heard, its speakers' to this one. */
        const evidence = new Map<string, { s: number; r: number }>();
        if (ev && this.hybrid) {
          const cands = found.map((f) => this.pool.texts[f.index]!);
          const bis = found.map((f) => f.bi);
          const analog = analogs[i] ?? new Map<string, number>();
          if (analog.size) {
            const have = new Set(cands);
            const emb = this.pool.embeddings!;
            for (const r of analog.keys()) {
              const row = this.poolRow.get(r);
              if (have.has(r) || row === undefined) continue;
              cands.push(r);
              bis.push(Policy.dotRow(qi, emb, row));
            }
          }
          const scores = this.hybrid.scoreLive(ev, cands, bis);
          if (this.examples && scene) {
            const me = this.examples.speakerVector(scene.selfName, scene.selfPersona ?? '');
            const semantic = await this.personaSimilarity(scene);
            const w = this.exampleWeights;
            cands.forEach((c, j) => {
              // An answer to a like question, best from a like speaker; any line a little by who said it.
              const sim = analog.get(c) ?? 0;
              const role = this.examples!.roleFit(c, me, semantic) ?? 0;
              evidence.set(c, { s: sim, r: role });
              scores[j]! += w.prompt * sim + w.answer * sim * role + w.role * role;
            });
          }
          texts = argsortDesc(scores).map((j) => cands[j]!);
        } else {
          texts = found.sort((x, y) => y.bi - x.bi).map((f) => this.pool.texts[f.index]!);
          if (this.rerank > 0 && this.ranker.crossEncoder && texts.length) {
            const head = texts.slice(0, this.rerank);
            const logits = await this.ranker.crossEncoder.score(ctx, head);
            texts = [...argsortDesc(logits).map((j) => head[j]!), ...texts.slice(this.rerank)];
          }
        }
        if (!scene) return { text: texts[0] ?? '' };
        const present = [scene.selfName, ...(scene.partnerName ? [scene.partnerName] : []), ...scene.present];
        const aboutYou = !!scene.partnerLine && asksAboutYou(scene.partnerLine);
        // "Is that so?" -> "Hm. I couldn't say." -> "Well, well.": two model characters trading plain lines
        // (135 of 600 lines of seeded episodes were plain): after one, the character says its best line instead.
        const afterPlain = !!scene.partnerLine && isPlainLine(scene.partnerLine);
        /** The first line passed over as another character's answer about itself (said only if nothing else is left). */
        let passedStranger: string | undefined;
        for (const t of texts) {
          // after "Well, well." or "Hm. Go on.": not "Am I?", "Thank you, friend." or "It's a deal."
          if (afterPlain && reacts(t)) continue;
          if (!this.judge) {
            if (!scene.said.has(t.toLowerCase().trim()) && !this.namesAbsent(t, present)) return { text: t };
            continue;
          }
          const v = this.judge.judge(t, scene);
          if (v.ok && !this.namesAbsent(v.text, present)) {
            const e = evidence.get(t);
            // another kind of character's line about things that are not here ("No thanks, you'd need waders.",
            // the reed cutter's, from a dockhand), or about its own life ("Since I married..."): the next line
            if (e && e.r < STRANGERS_THINGS && (this.judge.absentThings(v.text, scene).length || tellsOwnLife(v.text))) continue;
            // "Who is in charge?" -> "Yes. ...": an answer to another question
            if (scene.partnerLine && yesNoToWh(scene.partnerLine, v.text)) continue;
            // "There." with nothing handed over (four characters answered praise so): something plain
            if (handingOnly(v.text)) {
              const plain = afterPlain ? undefined : plainReply(scene, heardKind);
              if (plain) return plain;
              continue;
            }
            // asked about itself ("Where are you from?", "Do you believe in magic?"), another kind of
            // character's answer tells that character's life: only its own, or something plain (in the
            // earlier blind readings such answers were nonsense in 44% of 77 readings, the plain
            // "personal" lines in about 2%)
            if (e && e.r < STRANGERS_THINGS && aboutYou) {
              passedStranger ??= v.text;
              continue;
            }
            // say something plain instead: its own line, but an answer to something else altogether; or an
            // answer to some other line, from someone unlike this character (or after passing over others'
            // answers about themselves)
            const u = this.unsure;
            if (e && u && !afterPlain && ((u.offTopic !== undefined && e.s < u.offTopic) || (e.s < u.prompt && (e.r < u.role || passedStranger !== undefined)))) {
              const plain = plainReply(scene, heardKind);
              if (plain) return plain;
            }
            return { text: v.text };
          }
        }
        if (passedStranger !== undefined) return (afterPlain ? undefined : plainReply(scene, heardKind)) ?? { text: passedStranger };
        return { text: '' };
      }),
    );
  }

  /**
   * Ranked valid actions and emotes for several turns (contexts with the history given, which should
   * end with what the character just said). One encoding call for all contexts.
   */
  async rankActs(items: { view: AgentView; history: HistoryEntry[] }[]): Promise<{ actions: Scored; emotes: Scored }[]> {
    if (!items.length) return [];
    const ctxs = items.flatMap((it) => [this.context(it.view, it.history, 'action'), this.context(it.view, it.history, 'emote')]);
    const [vecs, actEmb, emoteEmb] = await Promise.all([this.encode(ctxs), this.embed(items.flatMap((it) => it.view.validActions)), this.embed([...EMOTES])]);
    return items.map((it, j) => {
      const actions = this.scoreList(vecs[2 * j]!, it.view.validActions, actEmb);
      const emotes = this.scoreList(vecs[2 * j + 1]!, [...EMOTES], emoteEmb);
      if (!this.hybrid) return { actions, emotes };
      // Ordered by the hybrid score; each keeps its bi-encoder score (the thresholds are on those).
      const hybrid = this.hybrid;
      const [actCtx, emoteCtx] = [ctxs[2 * j]!, ctxs[2 * j + 1]!];
      let actEv: ContextEvidence | undefined;
      const actEvidence = () => (actEv ??= hybrid.evidence(actCtx));
      // The emote context is the action context with another task line, which the evidence does not
      // read (a `_task_` line has no words, and the task is not a feature): the same evidence, not read twice.
      const emoteEvidence = () => (sameButTask(actCtx, emoteCtx) ? { ...actEvidence(), parts: { ...actEvidence().parts, task: 'emote', all: emoteCtx } } : hybrid.evidence(emoteCtx));
      return { actions: this.hybridOrder('action', actEvidence, actions), emotes: this.hybridOrder('emote', emoteEvidence, emotes) };
    });
  }

  private hybridOrder(task: 'action' | 'emote', evidence: () => ContextEvidence, list: Scored): Scored {
    if (!this.hybrid?.has(task) || !list.texts.length) return list;
    const s = this.hybrid.score(task, evidence(), list.texts, list.scores);
    const order = argsortDesc(s);
    return { texts: order.map((i) => list.texts[i]!), scores: order.map((i) => list.scores[i]!) };
  }

  /**
   * Ready for play: the candidate embeddings of these characters' valid actions (and the emotes)
   * computed, and one batch of their turns decided and thrown away, so that the first real turns
   * pay for neither. Changes nothing in the world.
   */
  async warm(views: AgentView[]): Promise<void> {
    if (!views.length) return;
    const actions = [...new Set(views.flatMap((v) => v.validActions))].slice(0, 40_000);
    await this.embed([...actions, ...EMOTES]);
    if (this.examples) await this.corpusPersonaVectors(); // the corpus characters' personas, embedded once
    await this.decide(views.slice(0, 32).map((view) => ({ view, history: [] })));
  }

  /** Decide a batch of turns. */
  async decide(inputs: TurnInput[]): Promise<TurnChoice[]> {
    const choices: TurnChoice[] = inputs.map(() => ({ say: '', actions: [], why: { say: 'model', act: 'none' } }));

    // 1. Rules that settle speech and actions.
    const needSpeech: number[] = [];
    inputs.forEach((inp, i) => {
      const c = choices[i]!;
      const v = inp.view;
      const variant = inp.variant ?? 0;
      if (inp.queued && v.validActions.includes(inp.queued)) {
        c.actions = [inp.queued];
        c.why.act = 'plan';
      }
      if (v.plan && !c.actions.length) {
        const p = v.plan;
        c.actions = p.steps;
        c.why.act = 'request';
        if (p.failure) {
          c.say = refuse(p.failure.reason, p.steps.length);
          c.sayAfter = p.steps.length > 0;
          c.why.say = 'refusal';
        } else {
          c.say = acknowledge(p.verb, p.steps, variant);
          c.why.say = 'request';
        }
      }
      // The first true answer not said already (else the model speaks).
      const saidBefore = new Set(inp.history.filter((h) => h.speaker === 'self' && h.kind === 'say').map((h) => h.text));
      const answer = v.moreAnswers ? [v.answer, ...v.moreAnswers].find((a) => a && ![...saidBefore].some((x) => x.includes(a))) : v.answer;
      if (answer) {
        c.say = c.say ? `${answer} ${c.say}` : answer;
        c.why.say = 'answer';
      }
      if (!c.say) needSpeech.push(i);
    });

    // 2. Speech from the model, for turns the rules left silent.
    const said = await this.speak(
      needSpeech.map((i) => this.context(inputs[i]!.view, inputs[i]!.history, 'speech')),
      needSpeech.map((i) => sceneOf(inputs[i]!.view, inputs[i]!.history)),
    );
    needSpeech.forEach((i, j) => {
      choices[i]!.say = said[j]!.text;
      choices[i]!.why.say = said[j]!.unsure ? 'unsure' : 'model';
    });

    // 3. Actions and emotes from the model (contexts include what the character just said).
    // A turn with a plan (carried out or refused) takes no other action; a refusal may still emote.
    const needAct = inputs.map((_, i) => i).filter((i) => !choices[i]!.actions.length);
    if (needAct.length) {
      const ranked = await this.rankActs(
        needAct.map((i) => {
          const inp = inputs[i]!;
          const h: HistoryEntry[] = choices[i]!.say ? [...inp.history, { speaker: 'self', kind: 'say', text: choices[i]!.say }] : inp.history;
          return { view: inp.view, history: h };
        }),
      );
      needAct.forEach((i, j) => {
        const inp = inputs[i]!;
        const c = choices[i]!;
        const v = inp.view;
        const { actions: acts, emotes } = ranked[j]!;
        // A request carried out or refused takes no other action; nor does an answer from the graph
        // (asked what it carries, a character tells, and does not hand things over).
        const refused = c.why.act === 'request' || c.why.say === 'answer';
        c.scores = { action: acts.scores[0], topAction: acts.texts[0], emote: emotes.scores[0], topEmote: emotes.texts[0] };
        const partner = v.partner?.name.toLowerCase();
        if (v.cue === 'threat' && !refused) {
          // Hit back when the model ranks hitting among its two best actions; else a frightened emote.
          const hit = partner ? `hit ${partner}` : undefined;
          const rank = hit ? acts.texts.indexOf(hit) : -1;
          if (rank >= 0 && rank < 2) {
            c.actions = [hit!];
            c.why.act = 'cue';
          } else {
            c.emote = emotes.texts.find((e) => (FEAR_EMOTES as readonly string[]).includes(e)) ?? 'scream';
            c.why.emote = 'cue';
          }
          return;
        }
        if (v.cue === 'sad' && !refused && partner && v.validActions.includes(`hug ${partner}`)) {
          c.actions = [`hug ${partner}`];
          c.why.act = 'cue';
          return;
        }
        // The model's best action that is not a repeat of the character's own recent ones, and not
        // an unprovoked attack or theft; taken when its score reaches the threshold.
        const allowed = actionFilter(inp.history, v.facts.self.persona, c.say);
        const ok = (x: string) => allowed(x) && motivated(x, inp.history, c.say, v.partner?.name);
        const a = acts.texts.findIndex(ok);
        const e = emotes.texts.findIndex((x) => !recentEmotes(inp.history).has(x));
        // Whether to act is decided on the bi-encoder's scores (the tuned thresholds); which action, by the order above.
        const gate = (list: Scored) => Math.max(-Infinity, ...list.scores);
        if (!refused && a >= 0 && gate(acts) >= this.thresholds.action) {
          c.actions = [acts.texts[a]!];
          c.why.act = 'model';
        } else if (e >= 0 && gate(emotes) >= this.thresholds.emote) {
          c.emote = emotes.texts[e]!;
          c.why.emote = 'model';
        }
      });
    }
    return choices;
  }
}
