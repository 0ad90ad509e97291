/**
 * Tokenizer loading (Hugging Face `tokenizer.json` + `tokenizer_config.json` through
 * @xenova/transformers' AutoTokenizer, from a local directory only) and batch encoding into the
 * int64 tensors that BERT-style ONNX exports take.
 *
 * Truncation is ours, not the library's (which cuts the end of the joined pair, losing the
 * candidate): a LIGHT-format context is cut line by line (see light-format.ts), a candidate is cut
 * at its end, and special tokens are always kept.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ModelError, describeError } from './errors.js';
import { selectLines } from './light-format.js';

export interface EncodedBatch {
  /** [batch, length], row-major. */
  inputIds: BigInt64Array;
  attentionMask: BigInt64Array;
  tokenTypeIds: BigInt64Array;
  batch: number;
  length: number;
}

/** The parts of transformers.js' PreTrainedTokenizer that we use (all public in its typings). */
interface HfTokenizer {
  _encode_text(text: string | null): string[] | null;
  post_processor: ((a: string[], b: string[] | null, opts: { add_special_tokens: boolean }) => { tokens: string[]; token_type_ids?: number[] }) | null;
  model: { convert_tokens_to_ids(tokens: string[]): number[] };
  pad_token_id?: number;
}

let transformersReady: Promise<typeof import('@xenova/transformers')> | undefined;

/** Imports @xenova/transformers once, with remote loading off. */
async function transformers(): Promise<typeof import('@xenova/transformers')> {
  transformersReady ??= import('@xenova/transformers').then((mod) => {
    mod.env.allowRemoteModels = false;
    mod.env.allowLocalModels = true;
    // Absolute directories are passed as ids relative to '/', so this never changes between loads.
    mod.env.localModelPath = '/';
    mod.env.useBrowserCache = false;
    mod.env.useFSCache = false;
    return mod;
  });
  return transformersReady;
}

export const TOKENIZER_FILES = ['tokenizer.json', 'tokenizer_config.json'] as const;

export class Tokenizer {
  private readonly singleOverhead: number;
  private readonly pairOverhead: number;

  private constructor(
    private readonly hf: HfTokenizer,
    readonly dir: string,
  ) {
    this.singleOverhead = this.assemble([], null).ids.length;
    this.pairOverhead = this.assemble([], []).ids.length;
    const probe = ['_self_say Hello, there! What\'s that?', '_partner_act get sword', "  spaced   words  ", '_object_desc café : ünïcode'];
    this.lineSeparable = JSON.stringify(this.tokens(probe.join('\n'))) === JSON.stringify(probe.flatMap((l) => this.tokens(l)));
  }

  /** Whether tokenising line by line gives the tokens of the whole text (true for BERT-style tokenizers, where a newline is whitespace). */
  readonly lineSeparable: boolean;

  /** Loads tokenizer.json + tokenizer_config.json from `dir` (a local directory; nothing is downloaded). */
  static async load(dir: string): Promise<Tokenizer> {
    const abs = resolve(dir);
    for (const f of TOKENIZER_FILES) {
      const p = join(abs, f);
      if (!existsSync(p)) throw new ModelError(`${p}: missing (a model directory needs ${TOKENIZER_FILES.join(' and ')}; see models/README.md)`);
      try {
        JSON.parse(readFileSync(p, 'utf8'));
      } catch (err) {
        throw new ModelError(`${p}: not valid JSON (${describeError(err)})`);
      }
    }
    const { AutoTokenizer } = await transformers();
    let hf: unknown;
    try {
      // transformers.js joins env.localModelPath ('/') with this id: an absolute path without its leading slash.
      hf = await AutoTokenizer.from_pretrained(abs.replace(/^\/+/, ''), { local_files_only: true });
    } catch (err) {
      throw new ModelError(`${join(abs, 'tokenizer.json')}: cannot load the tokenizer (${describeError(err)})`);
    }
    return new Tokenizer(hf as HfTokenizer, abs);
  }

  /** Word pieces of a text, without special tokens. */
  tokens(text: string): string[] {
    return this.hf._encode_text(text) ?? [];
  }

  countTokens(text: string): number {
    return this.tokens(text).length;
  }

  ids(tokens: string[]): number[] {
    return this.hf.model.convert_tokens_to_ids(tokens);
  }

  /** Token budget left for text in a single sequence / a pair, given a total maximum. */
  budget(maxTokens: number, pair: boolean): number {
    return Math.max(1, maxTokens - (pair ? this.pairOverhead : this.singleOverhead));
  }

  /**
   * The word pieces of `text` cut to `budget`: multi-line (LIGHT) text drops lines by the LIGHT rule
   * first; whatever still does not fit is cut at the end.
   */
  fit(text: string, budget: number): string[] {
    if (this.lineSeparable && text.includes('\n')) {
      // One pass: tokens per line, then keep lines by the LIGHT rule.
      const lines = text.split('\n');
      const perLine = lines.map((l) => this.tokens(l));
      const total = perLine.reduce((a, t) => a + t.length, 0);
      if (total <= budget) return perLine.flat();
      const counts = new Map(lines.map((l, i) => [l, perLine[i]!] as const));
      const t = selectLines(lines, (l) => counts.get(l)!.length, budget).flatMap((l) => counts.get(l)!);
      return t.length <= budget ? t : t.slice(0, budget);
    }
    const all = this.tokens(text);
    if (all.length <= budget) return all;
    if (text.includes('\n')) {
      const kept = selectLines(text.split('\n'), (l) => this.countTokens(l), budget).join('\n');
      const t = this.tokens(kept);
      return t.length <= budget ? t : t.slice(0, budget);
    }
    return all.slice(0, budget);
  }

  private assemble(a: string[], b: string[] | null): { ids: number[]; types: number[] } {
    if (!this.hf.post_processor) {
      const tokens = b ? [...a, ...b] : a;
      return { ids: this.ids(tokens), types: tokens.map((_, i) => (i < a.length ? 0 : 1)) };
    }
    const out = this.hf.post_processor(a, b, { add_special_tokens: true });
    const ids = this.ids(out.tokens);
    return { ids, types: out.token_type_ids ?? ids.map(() => 0) };
  }

  private pack(rows: { ids: number[]; types: number[] }[]): EncodedBatch {
    const batch = rows.length;
    const length = Math.max(1, ...rows.map((r) => r.ids.length));
    const pad = BigInt(this.hf.pad_token_id ?? 0);
    const inputIds = new BigInt64Array(batch * length).fill(pad);
    const attentionMask = new BigInt64Array(batch * length);
    const tokenTypeIds = new BigInt64Array(batch * length);
    rows.forEach((r, b) => {
      const o = b * length;
      for (let i = 0; i < r.ids.length; i++) {
        inputIds[o + i] = BigInt(r.ids[i]!);
        attentionMask[o + i] = 1n;
        tokenTypeIds[o + i] = BigInt(r.types[i] ?? 0);
      }
    });
    return { inputIds, attentionMask, tokenTypeIds, batch, length };
  }

  /** Single sequences with special tokens, each at most `maxTokens` long, padded to the longest. */
  encode(texts: string[], maxTokens: number): EncodedBatch {
    const budget = this.budget(maxTokens, false);
    return this.pack(texts.map((t) => this.assemble(this.fit(t, budget), null)));
  }

  /**
   * Pairs (context, candidate) as cross-encoders take them: `[CLS] context [SEP] candidate [SEP]`
   * with token_type_ids 0 then 1. The candidate keeps up to half the budget; the context gets the rest.
   */
  encodePairs(context: string, candidates: string[], maxTokens: number): EncodedBatch {
    const budget = this.budget(maxTokens, true);
    const cands = candidates.map((c) => this.tokens(c).slice(0, Math.max(1, Math.floor(budget / 2))));
    const longest = Math.max(0, ...cands.map((c) => c.length));
    const ctx = this.fit(context, Math.max(1, budget - longest));
    return this.pack(cands.map((c) => this.assemble(ctx, c)));
  }
}
