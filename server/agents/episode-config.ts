/**
 * The configuration of a run of model-vs-model episodes (issue 15, item 5): everything an episode depends on
 * besides its number: the world (its loaded state), the model directory (every file), the written corpus the
 * policy reads (world-data/episodes and the corpus world: the dialogue pool, the line judge, the tuned
 * thresholds), the code that plays episodes (server/agents, engine, episodes, world-io, models/runtime), the
 * turns, the run seed and the rerank depth. Its hash names it. Episode i of a run with seed S is determined by
 * (S, i) alone (episodes.ts: its own Rng seeded by episodeSeed(S, i)), whatever the batching, so a job is a
 * range of episode numbers of one configuration, and running it again writes the same bytes.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { CORPUS_WORLD, loadWorld } from '../world-io/load-world.js';
import { DEFAULT_EPISODES } from './load.js';

export interface EpisodeConfig {
  format: 'lightmud-episode-config';
  version: 1;
  /** Where the world and the model were when enqueued (a worker may be given other paths to the same bytes). */
  world: string;
  model: string;
  turns: number;
  seed: number;
  rerank: number;
  /** sha256 of the loaded world state, of the model directory's files, of the corpus, of the code. */
  fingerprints: { world: string; model: string; corpus: string; code: string };
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** sha256 over a directory's files (relative path, size and content of each, sorted; dot-files skipped). */
export function hashTree(root: string, keep: (rel: string) => boolean = () => true): string {
  const h = createHash('sha256');
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (name.startsWith('.')) continue;
      const p = join(dir, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) {
        const rel = relative(root, p);
        if (!keep(rel)) continue;
        h.update(`${rel}\0${st.size}\0`).update(readFileSync(p)).update('\0');
      }
    }
  };
  if (existsSync(root)) walk(root);
  return h.digest('hex');
}

const ROOT = resolve(new URL('../..', import.meta.url).pathname);
/** The code an episode's bytes depend on. */
const CODE_DIRS = ['server/agents', 'server/engine', 'server/episodes', 'server/world-io', 'models/runtime'];

function worldFingerprint(world: string): string {
  return sha256(JSON.stringify(loadWorld(world, { seed: 1 }).state));
}

let corpusMemo: string | undefined;
function corpusFingerprint(): string {
  corpusMemo ??= sha256(`${hashTree(DEFAULT_EPISODES)}\n${(() => {
    try {
      return sha256(JSON.stringify(loadWorld(CORPUS_WORLD, { seed: 1 }).state));
    } catch {
      return 'no corpus world';
    }
  })()}`);
  return corpusMemo;
}

let codeMemo: string | undefined;
function codeFingerprint(): string {
  codeMemo ??= sha256(CODE_DIRS.map((d) => `${d}:${hashTree(join(ROOT, d), (rel) => rel.endsWith('.ts') && !rel.endsWith('.test.ts'))}`).join('\n'));
  return codeMemo;
}

/** The configuration of episodes with these settings, fingerprinted from the files as they are now. */
export function describeConfig(o: { world: string; model: string; turns: number; seed: number; rerank: number }): EpisodeConfig {
  const world = resolve(o.world);
  const model = resolve(o.model);
  if (!existsSync(model)) throw new Error(`no model directory at ${model}`);
  return {
    format: 'lightmud-episode-config', version: 1, world, model, turns: o.turns, seed: o.seed, rerank: o.rerank,
    fingerprints: { world: worldFingerprint(world), model: hashTree(model), corpus: corpusFingerprint(), code: codeFingerprint() },
  };
}

/** The configuration's name: 16 hex digits of the sha256 of what it depends on (not of where the files are). */
export function configHash(c: EpisodeConfig): string {
  return sha256(JSON.stringify({ v: c.version, turns: c.turns, seed: c.seed, rerank: c.rerank, f: c.fingerprints })).slice(0, 16);
}

/** DIR/<hash>/<first>-<last>.jsonl */
export function jobOutput(dir: string, hash: string, first: number, last: number): string {
  return join(resolve(dir), hash, `${String(first).padStart(6, '0')}-${String(last).padStart(6, '0')}.jsonl`);
}

/** sha256 of a file's bytes; null when it cannot be read. */
export function fileSha256(path: string): string | null {
  try {
    return sha256(readFileSync(path));
  } catch {
    return null;
  }
}
