/**
 * Utterances for a dialogue candidate pool, read from files:
 *  - *.jsonl episodes (world-data/episodes): every turn's `say` ({"turns": [{"speaker", "say", ...}]});
 *  - *.txt: one utterance a line;
 *  - ParlAI LIGHT dialogue files (*.parlai, or a .txt whose first line starts with "text:"): the
 *    labels and label candidates.
 * A directory is read recursively (those extensions only). Utterances are trimmed, whitespace runs
 * collapsed, empty ones dropped and duplicates removed, first occurrence first, so the same files
 * always give the same pool (and the same cache key).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { ModelError } from './errors.js';
import { parseParlai } from '../eval/parlai.js';

const EXTENSIONS = new Set(['.jsonl', '.txt', '.parlai']);

function filesUnder(path: string): string[] {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) throw new ModelError(`${path}: not found`);
  if (st.isFile()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => (e.isDirectory() ? filesUnder(join(path, e.name)) : EXTENSIONS.has(extname(e.name)) ? [join(path, e.name)] : []));
}

function fromFile(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const ext = extname(file);
  if (ext === '.jsonl') {
    const out: string[] = [];
    text.split('\n').forEach((line, i) => {
      if (!line.trim()) return;
      let ep: unknown;
      try {
        ep = JSON.parse(line);
      } catch (err) {
        throw new ModelError(`${file}:${i + 1}: not JSON (${(err as Error).message})`);
      }
      const turns = (ep as { turns?: unknown }).turns;
      if (!Array.isArray(turns)) throw new ModelError(`${file}:${i + 1}: an episode needs a "turns" list`);
      for (const t of turns) if (t && typeof (t as { say?: unknown }).say === 'string') out.push((t as { say: string }).say);
    });
    return out;
  }
  if (ext === '.parlai' || text.startsWith('text:')) {
    return parseParlai(text, file).flatMap((m) => [...m.labels, ...m.candidates]);
  }
  return text.split('\n');
}

export function readUtterances(paths: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const p of paths) {
    for (const file of filesUnder(p)) {
      for (const raw of fromFile(file)) {
        const u = raw.replace(/\s+/g, ' ').trim();
        if (u && !seen.has(u)) {
          seen.add(u);
          out.push(u);
        }
      }
    }
  }
  return out;
}
