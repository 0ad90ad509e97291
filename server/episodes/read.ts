/** Reading episode files (JSONL) from disk: one file, or every .jsonl file of a directory in name order. */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseEpisodes, type Episode } from './episode.js';

export function readEpisodeFiles(path: string): { episodes: Episode[]; errors: string[] } {
  const files = statSync(path).isDirectory()
    ? readdirSync(path).filter((f) => f.endsWith('.jsonl')).sort().map((f) => join(path, f))
    : [path];
  const episodes: Episode[] = [];
  const errors: string[] = [];
  for (const f of files) {
    const r = parseEpisodes(readFileSync(f, 'utf8'), f);
    episodes.push(...r.episodes);
    errors.push(...r.errors.map((e) => e.message));
  }
  return { episodes, errors };
}
