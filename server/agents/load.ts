/**
 * Loading the model policy: the ranker from a model directory (default models/default), the
 * dialogue pool (the model's utterances.txt plus the written episodes), and the act / emote
 * thresholds (tuned on the written corpus, cached).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ModelRanker, readUtterances, type Tokenizer } from '../../models/runtime/index.js';
import type { World } from '../engine/world.js';
import { readEpisodeFiles } from '../episodes/read.js';
import { splitOf, type SplitConfig } from '../episodes/splits.js';
import { Hybrid } from '../../models/runtime/hybrid.js';
import { CORPUS_WORLD, loadWorld } from '../world-io/load-world.js';
import { World as WorldClass } from '../engine/world.js';
import { LineJudge, PoolLines, worldProperNames } from './line-judge.js';
import { ReplyExamples } from './reply-examples.js';
import { Policy, type PolicyOptions, type Thresholds } from './policy.js';
import { tunedThresholds, type TuneResult } from './thresholds.js';

export const DEFAULT_MODEL_DIR = resolve(new URL('../../models/default', import.meta.url).pathname);
export const DEFAULT_EPISODES = resolve(new URL('../../world-data/episodes', import.meta.url).pathname);
export const DEFAULT_CACHE_DIR = '.cache/agents';

/**
 * Whether reranking with the model's cross-encoder helps, by its own training report
 * (training.json: validation Recall@1 of the dialogue task after the last bi- and cross-encoder
 * epochs). Unknown (no report) counts as helping.
 */
export function crossEncoderHelps(modelDir: string): boolean {
  const file = join(modelDir, 'training.json');
  if (!existsSync(modelDir) || !existsSync(file)) return true;
  try {
    const report = JSON.parse(readFileSync(file, 'utf8')) as { epochs?: { model: string; valid?: { dialogue_r1?: number } }[] };
    const last = (m: string) => [...(report.epochs ?? [])].reverse().find((e) => e.model === m)?.valid?.dialogue_r1;
    const bi = last('bi');
    const cross = last('cross');
    return bi === undefined || cross === undefined || cross > bi;
  } catch {
    return true;
  }
}

/** Utterances reranked by the cross-encoder in live play by default (0 when it does not help, see crossEncoderHelps). */
export const DEFAULT_LIVE_RERANK = 10;

export interface LoadPolicyOptions extends Omit<PolicyOptions, 'thresholds' | 'rerank' | 'examples'> {
  /** Use the corpus's replies to similar lines and who said them (default true; reply-examples.ts). */
  examples?: boolean;
  /** Cross-encoder rerank of the best k utterances; 'auto' (default): DEFAULT_LIVE_RERANK when the model's cross-encoder helps, else 0. */
  rerank?: number | 'auto';
  /** Model directory (default models/default, or $LIGHTMUD_MODEL). */
  modelDir?: string;
  /** Where to cache pool embeddings and tuned thresholds (default $LIGHTMUD_AGENT_CACHE or .cache/agents). */
  cacheDir?: string;
  /** Files or directories of utterances for the pool (default: the model's utterances.txt and world-data/episodes). */
  utterances?: string[];
  /** Thresholds, or 'tune' (default when `world` is given) to tune them on the written corpus. */
  thresholds?: Thresholds | 'tune';
  /** The world the corpus is set in (for tuning). */
  world?: World;
  /** Episodes to tune on (default world-data/episodes). */
  tuneOn?: string;
  /** onnxruntime intra-op threads (default 1). */
  threads?: number;
  log?: (line: string) => void;
}

export interface LoadedPolicy {
  policy: Policy;
  modelDir: string;
  poolSize: number;
  poolSource: string;
  tuning?: TuneResult;
  /** Utterances reranked by the cross-encoder per turn (0: none). */
  rerank: number;
}

/**
 * Memoise the tokenizer's word pieces per text. Contexts are tokenised line by line, and a
 * character's contexts repeat nearly every line (setting, persona, objects; the speech, action and
 * emote contexts of one turn differ in one line), so this removes most of the tokenising, the main
 * thread's largest cost per turn (measured: episodes 2.3x faster). `tokens()` is a pure function of
 * its text, so caching it changes no result. (This belongs in models/runtime/tokenizer.ts; it is
 * done here on the policy's own tokenizer instance until it is there.)
 */
export function memoiseTokens(tokenizer: Tokenizer, limit = 100_000): void {
  const t = tokenizer as Tokenizer & { tokens(text: string): string[]; __memoised?: boolean };
  if (t.__memoised) return;
  const original = t.tokens.bind(t);
  const cache = new Map<string, string[]>();
  t.tokens = (text: string) => {
    let v = cache.get(text);
    if (!v) {
      v = original(text);
      if (cache.size >= limit) cache.clear();
      cache.set(text, v);
    }
    return v;
  };
  t.__memoised = true;
}

/** The corpus world (the bundled world plus the corpus settings) and the written episodes set in it. */
function corpus(): { corpusWorld?: World; episodes: ReturnType<typeof readEpisodeFiles>['episodes'] } {
  try {
    const corpusWorld = new WorldClass(loadWorld(CORPUS_WORLD, { seed: 1 }).state);
    return { corpusWorld, episodes: existsSync(DEFAULT_EPISODES) ? readEpisodeFiles(DEFAULT_EPISODES).episodes : [] };
  } catch {
    return { episodes: [] }; // without the corpus world, the checks that need no metadata still apply
  }
}

/**
 * The rules on retrieved lines (line-judge.ts), with who said each corpus line to whom (from the
 * written episodes in the corpus world) and the proper names the live world may mention.
 */
export function lineJudge(texts: string[], world: World | undefined, c = corpus()): LineJudge {
  return new LineJudge(new PoolLines(texts, c.corpusWorld ? c.episodes : [], c.corpusWorld), world ? worldProperNames(world) : new Set());
}

export function defaultModelDir(): string {
  return process.env.LIGHTMUD_MODEL ? resolve(process.env.LIGHTMUD_MODEL) : DEFAULT_MODEL_DIR;
}

export async function loadPolicy(opts: LoadPolicyOptions = {}): Promise<LoadedPolicy> {
  const modelDir = resolve(opts.modelDir ?? defaultModelDir());
  const cacheDir = opts.cacheDir ?? process.env.LIGHTMUD_AGENT_CACHE ?? DEFAULT_CACHE_DIR;
  // One onnxruntime thread by default: these models are small, and onnxruntime's spinning thread
  // pool otherwise competes with everything else for the cores (measured: episodes 1.7x faster).
  const ranker = await ModelRanker.load(modelDir, { threads: opts.threads ?? 1 });
  memoiseTokens(ranker.tokenizer);
  // The written episodes' own files only (*.jsonl at the top of the directory): exports beside them
  // (parlai/*.txt) hold action and emote labels too, which are not things to say.
  const episodeFiles = existsSync(DEFAULT_EPISODES) ? readdirSync(DEFAULT_EPISODES).filter((f) => f.endsWith('.jsonl')).sort().map((f) => join(DEFAULT_EPISODES, f)) : [];
  const sources = opts.utterances ?? [join(modelDir, 'utterances.txt'), ...episodeFiles].filter((p) => existsSync(p));
  const texts = sources.length ? readUtterances(sources) : [];
  if (!texts.length) throw new Error(`no utterances for the dialogue pool (looked in ${sources.join(', ') || `${modelDir}/utterances.txt and ${DEFAULT_EPISODES}`})`);
  const hybrid = opts.hybrid ?? Hybrid.read(modelDir);
  // The pool's embeddings stay in JavaScript too when the hybrid adds word-overlap candidates (their bi-encoder scores).
  const pool = await ranker.buildPool(texts, { cacheDir, name: `dialogue-${ranker.biEncoder.fingerprint.slice(0, 12)}`, keepEmbeddings: !!hybrid });
  const rerank = hybrid ? 0 : opts.rerank === undefined || opts.rerank === 'auto' ? (crossEncoderHelps(modelDir) ? DEFAULT_LIVE_RERANK : 0) : opts.rerank;
  // the written corpus, read once, for the judge and the replies to like lines (when either wants it)
  const wantExamples = !!hybrid && opts.examples !== false;
  const written = !opts.judge || wantExamples ? corpus() : undefined;
  const judge = opts.judge ?? lineJudge(texts, opts.world, written);
  // Replies to lines like the one heard, and who said them (personas compared with the hybrid's IDF from the training split).
  const examples = wantExamples && written?.episodes.length ? new ReplyExamples(written.episodes, written.corpusWorld, hybrid!.freq) : undefined;
  const policy = new Policy(ranker, pool, { rerank, historyLimit: opts.historyLimit, hybrid, judge, wordCandidates: opts.wordCandidates, examples, exampleWeights: opts.exampleWeights, unsure: opts.unsure });
  // Who may be named in what a character says (see Policy.namesAbsent): the world's characters, by
  // their names and by the proper names in them ("Jory", "Blackwick"; not titles like "Father").
  const TITLES = /^(father|mother|brother|sister|baroness|baron|lord|lady|sir|dame|master|mistress|old|young|the|captain)$/i;
  if (opts.world) policy.setWorldNames(opts.world.characters().flatMap((c) => [c.name, ...c.name.split(/\s+/).filter((w) => /^[A-Z]/.test(w) && w.length > 3 && !TITLES.test(w))]));
  let tuning: TuneResult | undefined;
  if (opts.thresholds && opts.thresholds !== 'tune') policy.thresholds = opts.thresholds;
  else if (opts.world) {
    const corpus = opts.tuneOn ?? DEFAULT_EPISODES;
    if (existsSync(corpus)) {
      const all = corpus === DEFAULT_EPISODES && written?.episodes.length ? written.episodes : readEpisodeFiles(corpus).episodes;
      // Tune on held-out episodes (not the model's training split) when the corpus says which.
      const splitsFile = join(corpus, 'splits.json');
      let episodes = all;
      if (existsSync(splitsFile)) {
        const cfg = JSON.parse(readFileSync(splitsFile, 'utf8')) as SplitConfig;
        const held = all.filter((e) => opts.world!.room(e.room) && splitOf(e, opts.world!, cfg) !== 'train');
        if (held.length >= 20) episodes = held;
      }
      const tuned = await tunedThresholds(policy, opts.world, episodes, { cacheDir });
      // Too few corpus turns in this world (another world than the corpus's): keep the defaults.
      if (tuned.n >= 50) {
        tuning = tuned;
        policy.thresholds = { action: tuned.action, emote: tuned.emote };
      }
    }
    if (tuning) {
      opts.log?.(`act/emote thresholds ${tuning.action.toFixed(3)} / ${tuning.emote.toFixed(3)}: agreement with the corpus ${(tuning.agreement * 100).toFixed(1)}% (doing nothing: ${(tuning.baseline * 100).toFixed(1)}%), acts ${(tuning.actRate * 100).toFixed(0)}%, emotes ${(tuning.emoteRate * 100).toFixed(0)}% of turns`);
    }
  }
  return { policy, modelDir, poolSize: pool.size, poolSource: pool.source.from, tuning, rerank };
}
