/**
 * `lightmud train`: tokenizer, bi-encoder and cross-encoder from the written episode corpus (and
 * any extra ParlAI-format LIGHT files), initialised from GloVe vectors, exported to a model
 * directory the runtime loads unchanged. Deterministic for a seed.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Rng } from '../../server/engine/rng.js';
import { World } from '../../server/engine/world.js';
import { EMOTES } from '../../server/engine/emotes.js';
import { loadWorld } from '../../server/world-io/load-world.js';
import { readEpisodeFiles } from '../../server/episodes/read.js';
import { selectLines } from '../runtime/light-format.js';
import { accumulate, readParlaiFile, type EvalTask } from '../eval/parlai.js';
import { CLS_ID, SEP_ID, tokenizerConfigJson, tokenizerJson, WordPiece } from '../tokenizer/wordpiece.js';
import { BagEncoder, type EncodeCache } from './bag-encoder.js';
import { episodeExamples, splitOf, SPLITS, type Example, type Split, type SplitConfig } from './dataset.js';
import { bagEncoderGraph, kernelRankerGraph, roundToHalf } from './export.js';
import { ensureGlove, GLOVE_DIM, loadGlove } from './glove.js';
import { groupLoss, KernelRanker } from './kernel-ranker.js';
import { buildVocab } from './vocab.js';
import type { Param } from './params.js';

export interface TrainOptions {
  data: string;
  world: string;
  out: string;
  seed: number;
  /** Extra ParlAI files, `PATH` (dialogue) or `PATH:dialogue|action|emote`. */
  extra: string[];
  pretrained: boolean;
  cacheDir: string;
  vocabSize: number;
  outDim: number;
  biEpochs: number;
  crossEpochs: number;
  biMaxTokens: number;
  crossMaxTokens: number;
  batchSize: number;
  lr: number;
  /** Cross-encoder negatives per dialogue example from the bi-encoder's high (not top) ranks; the rest of the 5 are random. */
  hardNegatives: number;
  float16: boolean;
  /** Use at most this many training examples (for quick runs and tests). */
  limit?: number;
  log(line: string): void;
  progress(label: string, done: number, total: number, note?: string): void;
}

export interface EpochReport { model: 'bi' | 'cross'; epoch: number; loss: number; seconds: number; valid: Record<string, number> }

export interface TrainReport {
  seed: number;
  vocab: number;
  pretrainedRows: number;
  examples: Record<Split, Record<string, number>>;
  epochs: EpochReport[];
  seconds: number;
  files: Record<string, number>;
}

export const DEFAULT_TRAIN: Omit<TrainOptions, 'data' | 'world' | 'out' | 'log' | 'progress'> = {
  seed: 1, extra: [], pretrained: true, cacheDir: '.cache/pretrained', vocabSize: 20000, outDim: 128,
  biEpochs: 4, crossEpochs: 1, biMaxTokens: 512, crossMaxTokens: 384, batchSize: 32, lr: 2e-3, hardNegatives: 2, float16: true,
};

/** Initial log-weights of the recency buckets (last token, 1, 2-3, 4-7, 8-15, 16-31, 32-63, 64+ from the end). */
const RECENCY_PRIOR = [2, 2, 2, 2, 1.5, 1, 0, -0.5];

interface Encoded { ex: Example; ctxBi: number[]; ctxCross: number[] }

/** [CLS] lines-that-fit [SEP], dropping lines by the LIGHT rule like the runtime does. */
function fitLines(wp: WordPiece, lines: string[], budget: number): number[] {
  const kept = selectLines(lines, (l) => wp.encode(l).length, budget);
  return wp.encode(kept.join('\n')).slice(0, budget);
}

/** Embedding tables learn slowly, word weights faster, the few scalars of the scorer fastest. */
const LR_SCALE: Record<string, number> = { E: 1, F: 1, u: 5, v: 5, W: 1, p: 10, r: 10, w: 10, w2: 10, b: 10, wb: 10 };

function stepAll(params: Param[], step: number, lr: number): void {
  for (const p of params) {
    p.adam(step, lr * (LR_SCALE[p.name] ?? 1));
    p.zeroGrad();
  }
}

export interface Trained { report: TrainReport; bi: BagEncoder; cross: KernelRanker; tokenizer: WordPiece }

export async function train(opts: TrainOptions): Promise<Trained> {
  const started = Date.now();
  const rng = new Rng(opts.seed);
  const world = new World(loadWorld(opts.world).state);
  const splitCfg = JSON.parse(readFileSync(join(opts.data, 'splits.json'), 'utf8')) as SplitConfig;
  const { episodes, errors } = readEpisodeFiles(opts.data);
  if (errors.length) throw new Error(`episode files have problems:\n${errors.slice(0, 10).join('\n')}`);
  const bySplit: Record<Split, Example[]> = { train: [], valid: [], test_seen: [], test_unseen: [] };
  for (const ep of episodes) bySplit[splitOf(ep, world, splitCfg)].push(...episodeExamples(world, ep));
  for (const spec of opts.extra) {
    const m = /^(.*?)(?::(dialogue|action|emote))?$/.exec(spec)!;
    const task = (m[2] ?? 'dialogue') as EvalTask;
    const ctxTask = task === 'dialogue' ? 'speech' : task;
    const extra = accumulate(readParlaiFile(m[1]!), task);
    for (const e of extra) bySplit.train.push({ episode: `extra:${m[1]}:${e.episode}`, turn: e.turn, task: ctxTask, lines: e.context.split('\n'), label: e.labels[0] ?? '', candidates: task === 'dialogue' ? undefined : e.candidates });
    opts.log(`extra: ${extra.length} ${task} examples from ${m[1]}`);
  }
  if (opts.limit !== undefined) bySplit.train = rng.shuffle(bySplit.train).slice(0, opts.limit);
  const count = (xs: Example[]) => ({ speech: xs.filter((x) => x.task === 'speech').length, action: xs.filter((x) => x.task === 'action').length, emote: xs.filter((x) => x.task === 'emote').length });
  const examples = Object.fromEntries(SPLITS.map((s) => [s, count(bySplit[s])])) as unknown as TrainReport['examples'];
  opts.log(`examples: ${SPLITS.map((s) => `${s} ${JSON.stringify(examples[s])}`).join('; ')}`);

  // ---- tokenizer ------------------------------------------------------------------------------
  const glove = opts.pretrained ? loadGlove(ensureGlove(opts.cacheDir, opts.log)) : undefined;
  const worldText = world.nodes().flatMap((n) => (n.kind === 'room' ? [n.name, n.description, n.backstory, ...n.exits.map((e) => e.label)] : n.kind === 'character' ? [n.name, n.persona, n.description] : [n.name, n.description]));
  const trainText = bySplit.train.flatMap((x) => [...x.lines, x.label, ...(x.candidates ?? [])]);
  const vocab = buildVocab([...worldText, ...trainText, ...EMOTES], { size: opts.vocabSize, pretrainedWords: glove?.words.slice(0, 80_000) });
  const wp = new WordPiece(vocab);
  opts.log(`vocabulary: ${vocab.length} word pieces`);

  // ---- embeddings -----------------------------------------------------------------------------
  const dim = GLOVE_DIM;
  const emb = new Float32Array(vocab.length * dim);
  let pretrainedRows = 0;
  vocab.forEach((tok, r) => {
    const v = glove?.vector(tok.replace(/^##/, ''));
    if (v && r >= 5) {
      emb.set(v, r * dim);
      pretrainedRows++;
    } else for (let k = 0; k < dim; k++) emb[r * dim + k] = (rng.next() - 0.5) * 0.1;
  });
  // Centre the table: averages of raw GloVe vectors all point along their common mean direction,
  // which drowns the differences between texts ("all-but-the-top", Mu & Viswanath, 2018).
  const mean = new Float64Array(dim);
  for (let r = 0; r < vocab.length; r++) for (let k = 0; k < dim; k++) mean[k] = mean[k]! + emb[r * dim + k]! / vocab.length;
  for (let r = 5; r < vocab.length; r++) for (let k = 0; k < dim; k++) emb[r * dim + k] = emb[r * dim + k]! - mean[k]!;
  opts.log(`embeddings: ${pretrainedRows} of ${vocab.length} rows from GloVe (centred)`);

  // ---- encode ---------------------------------------------------------------------------------
  const encode = (xs: Example[]): Encoded[] => xs.map((ex) => ({ ex, ctxBi: [CLS_ID, ...fitLines(wp, ex.lines, opts.biMaxTokens - 2), SEP_ID], ctxCross: fitLines(wp, ex.lines, opts.crossMaxTokens - 3 - 24) }));
  const enc = Object.fromEntries(SPLITS.map((s) => [s, encode(bySplit[s])])) as Record<Split, Encoded[]>;
  const candCache = new Map<string, number[]>();
  const candIds = (text: string) => {
    let ids = candCache.get(text);
    if (!ids) candCache.set(text, (ids = [CLS_ID, ...wp.encode(text).slice(0, opts.biMaxTokens - 2), SEP_ID]));
    return ids;
  };
  const crossCand = (text: string) => wp.encode(text).slice(0, 24);

  // Fixed evaluation candidates (dialogue: gold + 19 distractors from other episodes).
  const evalRng = new Rng(opts.seed + 1000);
  const utterances = (s: Split) => bySplit[s].filter((x) => x.task === 'speech').map((x) => ({ episode: x.episode, text: x.label }));
  const evalSets = (s: Split) => enc[s].map((e) => {
    if (e.ex.task !== 'speech') return { e, cands: e.ex.candidates ?? [] };
    const pool = utterances(s);
    const picked = new Set([e.ex.label]);
    for (let g = 0; picked.size < 20 && g < 1000; g++) {
      const d = pool[evalRng.int(pool.length)]!;
      if (d.episode !== e.ex.episode) picked.add(d.text);
    }
    return { e, cands: [...picked] };
  });
  const validSets = evalSets('valid');

  // ---- word weights: start from IDF over the training texts, as TF-IDF does -------------------
  const docs = [...new Set(bySplit.train.flatMap((x) => [...x.lines, x.label]))];
  const df = new Float64Array(vocab.length);
  for (const d of docs) for (const t of new Set(wp.encode(d))) df[t] = df[t]! + 1;
  const idfLogits = new Float32Array(vocab.length);
  for (let t = 0; t < vocab.length; t++) {
    const idf = Math.log((docs.length + 1) / (df[t]! + 1)) + 0.1; // > 0
    idfLogits[t] = Math.log(Math.expm1(Math.min(idf, 20))); // softplus^-1(idf)
  }

  // ---- bi-encoder -----------------------------------------------------------------------------
  const bi = new BagEncoder({ vocab: vocab.length, dim, out: opts.outDim }, { embeddings: new Float32Array(emb), weights: new Float32Array(idfLogits) }, rng);
  // A prior that the newest words of a context matter most (the partner's last line); learned on.
  bi.p.value.set(RECENCY_PRIOR);
  const scale = 20;
  let step = 0;
  const epochs: EpochReport[] = [];
  const evalBi = (sets: ReturnType<typeof evalSets>) => {
    const hits: Record<string, [number, number]> = { speech: [0, 0], action: [0, 0], emote: [0, 0] };
    const zc = new Map<string, Float32Array>();
    const z = (t: string) => zc.get(t) ?? (zc.set(t, bi.forward(candIds(t)).z), zc.get(t)!);
    for (const { e, cands } of sets) {
      if (!cands.length) continue;
      const c = bi.forward(e.ctxBi).z;
      let best = -Infinity;
      let arg = '';
      for (const cand of cands) {
        const v = z(cand);
        let d = 0;
        for (let k = 0; k < v.length; k++) d += c[k]! * v[k]!;
        if (d > best) { best = d; arg = cand; }
      }
      const h = hits[e.ex.task]!;
      h[1]++;
      if (arg === e.ex.label) h[0]++;
    }
    return { dialogue_r1: hits.speech![0] / Math.max(1, hits.speech![1]), action_acc: hits.action![0] / Math.max(1, hits.action![1]), emote_acc: hits.emote![0] / Math.max(1, hits.emote![1]) };
  };
  {
    const v0 = evalBi(validSets);
    opts.log(`bi-encoder before training: valid dialogue R@1/20 ${v0.dialogue_r1.toFixed(3)}  action acc ${v0.action_acc.toFixed(3)}  emote acc ${v0.emote_acc.toFixed(3)}`);
  }
  for (let epoch = 1; epoch <= opts.biEpochs; epoch++) {
    const t0 = Date.now();
    const order = rng.shuffle([...enc.train]);
    let lossSum = 0;
    let n = 0;
    for (let b = 0; b < order.length; b += opts.batchSize) {
      const batch = order.slice(b, b + opts.batchSize);
      const caches = new Map<string, { cache: EncodeCache; dz: Float32Array }>();
      const cand = (t: string) => {
        let c = caches.get(t);
        if (!c) caches.set(t, (c = { cache: bi.forward(candIds(t)), dz: new Float32Array(opts.outDim) }));
        return c;
      };
      const speechLabels = [...new Set(batch.filter((e) => e.ex.task === 'speech').map((e) => e.ex.label))];
      let batchLoss = 0;
      const ctxCaches: { cache: EncodeCache; dz: Float32Array }[] = [];
      for (const e of batch) {
        let list: string[];
        if (e.ex.task === 'speech') list = speechLabels;
        else {
          const others = (e.ex.candidates ?? []).filter((c) => c !== e.ex.label);
          list = [e.ex.label, ...(others.length > 24 ? rng.shuffle([...others]).slice(0, 24) : others)];
        }
        if (list.length < 2) continue;
        const gold = list.indexOf(e.ex.label);
        const ctx = { cache: bi.forward(e.ctxBi), dz: new Float32Array(opts.outDim) };
        ctxCaches.push(ctx);
        const cs = list.map(cand);
        const logits = cs.map((c) => {
          let d = 0;
          for (let k = 0; k < opts.outDim; k++) d += ctx.cache.z[k]! * c.cache.z[k]!;
          return scale * d;
        });
        const max = Math.max(...logits);
        const exps = logits.map((l) => Math.exp(l - max));
        const sum = exps.reduce((x, y) => x + y, 0);
        batchLoss += -(logits[gold]! - max - Math.log(sum));
        cs.forEach((c, j) => {
          const g = ((exps[j]! / sum - (j === gold ? 1 : 0)) * scale) / batch.length;
          for (let k = 0; k < opts.outDim; k++) {
            ctx.dz[k] = ctx.dz[k]! + g * c.cache.z[k]!;
            c.dz[k] = c.dz[k]! + g * ctx.cache.z[k]!;
          }
        });
      }
      for (const c of ctxCaches) bi.backward(c.cache, c.dz);
      for (const c of caches.values()) bi.backward(c.cache, c.dz);
      stepAll(bi.params(), ++step, opts.lr);
      lossSum += batchLoss;
      n += batch.length;
      opts.progress(`bi-encoder epoch ${epoch}/${opts.biEpochs}`, Math.min(b + opts.batchSize, order.length), order.length, `loss ${(lossSum / n).toFixed(3)}`);
    }
    const valid = evalBi(validSets);
    const report: EpochReport = { model: 'bi', epoch, loss: lossSum / Math.max(1, n), seconds: (Date.now() - t0) / 1000, valid };
    epochs.push(report);
    opts.log(`bi-encoder epoch ${epoch}: loss ${report.loss.toFixed(4)}  valid dialogue R@1/20 ${valid.dialogue_r1.toFixed(3)}  action acc ${valid.action_acc.toFixed(3)}  emote acc ${valid.emote_acc.toFixed(3)}  (${report.seconds.toFixed(1)} s)`);
  }

  // ---- cross-encoder --------------------------------------------------------------------------
  // The cross-encoder compares words with the bi-encoder's trained (in-domain) embeddings, kept fixed.
  const cross = new KernelRanker(vocab.length, dim, new Float32Array(bi.E.value));
  cross.freezeEmbeddings = true;
  cross.bag = bi;
  // Start from the bi-encoder's judgement plus exact word matches (the TF-IDF-like evidence).
  cross.w.value.fill(0);
  cross.w2.value.fill(0);
  cross.w.value[0] = 1;
  cross.freezeWordWeights = true;
  cross.v.value.set(idfLogits);
  cross.r.value.set(RECENCY_PRIOR);
  const trainUtterances = [...new Set(bySplit.train.filter((x) => x.task === 'speech').map((x) => x.label))];
  const uttZ = trainUtterances.map((t) => bi.forward(candIds(t)).z);
  const utteranceEpisodes = new Map<string, Set<string>>();
  for (const x of bySplit.train) if (x.task === 'speech') (utteranceEpisodes.get(x.label) ?? utteranceEpisodes.set(x.label, new Set()).get(x.label)!).add(x.episode);
  // Hard negatives: lines the bi-encoder ranks high but not highest (ranks 3-12 among a random 2,000 of
  // the training utterances, about ranks 40-200 of all), never near-duplicates of the gold line (word
  // Jaccard over 0.5) nor from the same episode. The very top ranks are often paraphrases of the gold:
  // trained against those alone, the cross-encoder collapsed.
  const wordSet = (t: string) => new Set(t.toLowerCase().match(/[a-z']+/g) ?? []);
  const nearDuplicate = (a: string, b: string) => {
    const x = wordSet(a);
    const y = wordSet(b);
    let inter = 0;
    for (const w of x) if (y.has(w)) inter++;
    return inter / Math.max(1, x.size + y.size - inter) > 0.5;
  };
  const hardNegatives = (e: Encoded, k: number): string[] => {
    const c = bi.forward(e.ctxBi).z;
    const sample = Array.from({ length: Math.min(2000, trainUtterances.length) }, () => rng.int(trainUtterances.length));
    const scored = sample.map((i) => {
      const v = uttZ[i]!;
      let d = 0;
      for (let j = 0; j < v.length; j++) d += c[j]! * v[j]!;
      return { i, d };
    }).sort((a, b) => b.d - a.d);
    // never from the same episode: its lines are in the history, and would teach that matching the context is wrong
    const usable: string[] = [];
    for (const s of scored) {
      const t = trainUtterances[s.i]!;
      if (t !== e.ex.label && !usable.includes(t) && !utteranceEpisodes.get(t)?.has(e.ex.episode) && !nearDuplicate(t, e.ex.label)) usable.push(t);
      if (usable.length >= 12) break;
    }
    return usable.slice(2, 12).filter((_, j) => j % Math.max(1, Math.floor(10 / k)) === 0).slice(0, k);
  };
  const evalCross = (sets: ReturnType<typeof evalSets>) => {
    const hits: Record<string, [number, number]> = { speech: [0, 0], action: [0, 0] };
    for (const { e, cands } of sets) {
      if (!hits[e.ex.task] || !cands.length) continue;
      let best = -Infinity;
      let arg = '';
      const q = e.ctxCross.filter((t) => t > 4);
      const qUnits = cross.units(q);
      const qBag = cross.bagVector(q);
      for (const cand of cands) {
        const s = cross.forward(q, crossCand(cand).filter((t) => t > 4), qUnits, qBag).score;
        if (s > best) { best = s; arg = cand; }
      }
      hits[e.ex.task]![1]++;
      if (arg === e.ex.label) hits[e.ex.task]![0]++;
    }
    return { dialogue_r1: hits.speech![0] / Math.max(1, hits.speech![1]), action_acc: hits.action![0] / Math.max(1, hits.action![1]) };
  };
  const crossTrain = enc.train.filter((e) => e.ex.task === 'speech' || e.ex.task === 'action');
  const groups = crossTrain.map((e) => {
    let negs: string[];
    if (e.ex.task === 'speech') {
      const hard = opts.hardNegatives ? hardNegatives(e, opts.hardNegatives) : [];
      const rand: string[] = [];
      for (let g = 0; rand.length < 5 - hard.length && g < 50; g++) {
        const t = trainUtterances[rng.int(trainUtterances.length)]!;
        if (t !== e.ex.label && !hard.includes(t) && !utteranceEpisodes.get(t)?.has(e.ex.episode)) rand.push(t);
      }
      negs = [...hard, ...rand];
    } else negs = rng.shuffle((e.ex.candidates ?? []).filter((c) => c !== e.ex.label)).slice(0, 5);
    return { q: e.ctxCross.filter((t) => t > 4), cands: [e.ex.label, ...negs].map((t) => crossCand(t).filter((x) => x > 4)) };
  }).filter((g) => g.cands.length > 1 && g.q.length > 0);
  {
    const v0 = evalCross(validSets);
    opts.log(`cross-encoder before training: valid dialogue R@1/20 ${v0.dialogue_r1.toFixed(3)}  action acc ${v0.action_acc.toFixed(3)}`);
  }
  for (let epoch = 1; epoch <= opts.crossEpochs; epoch++) {
    const t0 = Date.now();
    const order = rng.shuffle([...groups]);
    let lossSum = 0;
    for (let b = 0; b < order.length; b += opts.batchSize) {
      const batch = order.slice(b, b + opts.batchSize);
      for (const g of batch) lossSum += groupLoss(cross, g.q, g.cands, 1 / batch.length);
      stepAll(cross.params(), ++step, opts.lr);
      opts.progress(`cross-encoder epoch ${epoch}/${opts.crossEpochs}`, Math.min(b + opts.batchSize, order.length), order.length, `loss ${(lossSum / Math.min(b + opts.batchSize, order.length)).toFixed(3)}`);
    }
    const valid = evalCross(validSets);
    const report: EpochReport = { model: 'cross', epoch, loss: lossSum / Math.max(1, order.length), seconds: (Date.now() - t0) / 1000, valid };
    epochs.push(report);
    opts.log(`cross-encoder epoch ${epoch}: loss ${report.loss.toFixed(4)}  valid dialogue R@1/20 ${valid.dialogue_r1.toFixed(3)}  action acc ${valid.action_acc.toFixed(3)}  (${report.seconds.toFixed(1)} s)`);
  }

  // ---- export ---------------------------------------------------------------------------------
  mkdirSync(join(opts.out, 'onnx'), { recursive: true });
  if (opts.float16) {
    roundToHalf(bi.E.value);
  }
  const files: Record<string, Uint8Array | string> = {
    'tokenizer.json': JSON.stringify(tokenizerJson(vocab)),
    'tokenizer_config.json': JSON.stringify(tokenizerConfigJson(opts.crossMaxTokens), null, 2),
    'onnx/bi_encoder.onnx': bagEncoderGraph(bi, { float16: opts.float16 }).toModelBytes({ docString: 'lightmud bi-encoder: weighted bag of GloVe-initialised word embeddings, projected and L2-normalised' }),
    'onnx/cross_encoder.onnx': kernelRankerGraph(cross, { float16: opts.float16 }).toModelBytes({ docString: 'lightmud cross-encoder: K-NRM kernel pooling over context-candidate word similarities' }),
    'lightmud.json': JSON.stringify({
      format: 'lightmud-model', version: 1, name: 'lightmud-default',
      bi_encoder: { file: 'onnx/bi_encoder.onnx', inputs: ['input_ids', 'attention_mask'], output: 'sentence_embedding', pooling: 'none', max_tokens: opts.biMaxTokens },
      cross_encoder: { file: 'onnx/cross_encoder.onnx', inputs: ['input_ids', 'attention_mask', 'token_type_ids'], output: 'logits', max_tokens: opts.crossMaxTokens },
    }, null, 2),
    'utterances.txt': trainUtterances.join('\n') + '\n',
  };
  const sizes: Record<string, number> = {};
  for (const [name, content] of Object.entries(files)) {
    writeFileSync(join(opts.out, name), content);
    sizes[name] = typeof content === 'string' ? Buffer.byteLength(content) : content.byteLength;
  }
  const report: TrainReport = { seed: opts.seed, vocab: vocab.length, pretrainedRows, examples, epochs, seconds: (Date.now() - started) / 1000, files: sizes };
  writeFileSync(join(opts.out, 'training.json'), JSON.stringify(report, null, 2));
  return { report, bi, cross, tokenizer: wp };
}
