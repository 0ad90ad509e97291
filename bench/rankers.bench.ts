/**
 * Ranking speed: `npm run bench -- --json --only rankers`.
 *
 * Uses the bundled model (models/default) when it exists, or LIGHTMUD_BENCH_MODEL, else builds a
 * representative model with random weights in a temporary directory, sized like the one the
 * training issue ships: WordPiece vocabulary of 20,000, 100-d embeddings, bag-of-embeddings
 * bi-encoder projecting to 128-d, K-NRM cross-encoder with 11 kernels (max 160 tokens). Every
 * figure names the model it used. The pool is 110,877 synthetic utterances (LIGHT's pool size),
 * and queries are LIGHT-format contexts of ~100-160 tokens built with server/agents/context.ts.
 * The first and last lines give the machine's load average: on a shared 2-core machine the
 * figures move with it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { percentile, type BenchContext } from './report.js';
import { biEncoderGraph, crossEncoderGraph } from '../models/onnx/builders.js';
import { EMOTES } from '../models/runtime/emotes.js';
import { ModelRanker } from '../models/runtime/ranker.js';
import { DotIndex, argsortDesc, dotScores } from '../models/runtime/topk.js';
import { withSpecialTokens, writeModelDir } from '../models/runtime/write-model-dir.js';
import { mulberry32 } from '../models/eval/baselines.js';
import { formatContext, type ContextFacts, type HistoryEntry } from '../server/agents/context.js';

const POOL_SIZE = 110_877;

// ---- synthetic text -------------------------------------------------------------------------

const W = {
  opener: 'well listen hello greetings ah hmm oh aye no yes alas indeed truly look friend stranger sir madam quiet hush please honestly frankly surely perhaps'.split(' '),
  subject: 'i you we they he she the king the queen my brother my sister that old witch the blacksmith the guard the priest the merchant the farmer the knight the dragon the wolf the bard the thief the innkeeper the captain'.split(' '),
  verb: 'found lost saw need want hate love sold bought stole hid buried carried broke fixed forged blessed cursed fed chased feared followed guarded'.split(' '),
  adj: 'rusty golden old broken shiny heavy tiny ancient cursed blessed wooden silver bloody dusty sharp dull fine cheap royal secret'.split(' '),
  noun: 'sword crown shield bread ale key door map ring cloak helmet axe bow arrow lantern candle book scroll coin goblet horse cart boat rope torch'.split(' '),
  place: 'forest castle tavern church tower village market river bridge cave mountain swamp graveyard dungeon farm harbor road field garden palace'.split(' '),
  when: 'today yesterday tonight tomorrow again before dawn after dark at noon last winter every spring'.split(' '),
  role: 'blacksmith guard priest merchant farmer knight bard thief innkeeper captain witch hunter fisherman baker miller squire'.split(' '),
};

function pick<T>(rng: () => number, xs: readonly T[]): T {
  return xs[Math.floor(rng() * xs.length)]!;
}

function utterance(rng: () => number): string {
  const forms = [
    () => `${pick(rng, W.opener)}, ${pick(rng, W.subject)} ${pick(rng, W.verb)} the ${pick(rng, W.adj)} ${pick(rng, W.noun)} in the ${pick(rng, W.place)} ${pick(rng, W.when)}.`,
    () => `have you seen my ${pick(rng, W.adj)} ${pick(rng, W.noun)}? ${pick(rng, W.subject)} ${pick(rng, W.verb)} it near the ${pick(rng, W.place)}.`,
    () => `${pick(rng, W.opener)}! i will trade this ${pick(rng, W.noun)} for your ${pick(rng, W.adj)} ${pick(rng, W.noun)}.`,
    () => `the ${pick(rng, W.role)} of the ${pick(rng, W.place)} ${pick(rng, W.verb)} a ${pick(rng, W.adj)} ${pick(rng, W.noun)} ${pick(rng, W.when)}, or so they say.`,
  ];
  return pick(rng, forms)();
}

export function syntheticPool(n: number, seed = 1): string[] {
  const rng = mulberry32(seed);
  const seen = new Set<string>();
  while (seen.size < n) seen.add(utterance(rng));
  return [...seen];
}

export function syntheticContext(rng: () => number, task: 'speech' | 'action' | 'emote'): string {
  const place = pick(rng, W.place);
  const history: HistoryEntry[] = [];
  const turns = 2 + Math.floor(rng() * 5);
  for (let i = 0; i < turns; i++) {
    const speaker = i % 2 ? 'self' : 'partner';
    const kind = rng() < 0.7 ? 'say' : rng() < 0.5 ? 'act' : 'emote';
    const text = kind === 'say' ? utterance(rng) : kind === 'act' ? `get ${pick(rng, W.noun)}` : pick(rng, EMOTES);
    history.push({ speaker, kind, text });
  }
  const facts: ContextFacts = {
    setting: { name: `the ${pick(rng, W.adj)} ${place}`, category: place, description: `you are in the ${place}. ${utterance(rng)} ${utterance(rng)}` },
    self: { name: `the ${pick(rng, W.role)}`, persona: `i am a ${pick(rng, W.role)}. ${utterance(rng)} ${utterance(rng)} i ${pick(rng, W.verb)} the ${pick(rng, W.noun)}.` },
    partners: [`the ${pick(rng, W.role)}`],
    objects: [0, 1, 2].map(() => ({ name: pick(rng, W.noun), description: `a ${pick(rng, W.adj)} ${pick(rng, W.noun)}` })),
    history,
  };
  return formatContext(facts, task);
}

// ---- representative model -------------------------------------------------------------------

export function buildBenchModel(dir: string, opts: { vocab: number; hidden: number; dim: number; seed?: number }): string {
  const rng = mulberry32(opts.seed ?? 7);
  const words = new Set<string>();
  for (const list of Object.values(W)) for (const p of list) for (const w of p.split(' ')) words.add(w);
  for (const e of EMOTES) words.add(e);
  for (const w of ['_', ',', '.', '!', '?', ':', 'task', 'speech', 'action', 'emote', 'setting', 'name', 'desc', 'partner', 'self', 'persona', 'object', 'say', 'act', 'get', 'a', 'the', 'of', 'in', 'am', 'are', 'is', 'it', 'or', 'so', 'this', 'for', 'your', 'my', 'will', 'trade', 'have', 'seen', 'near', 'say']) words.add(w);
  for (let i = 0; words.size < opts.vocab - 5; i++) words.add(`w${i}`);
  const vocab = withSpecialTokens([...words]);
  const V = vocab.length;
  const rand = (n: number, scale: number) => Float32Array.from({ length: n }, () => (rng() - 0.5) * 2 * scale);
  const bi = biEncoderGraph({ vocab: V, hidden: opts.hidden, embeddings: rand(V * opts.hidden, 0.1), dim: opts.dim, projection: rand(opts.hidden * opts.dim, 0.1) }).toModelBytes();
  const cross = crossEncoderGraph({
    vocab: V, hidden: opts.hidden, embeddings: rand(V * opts.hidden, 0.1),
    mus: [1.0, 0.9, 0.7, 0.5, 0.3, 0.1, -0.1, -0.3, -0.5, -0.7, -0.9], sigmas: [1e-3, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1],
    weights: Array.from({ length: 11 }, () => rng() - 0.5), bias: 0,
  }).toModelBytes();
  return writeModelDir(dir, {
    vocab, biEncoder: bi, crossEncoder: cross,
    config: {
      format: 'lightmud-model', version: 1, name: `synthetic (random weights; vocab ${V}, ${opts.hidden}-d embeddings, ${opts.dim}-d output, K-NRM 11 kernels)`,
      bi_encoder: { file: 'onnx/bi_encoder.onnx', inputs: ['input_ids', 'attention_mask'], output: 'sentence_embedding', pooling: 'none', max_tokens: 128 },
      cross_encoder: { file: 'onnx/cross_encoder.onnx', inputs: ['input_ids', 'attention_mask', 'token_type_ids'], output: 'logits', max_tokens: 160 },
    },
  });
}

/**
 * The same rerank with the training issue's cross-encoder export (models/training/export.ts), when
 * that module is present, for comparison: it scores all tokens x tokens where the builder here
 * gathers candidate x context pairs first. Skipped quietly if its API is not as expected.
 */
async function trainingExportRerank(ctx: BenchContext, dir: string, contexts: string[], heads: string[][]): Promise<void> {
  const exportPath = new URL('../models/training/export.ts', import.meta.url);
  const rankerPath = new URL('../models/training/kernel-ranker.ts', import.meta.url);
  if (!existsSync(exportPath) || !existsSync(rankerPath)) return;
  let r: ModelRanker | undefined;
  try {
    const { kernelRankerGraph } = (await import(exportPath.href)) as { kernelRankerGraph: (m: unknown, o: { float16?: boolean }) => { toModelBytes(): Uint8Array } };
    const { KernelRanker } = (await import(rankerPath.href)) as { KernelRanker: new (vocab: number, dim: number, e: Float32Array) => unknown };
    const cfg = JSON.parse(readFileSync(join(dir, 'lightmud.json'), 'utf8')) as { cross_encoder: object };
    const vocab = Object.keys((JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')) as { model: { vocab: object } }).model.vocab).length;
    const rng = mulberry32(3);
    const model = new KernelRanker(vocab, 100, Float32Array.from({ length: vocab * 100 }, () => rng() - 0.5));
    writeFileSync(join(dir, 'onnx', 'cross_encoder_training.onnx'), kernelRankerGraph(model, { float16: true }).toModelBytes());
    writeFileSync(join(dir, 'lightmud.json'), JSON.stringify({ ...JSON.parse(readFileSync(join(dir, 'lightmud.json'), 'utf8')), cross_encoder: { ...cfg.cross_encoder, file: 'onnx/cross_encoder_training.onnx' } }));
    r = await ModelRanker.load(dir);
    const ms = await timeEach(ctx.quick ? 20 : 50, (i) => r!.crossEncoder!.score(contexts[i % heads.length]!, heads[i % heads.length]!), 3);
    ctx.report({ bench: 'cross_encoder_rerank_20_training_export', ...stats(ms), max_tokens: r.crossEncoder!.spec.maxTokens, model: 'models/training/export.ts kernelRankerGraph, random weights, float16 tables, vocab 20000, 100-d' });
  } catch (err) {
    if (!ctx.json) console.log(`(training export comparison skipped: ${err instanceof Error ? err.message : String(err)})`);
  } finally {
    await r?.release();
  }
}

// ---- measurement ----------------------------------------------------------------------------

async function timeEach(n: number, fn: (i: number) => Promise<unknown>, warmup = 10): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn(i);
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    ms.push(performance.now() - t0);
  }
  return ms;
}

const r3 = (v: number) => Math.round(v * 1000) / 1000;
const stats = (ms: number[]) => ({ p50_ms: r3(percentile(ms, 50)), p99_ms: r3(percentile(ms, 99)), mean_ms: r3(ms.reduce((a, b) => a + b, 0) / ms.length), n: ms.length });
const rssMb = () => Math.round(process.memoryUsage().rss / 1e5) / 10;

/** A full garbage collection, so resident-memory figures are not inflated by garbage. */
function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

export default async function rankersBench(ctx: BenchContext): Promise<void> {
  const poolSize = ctx.quick ? 20_000 : POOL_SIZE;
  const queries = ctx.quick ? 200 : 1000;
  const tmp = mkdtempSync(join(tmpdir(), 'lightmud-bench-'));
  try {
    const bundled = process.env.LIGHTMUD_BENCH_MODEL ?? 'models/default';
    const useBundled = existsSync(join(bundled, 'tokenizer.json'));
    const dir = useBundled ? bundled : buildBenchModel(join(tmp, 'model'), { vocab: 20_000, hidden: 100, dim: 128 });
    const ranker = await ModelRanker.load(dir);
    const rssStart = rssMb();
    const model = useBundled ? `${bundled} (${ranker.config.name})` : ranker.config.name;
    const environment = (when: string) => ctx.report({ bench: 'rankers_environment', when, cpus: cpus().length, load_1m: r3(loadavg()[0]!), node: process.version, model });
    environment('start');
    const rng = mulberry32(99);

    // Encoding throughput, and the pool's memory.
    const texts = syntheticPool(poolSize);
    let t0 = performance.now();
    const built = await ranker.buildPool(texts, { cacheDir: join(tmp, 'cache'), batchSize: 256, keepEmbeddings: true });
    const encodeS = (performance.now() - t0) / 1000;
    const dim = built.dim;
    ctx.report({ bench: 'bi_encoder_throughput', sentences_per_s: Math.round(poolSize / encodeS), sentences: poolSize, seconds: r3(encodeS), batch: 256, model });
    const matrix = built.embeddings!; // kept for the JavaScript comparison below
    await built.release();
    collectGarbage();
    const rssBefore = rssMb();
    t0 = performance.now();
    const cached = await ranker.buildPool(texts, { cacheDir: join(tmp, 'cache') });
    const loadMs = performance.now() - t0;
    collectGarbage();
    if (cached.source.from !== 'cache') throw new Error(`expected the pool from the cache, got ${JSON.stringify(cached.source)}`);
    ctx.report({
      bench: 'pool_memory', pool: poolSize, dim, embeddings_mb: r3((poolSize * dim * 4) / 1e6),
      rss_pool_mb: r3(rssMb() - rssBefore), rss_total_mb: rssMb(), rss_model_loaded_mb: rssStart,
      cache_load_ms: r3(loadMs), model,
    });

    // Dialogue retrieval: context -> bi-encoder -> top-20 over the pool, end to end.
    const contexts = Array.from({ length: 200 }, () => syntheticContext(rng, 'speech'));
    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    const retrieval = await timeEach(queries, (i) => ranker.rank(contexts[i % contexts.length]!, cached, { topK: 20 }));
    loop.disable();
    ctx.report({ bench: `dialogue_retrieval_${Math.floor(poolSize / 1000)}k`, ...stats(retrieval), pool: poolSize, dim, k: 20, event_loop_p99_delay_ms: r3(loop.percentile(99) / 1e6), event_loop_max_delay_ms: r3(loop.max / 1e6), model });

    // The top-K kernel alone, single queries and batches of 32, and the JavaScript loop it replaced.
    const q = await ranker.encodeContexts(contexts.slice(0, 32));
    const single = await timeEach(queries, (i) => cached.search(q.subarray((i % 32) * dim, (i % 32 + 1) * dim), 20));
    const kernel = (q8: boolean) => (q8 ? 'int8 MatMulInteger scan, certified shortlist rescored in float32, TopK (onnxruntime)' : 'float32 Gemm + TopK (onnxruntime)');
    ctx.report({ bench: `topk_kernel_${Math.floor(poolSize / 1000)}k`, ...stats(single), pool: poolSize, dim, kernel: kernel(cached.index.quantize === 'int8'), model });
    const other = await DotIndex.create(matrix, dim, { quantize: cached.index.quantize === 'int8' ? 'none' : 'int8' });
    const otherMs = await timeEach(queries, (i) => other.search(q.subarray((i % 32) * dim, (i % 32 + 1) * dim), 20));
    ctx.report({ bench: `topk_kernel_${Math.floor(poolSize / 1000)}k_${other.quantize === 'int8' ? 'int8' : 'fp32'}`, ...stats(otherMs), pool: poolSize, dim, kernel: kernel(other.quantize === 'int8'), note: 'the other kernel, for comparison', model });
    await other.release();
    const batched = await timeEach(ctx.quick ? 10 : 50, () => cached.search(q, 20), 3);
    ctx.report({ bench: `topk_kernel_${Math.floor(poolSize / 1000)}k_batch32`, per_query_ms: r3(percentile(batched, 50) / 32), p50_batch_ms: r3(percentile(batched, 50)), n: batched.length, model });
    const js = await timeEach(ctx.quick ? 5 : 20, async (i) => argsortDesc(dotScores(q.subarray((i % 32) * dim, (i % 32 + 1) * dim), matrix, dim)).slice(0, 20), 2);
    ctx.report({ bench: `topk_js_loop_${Math.floor(poolSize / 1000)}k`, ...stats(js), note: 'plain JavaScript, main thread, for comparison', model });

    // Cross-encoder rerank of 20 retrieved candidates (contexts fill the 160-token budget).
    if (ranker.crossEncoder) {
      const heads = await Promise.all(contexts.slice(0, 20).map((c) => ranker.rank(c, cached, { topK: 20 })));
      const rerank = await timeEach(ctx.quick ? 50 : 200, (i) => ranker.crossEncoder!.score(contexts[i % 20]!, heads[i % 20]!.map((h) => h.text)));
      ctx.report({ bench: 'cross_encoder_rerank_20', ...stats(rerank), max_tokens: ranker.crossEncoder.spec.maxTokens, model });
      const full = await timeEach(ctx.quick ? 50 : 200, (i) => ranker.rank(contexts[i % contexts.length]!, cached, { rerank: 20 }));
      ctx.report({ bench: 'dialogue_retrieve_and_rerank_20', ...stats(full), pool: poolSize, model });
      // What the inference thread buys: event-loop delay while reranking, on the thread vs in process.
      const local = await ModelRanker.load(dir, { inProcess: true });
      const delay = async (r: ModelRanker): Promise<{ p99: number; max: number }> => {
        const h = monitorEventLoopDelay({ resolution: 1 });
        h.enable();
        for (let i = 0; i < (ctx.quick ? 20 : 100); i++) await r.crossEncoder!.score(contexts[i % 20]!, heads[i % 20]!.map((x) => x.text));
        h.disable();
        return { p99: r3(h.percentile(99) / 1e6), max: r3(h.max / 1e6) };
      };
      const onThread = await delay(ranker);
      const inProcess = await delay(local);
      await local.release();
      ctx.report({ bench: 'event_loop_delay_during_rerank', inference_thread_p99_ms: onThread.p99, inference_thread_max_ms: onThread.max, in_process_p99_ms: inProcess.p99, in_process_max_ms: inProcess.max, model });
      if (!useBundled) await trainingExportRerank(ctx, dir, contexts, heads.map((h) => h.map((c) => c.text)));
    }

    // Emotes (22) and actions (~30 valid actions), bi-encoder over the list.
    const emoteContexts = Array.from({ length: 100 }, () => syntheticContext(rng, 'emote'));
    const emotes = await timeEach(queries, (i) => ranker.rank(emoteContexts[i % 100]!, EMOTES));
    ctx.report({ bench: 'emote_rank_22', ...stats(emotes), model });
    const actionContexts = Array.from({ length: 100 }, () => syntheticContext(rng, 'action'));
    const actions = Array.from({ length: 30 }, (_, i) => `${['get', 'drop', 'give', 'hit', 'hug', 'wield', 'wear', 'eat'][i % 8]} ${W.noun[i % W.noun.length]}`);
    const acts = await timeEach(queries, (i) => ranker.rank(actionContexts[i % 100]!, actions));
    ctx.report({ bench: 'action_rank_30', ...stats(acts), model });

    environment('end');
    await cached.release();
    await ranker.release();
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
