/**
 * A dialogue candidate pool: utterances, their normalised bi-encoder embeddings (one Float32Array
 * [n, dim]) cached on disk, and a top-K index over them.
 *
 * Cache file `CACHE_DIR/NAME.emb`: the 8 bytes "LMEMB001", a little-endian uint32 header length,
 * a JSON header {model, pool, n, dim} padded with spaces to a multiple of 4 bytes, then n*dim
 * float32 values. `model` is the bi-encoder's fingerprint (its .onnx bytes, tokenizer files and
 * encoding settings) and `pool` a hash of the utterances; if either differs the cache is rebuilt.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BiEncoder } from './encoders.js';
import { DotIndex, type Hit, type IndexOptions } from './topk.js';

const MAGIC = 'LMEMB001';

export interface PoolHeader {
  model: string;
  pool: string;
  n: number;
  dim: number;
}

export interface PoolOptions extends IndexOptions {
  /** Where to keep the embedding cache; no caching when undefined. */
  cacheDir?: string;
  /** Cache file name (default "pool"). One file per name; a changed pool or model overwrites it. */
  name?: string;
  batchSize?: number;
  onProgress?: (done: number, total: number) => void;
  /** Keep the JavaScript copy of the embeddings after building the index (default false: onnxruntime holds its own). */
  keepEmbeddings?: boolean;
}

export function hashTexts(texts: string[]): string {
  const h = createHash('sha256');
  h.update(String(texts.length));
  for (const t of texts) h.update('\u0000').update(t);
  return h.digest('hex');
}

export function writeEmbeddingCache(path: string, header: PoolHeader, embeddings: Float32Array): void {
  let json = JSON.stringify(header);
  while ((MAGIC.length + 4 + Buffer.byteLength(json)) % 4 !== 0) json += ' ';
  const head = Buffer.alloc(MAGIC.length + 4);
  head.write(MAGIC, 0, 'latin1');
  head.writeUInt32LE(Buffer.byteLength(json), MAGIC.length);
  const body = Buffer.from(embeddings.buffer, embeddings.byteOffset, embeddings.byteLength);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, Buffer.concat([head, Buffer.from(json), body]));
  renameSync(tmp, path);
}

/** Reads a cache file; undefined (and a reason) when absent, corrupt or not matching `expect`. */
export function readEmbeddingCache(path: string, expect: Omit<PoolHeader, 'dim'>): { embeddings: Float32Array; dim: number } | { reason: string } {
  if (!existsSync(path)) return { reason: 'no cache file' };
  const buf = readFileSync(path);
  if (buf.length < MAGIC.length + 4 || buf.toString('latin1', 0, MAGIC.length) !== MAGIC) return { reason: 'not an embedding cache' };
  const len = buf.readUInt32LE(MAGIC.length);
  let header: PoolHeader;
  try {
    header = JSON.parse(buf.toString('utf8', MAGIC.length + 4, MAGIC.length + 4 + len)) as PoolHeader;
  } catch {
    return { reason: 'unreadable header' };
  }
  if (header.model !== expect.model) return { reason: 'model changed' };
  if (header.pool !== expect.pool || header.n !== expect.n) return { reason: 'pool changed' };
  const start = MAGIC.length + 4 + len;
  if (buf.length - start !== header.n * header.dim * 4) return { reason: 'truncated file' };
  // Copy into an aligned buffer (Buffer slices of small files may share an unaligned pool).
  const embeddings = new Float32Array(header.n * header.dim);
  new Uint8Array(embeddings.buffer).set(buf.subarray(start));
  return { embeddings, dim: header.dim };
}

export class CandidatePool {
  private constructor(
    readonly texts: string[],
    readonly dim: number,
    readonly index: DotIndex,
    /** Where the embeddings came from: the cache file, or encoded now (and why). */
    readonly source: { from: 'cache' | 'encoded'; reason?: string; path?: string },
    readonly embeddings: Float32Array | undefined,
    /** Fingerprint of the bi-encoder that encoded it. */
    readonly model: string,
  ) {}

  get size(): number {
    return this.texts.length;
  }

  /** Encodes (or loads from the cache) the embeddings of `texts` and builds the index. */
  static async build(encoder: BiEncoder, texts: string[], opts: PoolOptions = {}): Promise<CandidatePool> {
    const expect = { model: encoder.fingerprint, pool: hashTexts(texts), n: texts.length };
    const path = opts.cacheDir ? join(opts.cacheDir, `${opts.name ?? 'pool'}.emb`) : undefined;
    let embeddings: Float32Array | undefined;
    let dim = 0;
    let reason = 'no cache directory';
    if (path) {
      const cached = readEmbeddingCache(path, expect);
      if ('embeddings' in cached) {
        embeddings = cached.embeddings;
        dim = cached.dim;
      } else reason = cached.reason;
    }
    const fromCache = embeddings !== undefined;
    if (!embeddings) {
      embeddings = await encoder.encodeMany(texts, { batchSize: opts.batchSize, onProgress: opts.onProgress });
      dim = encoder.dim || (texts.length ? embeddings.length / texts.length : 0);
      if (path && opts.cacheDir) {
        mkdirSync(opts.cacheDir, { recursive: true });
        writeEmbeddingCache(path, { ...expect, dim }, embeddings);
      }
    }
    const index = await DotIndex.create(embeddings, Math.max(dim, 1), opts);
    const source = fromCache ? { from: 'cache' as const, path } : { from: 'encoded' as const, reason, path };
    return new CandidatePool(texts, dim, index, source, opts.keepEmbeddings ? embeddings : undefined, encoder.fingerprint);
  }

  /** The best `k` utterances for each query embedding ([batch, dim]). */
  async search(queries: Float32Array, k: number): Promise<Hit[][]> {
    return this.index.search(queries, k);
  }

  async release(): Promise<void> {
    await this.index.release();
  }
}
