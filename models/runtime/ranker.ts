/**
 * The one ranking API for dialogue, actions and emotes:
 *
 *   const ranker = await ModelRanker.load('models/default');
 *   const pool = await ranker.buildPool(utterances, { cacheDir });
 *   await ranker.rank(context, pool, { rerank: 20 });          // dialogue: retrieve, then rerank
 *   await ranker.rank(context, validActions);                   // actions: the engine's valid actions
 *   await ranker.rank(context, EMOTES);                         // emotes: the 22 emotes
 *
 * Candidates given as a list are all scored by the bi-encoder (cosine of normalised embeddings;
 * candidate embeddings are memoised, since actions and emotes repeat). A pool is searched with the
 * top-K index. `rerank: k` re-scores the best k with the cross-encoder and puts them first, ordered
 * by its logit; `rerank: true` means all candidates of a list, or 20 from a pool.
 */
import { BiEncoder, CrossEncoder } from './encoders.js';
import { ModelError } from './errors.js';
import { readModelDir, type ModelDirConfig } from './model-dir.js';
import { CandidatePool, type PoolOptions } from './pool.js';
import type { SessionOptions } from './session.js';
import { Tokenizer } from './tokenizer.js';
import { argsortDesc, dotScores } from './topk.js';

export interface ScoredCandidate {
  text: string;
  /** Position in the candidate list or pool. */
  index: number;
  /** The ranking score: the cross-encoder logit for reranked candidates, else the bi-encoder cosine. */
  score: number;
  biScore?: number;
  crossScore?: number;
}

export interface RankOptions {
  /** Re-score the best k with the cross-encoder (true: all of a list, 20 from a pool). */
  rerank?: number | boolean;
  /** How many to return from a pool (default max(rerank, 20)); lists return every candidate. */
  topK?: number;
}

/** Anything that ranks: the model ranker and the baselines (models/eval/baselines.ts). */
export interface Ranker {
  readonly name: string;
  rank(context: string, candidates: readonly string[], opts?: RankOptions): Promise<ScoredCandidate[]>;
}

export interface LoadOptions extends SessionOptions {
  /** Load the cross-encoder too, when the directory has one (default true). */
  crossEncoder?: boolean;
}

const DEFAULT_POOL_K = 20;

class Memo {
  private map = new Map<string, Float32Array>();
  constructor(private readonly limit: number) {}
  get(k: string): Float32Array | undefined {
    return this.map.get(k);
  }
  set(k: string, v: Float32Array): void {
    if (this.map.size >= this.limit) this.map.delete(this.map.keys().next().value as string);
    this.map.set(k, v);
  }
}

export class ModelRanker implements Ranker {
  private readonly memo = new Memo(20_000);

  private constructor(
    readonly config: ModelDirConfig,
    readonly tokenizer: Tokenizer,
    readonly biEncoder: BiEncoder,
    readonly crossEncoder: CrossEncoder | undefined,
    private readonly sessionOptions: SessionOptions,
  ) {}

  get name(): string {
    return this.config.name;
  }

  static async load(dir: string, opts: LoadOptions = {}): Promise<ModelRanker> {
    const config = readModelDir(dir);
    const tokenizer = await Tokenizer.load(config.dir);
    const biEncoder = await BiEncoder.load(config.biEncoder, tokenizer, opts);
    const crossEncoder = config.crossEncoder && opts.crossEncoder !== false ? await CrossEncoder.load(config.crossEncoder, tokenizer, opts) : undefined;
    return new ModelRanker(config, tokenizer, biEncoder, crossEncoder, { threads: opts.threads, inProcess: opts.inProcess });
  }

  /** A pool over `texts`, its embeddings cached under opts.cacheDir. */
  async buildPool(texts: string[], opts: PoolOptions = {}): Promise<CandidatePool> {
    return CandidatePool.build(this.biEncoder, texts, { ...this.sessionOptions, ...opts });
  }

  /** Normalised embeddings of candidates, memoised. */
  private async candidateEmbeddings(candidates: readonly string[]): Promise<{ matrix: Float32Array; dim: number }> {
    const found = new Map<string, Float32Array>();
    const missing: string[] = [];
    for (const c of new Set(candidates)) {
      const e = this.memo.get(c);
      if (e) found.set(c, e);
      else missing.push(c);
    }
    if (missing.length) {
      const emb = await this.biEncoder.encodeMany(missing, { batchSize: 64 });
      const d = this.biEncoder.dim;
      missing.forEach((c, i) => {
        const e = emb.slice(i * d, (i + 1) * d);
        found.set(c, e);
        this.memo.set(c, e);
      });
    }
    const dim = found.values().next().value?.length ?? 0;
    const matrix = new Float32Array(candidates.length * dim);
    candidates.forEach((c, i) => matrix.set(found.get(c)!, i * dim));
    return { matrix, dim };
  }

  private rerankCount(rerank: RankOptions['rerank'], available: number, poolDefault: number): number {
    if (!rerank) return 0;
    if (!this.crossEncoder) throw new ModelError(`${this.config.dir}: reranking needs onnx/cross_encoder.onnx (or cross_encoder.file in lightmud.json)`);
    const k = rerank === true ? poolDefault : Math.floor(rerank);
    return Math.max(0, Math.min(k, available));
  }

  private async applyRerank(context: string, ranked: ScoredCandidate[], k: number): Promise<ScoredCandidate[]> {
    if (k <= 0) return ranked;
    const head = ranked.slice(0, k);
    const logits = await this.crossEncoder!.score(context, head.map((c) => c.text));
    head.forEach((c, i) => {
      c.crossScore = logits[i]!;
      c.score = logits[i]!;
    });
    const order = argsortDesc(logits);
    return [...order.map((i) => head[i]!), ...ranked.slice(k)];
  }

  async rank(context: string, candidates: readonly string[] | CandidatePool, opts: RankOptions = {}): Promise<ScoredCandidate[]> {
    if (candidates instanceof CandidatePool) {
      if (candidates.model !== this.biEncoder.fingerprint) throw new ModelError(`this pool was encoded by another bi-encoder than ${this.biEncoder.spec.path}; build it with this ranker`);
      const k = this.rerankCount(opts.rerank, candidates.size, DEFAULT_POOL_K);
      const topK = Math.max(opts.topK ?? DEFAULT_POOL_K, k);
      const q = await this.biEncoder.encode([context]);
      const hits = (await candidates.search(q, topK))[0] ?? [];
      const ranked = hits.map((h) => ({ text: candidates.texts[h.index]!, index: h.index, score: h.score, biScore: h.score }));
      return this.applyRerank(context, ranked, k);
    }
    if (candidates.length === 0) return [];
    const k = this.rerankCount(opts.rerank, candidates.length, candidates.length);
    const [q, { matrix, dim }] = await Promise.all([this.biEncoder.encode([context]), this.candidateEmbeddings(candidates)]);
    const scores = dotScores(q.subarray(0, dim), matrix, dim);
    const ranked = argsortDesc(scores).map((i) => ({ text: candidates[i]!, index: i, score: scores[i]!, biScore: scores[i]! }));
    return this.applyRerank(context, ranked, k);
  }

  /** Contexts embedded in one batch (for evaluation and batched retrieval). */
  async encodeContexts(contexts: string[]): Promise<Float32Array> {
    return this.biEncoder.encode(contexts);
  }

  async release(): Promise<void> {
    await this.biEncoder.release();
    await this.crossEncoder?.release();
  }
}
