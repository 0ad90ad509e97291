/**
 * `lightmud fit-hybrid`: fits the hybrid ranker's weights (models/runtime/hybrid.ts) and writes
 * `hybrid.json` into a model directory.
 *
 * - Document frequencies: the training split's contexts and gold labels (never the data scored).
 * - Weights: a conditional logit (softmax over each example's candidates) with L2, fitted on the
 *   valid split, which the encoders never trained on; their scores there are honest. (Fitted on the
 *   training split the weight of the bi-encoder would be inflated: it has memorised those lines.)
 *   The L2 strength is chosen by 5-fold cross-fitting on valid, and the cross-fitted Recall@1 is
 *   reported next to the bi-encoder's and IR's on the same examples. A task whose cross-fitted
 *   hybrid does not reach the bi-encoder alone gets no weights: the bi-encoder ranks it alone.
 * - Word associations (models/runtime/associations.ts): counted on the training split's dialogue
 *   and written as `associations.bin` beside `hybrid.json`; the speech features read them.
 * - Input: the ParlAI files of `lightmud corpus export` (the very files `lightmud eval` scores).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { accumulate, readParlaiFile, type EvalExample, type EvalTask } from '../eval/parlai.js';
import { candidatesOf } from '../eval/evaluate.js';
import { cosine, DocFrequencies } from '../runtime/lexical.js';
import { Rng } from '../../server/engine/rng.js';
import { featureNames, featureRows, HYBRID_FILE, linearScore, taskOf, type HybridModel, type HybridTask, type HybridWeights, contextEvidence } from '../runtime/hybrid.js';
import type { Ranker } from '../runtime/ranker.js';
import type { Associations } from '../runtime/associations.js';
import { fitAssociations } from './fit-associations.js';

export interface FitGroup {
  rows: number[][];
  gold: number;
}

export interface FitOptions {
  /** ParlAI directory with train.* and valid.* files. */
  parlai: string;
  /** The model directory to write hybrid.json into. */
  modelDir: string;
  ranker: Ranker;
  log(line: string): void;
}

/** How many lines stand beside the gold in a live-style group (as LIGHT's 19 distractors). */
const LIVE_DISTRACTORS = 19;
/** Of them, how many from the same setting (the rest from anywhere, as the word index retrieves). */
const LIVE_LOCAL = 10;

const TASKS: [EvalTask, HybridTask][] = [['dialogue', 'speech'], ['action', 'action'], ['emote', 'emote']];

/** Softmax-over-candidates logistic regression with L2, on standardised features (Adam, full batch). */
export function fitConditionalLogit(groups: FitGroup[], dims: number, l2: number, iterations = 300): number[] {
  const mean = new Float64Array(dims);
  const sd = new Float64Array(dims);
  let rows = 0;
  for (const g of groups) for (const r of g.rows) { rows++; for (let j = 0; j < dims; j++) mean[j] = mean[j]! + r[j]!; }
  for (let j = 0; j < dims; j++) mean[j] = mean[j]! / Math.max(1, rows);
  for (const g of groups) for (const r of g.rows) for (let j = 0; j < dims; j++) sd[j] = sd[j]! + (r[j]! - mean[j]!) ** 2;
  for (let j = 0; j < dims; j++) sd[j] = Math.sqrt(sd[j]! / Math.max(1, rows)) || 1;
  const z = groups.map((g) => ({ gold: g.gold, rows: g.rows.map((r) => r.map((v, j) => (v - mean[j]!) / sd[j]!)) }));
  const w = new Float64Array(dims);
  const m = new Float64Array(dims);
  const v = new Float64Array(dims);
  const lr = 0.05, b1 = 0.9, b2 = 0.999;
  for (let it = 1; it <= iterations; it++) {
    const grad = new Float64Array(dims);
    for (const g of z) {
      const s = g.rows.map((r) => r.reduce((acc, x, j) => acc + x * w[j]!, 0));
      const max = Math.max(...s);
      const e = s.map((x) => Math.exp(x - max));
      const sum = e.reduce((a, b) => a + b, 0);
      g.rows.forEach((r, i) => {
        const p = e[i]! / sum - (i === g.gold ? 1 : 0);
        for (let j = 0; j < dims; j++) grad[j] = grad[j]! + p * r[j]!;
      });
    }
    for (let j = 0; j < dims; j++) {
      const gj = grad[j]! / Math.max(1, z.length) + l2 * w[j]!;
      m[j] = b1 * m[j]! + (1 - b1) * gj;
      v[j] = b2 * v[j]! + (1 - b2) * gj * gj;
      w[j] = w[j]! - (lr * (m[j]! / (1 - b1 ** it))) / (Math.sqrt(v[j]! / (1 - b2 ** it)) + 1e-8);
    }
  }
  // back to raw features (the mean shifts every candidate of a group alike, so it drops out)
  return Array.from(w, (x, j) => x / sd[j]!);
}

/** Share of groups whose gold candidate scores strictly highest (ties count as misses, as in the eval's worst case). */
export function recallAt1(groups: FitGroup[], score: (row: number[]) => number): number {
  let hit = 0;
  for (const g of groups) {
    const s = g.rows.map(score);
    if (s.every((x, i) => i === g.gold || x < s[g.gold]!)) hit++;
  }
  return groups.length ? hit / groups.length : 0;
}

/** Cross-fitted Recall@1 of the conditional logit with a given L2 strength. */
export function crossFitted(groups: FitGroup[], dims: number, l2: number, folds = 5): number {
  let hits = 0;
  for (let f = 0; f < folds; f++) {
    const train = groups.filter((_, i) => i % folds !== f);
    const test = groups.filter((_, i) => i % folds === f);
    const w = fitConditionalLogit(train, dims, l2);
    hits += recallAt1(test, (r) => r.reduce((a, x, j) => a + x * w[j]!, 0)) * test.length;
  }
  return hits / groups.length;
}

async function groupsFor(examples: EvalExample[], task: EvalTask, htask: HybridTask, ranker: Ranker, freq: DocFrequencies, associations: Associations): Promise<{ groups: FitGroup[]; ir: number }> {
  const groups: FitGroup[] = [];
  let irHits = 0;
  for (const ex of examples) {
    const { candidates, gold } = candidatesOf(ex, task);
    const ranked = await ranker.rank(ex.context, candidates);
    const bi = new Float64Array(candidates.length);
    for (const r of ranked) bi[r.index] = r.biScore ?? r.score;
    if (taskOf(ex.context) !== htask) throw new Error(`an example of the ${task} file has a context of another task`);
    const ev = contextEvidence(ex.context, freq, associations);
    groups.push({ rows: featureRows(htask, ev, candidates, bi, freq), gold: gold[0]! });
    const ir = candidates.map((c) => cosine(ev.all, freq.vector(c)));
    if (ir.every((x, i) => i === gold[0] || x < ir[gold[0]!]!)) irHits++;
  }
  return { groups, ir: examples.length ? irHits / examples.length : 0 };
}

export async function fitHybrid(opts: FitOptions): Promise<HybridModel> {
  const freq = new DocFrequencies();
  const train = accumulate(readParlaiFile(join(opts.parlai, 'train.dialogue.txt')), 'dialogue');
  freq.add(train.flatMap((ex) => [ex.context, ...ex.labels]));
  opts.log(`hybrid: document frequencies from ${train.length} training contexts and their labels (${freq.df.size} words)`);
  const associations = fitAssociations(train.map((ex) => ({ context: ex.context, reply: ex.labels[0]! })));
  associations.write(opts.modelDir);
  opts.log(`hybrid: word associations from ${train.length} training exchanges: ${associations.pairs} pairs, ${associations.sourceWords.length} source and ${associations.replyWords.length} reply words`);
  const model: HybridModel = { format: 'lightmud-hybrid', version: 1, idf: freq.toJSON(), tasks: {}, fitted: { on: 'valid split', l2: {}, valid_cross_fitted_recall_at_1: {}, valid_bi_encoder_recall_at_1: {}, valid_ir_recall_at_1: {}, n: {} } };
  const fitted = model.fitted as Record<string, Record<string, number>>;
  for (const [task, htask] of TASKS) {
    const examples = accumulate(readParlaiFile(join(opts.parlai, `valid.${task}.txt`)), task);
    const { groups, ir } = await groupsFor(examples, task, htask, opts.ranker, freq, associations);
    const names = featureNames(htask);
    let best = { l2: 0.01, r: -1 };
    for (const l2 of [0.001, 0.01, 0.1]) {
      const r = crossFitted(groups, names.length, l2);
      if (r > best.r) best = { l2, r };
    }
    const weights = fitConditionalLogit(groups, names.length, best.l2);
    const bi = recallAt1(groups, (r) => r[0]!);
    const w: HybridWeights = { features: [...names], weights: weights.map((x) => Number(x.toPrecision(6))) };
    // Held out, the hybrid must beat the bi-encoder it adds to; else the task keeps the bi-encoder alone.
    const kept = best.r >= bi;
    if (kept) model.tasks[htask] = w;
    fitted['l2']![htask] = best.l2;
    fitted['valid_cross_fitted_recall_at_1']![htask] = Number(best.r.toFixed(4));
    fitted['valid_bi_encoder_recall_at_1']![htask] = Number(bi.toFixed(4));
    fitted['valid_ir_recall_at_1']![htask] = Number(ir.toFixed(4));
    fitted['n']![htask] = groups.length;
    opts.log(`hybrid ${htask}: n ${groups.length}, valid Recall@1 cross-fitted ${best.r.toFixed(3)} (L2 ${best.l2}); bi-encoder alone ${bi.toFixed(3)}, IR ${ir.toFixed(3)}${kept ? '' : '; not better held out: the bi-encoder alone ranks this task'}`);
  }
  if (model.tasks.speech) await fitLive(model, opts.ranker, freq, associations, train, opts);
  writeFileSync(join(opts.modelDir, HYBRID_FILE), JSON.stringify(model) + '\n');
  return model;
}

const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9 ]/g, '').replace(/\s+/g, ' ').trim();

/** The `_setting_name` line of a LIGHT context. */
const settingOf = (context: string) => /^_setting_name (.*)$/m.exec(context)?.[1]?.trim() ?? '';

/**
 * Live speech weights. Live play ranks lines retrieved from the pool: the bi-encoder's best, most
 * of them written in the same kind of scene, where the scene's words (persona, setting, objects)
 * cannot tell the right line from the others and the fit to the conversation must; and the word
 * index's best, from anywhere. Here each valid dialogue example's gold line stands among 10 lines
 * of the training split written in the same setting and 9 from anywhere (copies of the gold left
 * out), all chosen without looking at the context, so no feature is biased by how they were
 * chosen. Kept only when, cross-fitted, they beat the speech weights on these groups.
 */
async function fitLive(model: HybridModel, ranker: Ranker, freq: DocFrequencies, associations: Associations, train: readonly EvalExample[], opts: FitOptions): Promise<void> {
  const bySetting = new Map<string, string[]>();
  for (const ex of train) {
    const k = settingOf(ex.context);
    let list = bySetting.get(k);
    if (!list) bySetting.set(k, (list = []));
    list.push(ex.labels[0]!);
  }
  const everything = [...bySetting.values()].flat();
  const examples = accumulate(readParlaiFile(join(opts.parlai, 'valid.dialogue.txt')), 'dialogue');
  const rng = new Rng(1);
  const groups: FitGroup[] = [];
  let irHits = 0;
  let sameScene = 0;
  for (const ex of examples) {
    const gold = ex.labels[0]!;
    const g = norm(gold);
    const local = [...new Set(bySetting.get(settingOf(ex.context)) ?? [])].filter((t) => norm(t) !== g);
    const picked: string[] = [];
    while (picked.length < LIVE_LOCAL && local.length) picked.push(local.splice(rng.int(local.length), 1)[0]!);
    if (picked.length === LIVE_LOCAL) sameScene++;
    while (picked.length < LIVE_DISTRACTORS) {
      const t = everything[rng.int(everything.length)]!;
      if (norm(t) !== g && !picked.includes(t)) picked.push(t);
    }
    const at = rng.int(LIVE_DISTRACTORS + 1);
    const candidates = [...picked.slice(0, at), gold, ...picked.slice(at)];
    const ranked = await ranker.rank(ex.context, candidates);
    const bi = new Float64Array(candidates.length);
    for (const r of ranked) bi[r.index] = r.biScore ?? r.score;
    const ev = contextEvidence(ex.context, freq, associations);
    groups.push({ rows: featureRows('speech', ev, candidates, bi, freq), gold: at });
    const ir = candidates.map((c) => cosine(ev.all, freq.vector(c)));
    if (ir.every((x, j) => j === at || x < ir[at]!)) irHits++;
  }
  const names = featureNames('speech');
  let best = { l2: 0.01, r: -1 };
  for (const l2 of [0.001, 0.01, 0.1]) {
    const r = crossFitted(groups, names.length, l2);
    if (r > best.r) best = { l2, r };
  }
  const speech = model.tasks.speech!;
  const asSpeech = recallAt1(groups, (r) => linearScore(r, speech));
  const bi = recallAt1(groups, (r) => r[0]!);
  const ir = groups.length ? irHits / groups.length : 0;
  const kept = best.r > asSpeech;
  if (kept) model.live = { features: [...names], weights: fitConditionalLogit(groups, names.length, best.l2).map((x) => Number(x.toPrecision(6))) };
  (model.fitted as Record<string, unknown>)['live'] = {
    on: `valid dialogue, the gold among ${LIVE_LOCAL} training lines of the same setting and ${LIVE_DISTRACTORS - LIVE_LOCAL} from anywhere`, n: groups.length, all_same_setting: sameScene, l2: best.l2,
    cross_fitted_recall_at_1: Number(best.r.toFixed(4)), speech_weights_recall_at_1: Number(asSpeech.toFixed(4)),
    bi_encoder_recall_at_1: Number(bi.toFixed(4)), ir_recall_at_1: Number(ir.toFixed(4)), kept,
  };
  opts.log(`hybrid live speech: n ${groups.length} (gold among ${LIVE_LOCAL} lines of the same setting and ${LIVE_DISTRACTORS - LIVE_LOCAL} from anywhere; ${sameScene} with a full ${LIVE_LOCAL}), Recall@1 cross-fitted ${best.r.toFixed(3)} (L2 ${best.l2}); with the speech weights ${asSpeech.toFixed(3)}, bi-encoder alone ${bi.toFixed(3)}, IR ${ir.toFixed(3)}${kept ? '' : '; not better: live play uses the speech weights'}`);
}
