/**
 * Which corpus a ParlAI export was made from, so that figures are never quietly measured on a stale
 * export: `lightmud corpus export` writes `SOURCE.json` beside the files (the corpus directory, a hash
 * of its splits.json and episode files, the seed), and `lightmud eval` compares it with the corpus as
 * it is now. (A hand-made or downloaded ParlAI file has no SOURCE.json and is not checked.)
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export const SOURCE_FILE = 'SOURCE.json';

export interface ExportSource {
  /** The corpus directory, absolute. */
  corpus: string;
  /** sha256 over splits.json and every *.jsonl of the corpus, by name, in name order. */
  hash: string;
  seed: number;
  exportedAt: string;
}

/** The hash of a corpus directory's splits.json and episode files. */
export function corpusHash(dir: string): string {
  const h = createHash('sha256');
  const names = readdirSync(dir).filter((f) => f === 'splits.json' || f.endsWith('.jsonl')).sort();
  for (const f of names) {
    h.update(`${f}\0`);
    h.update(readFileSync(join(dir, f)));
    h.update('\0');
  }
  return h.digest('hex');
}

export function writeExportSource(out: string, corpus: string, seed: number): void {
  const source: ExportSource = { corpus: resolve(corpus), hash: corpusHash(corpus), seed, exportedAt: new Date().toISOString() };
  writeFileSync(join(out, SOURCE_FILE), JSON.stringify(source, null, 2) + '\n');
}

/**
 * Why the export holding `file` does not match its corpus now (a sentence to print), or null when it
 * does, or when there is nothing to compare (no SOURCE.json, or the corpus is not on this machine).
 */
export function staleExport(file: string): string | null {
  const path = join(dirname(resolve(file)), SOURCE_FILE);
  if (!existsSync(path)) return null;
  let source: ExportSource;
  try {
    source = JSON.parse(readFileSync(path, 'utf8')) as ExportSource;
  } catch {
    return `${path} is not valid JSON: which corpus ${file} was exported from is unknown`;
  }
  if (typeof source.corpus !== 'string' || typeof source.hash !== 'string') return `${path} names no corpus and hash: which corpus ${file} was exported from is unknown`;
  if (!existsSync(source.corpus) || !statSync(source.corpus).isDirectory()) return null;
  if (corpusHash(source.corpus) === source.hash) return null;
  return `${file} was exported (${source.exportedAt ?? 'at an unknown time'}) from ${source.corpus} as it was then; the corpus has changed since. Run \`lightmud corpus export\` to measure on the corpus as it is.`;
}
