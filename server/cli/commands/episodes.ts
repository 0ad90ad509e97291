import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync, type WriteStream } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from '../command.js';
import { intOption, parseOptions, UsageError } from '../command.js';
import { progressBar } from '../progress.js';
import { Rng } from '../../engine/rng.js';
import { World } from '../../engine/world.js';
import { parseEpisodes } from '../../episodes/episode.js';
import { DEFAULT_WORLD, loadWorld } from '../../world-io/load-world.js';
import { DEFAULT_DB } from '../../store/db.js';
import { episodeExamples, toParlai, type Example } from '../../episodes/examples.js';
import { runEpisodes, verifyEpisodes, type ModelEpisode } from '../../agents/episodes.js';
import { EpisodeStore } from '../../agents/episode-store.js';
import { defaultModelDir, loadPolicy } from '../../agents/load.js';

const TASKS = [['speech', 'dialogue'], ['action', 'action'], ['emote', 'emote']] as const;

/** PREFIX.{dialogue,action,emote}.txt for --format parlai --out PREFIX[.txt]. */
export function parlaiFiles(out: string): Record<'speech' | 'action' | 'emote', string> {
  const prefix = out.replace(/\.(txt|parlai)$/, '');
  return { speech: `${prefix}.dialogue.txt`, action: `${prefix}.action.txt`, emote: `${prefix}.emote.txt` };
}

export const episodesCommand: Command = {
  name: 'episodes',
  summary: 'play model-vs-model episodes in LIGHT\'s setup and write them as JSONL or ParlAI text',
  usage: [
    'usage: lightmud episodes [--world FILE] --n N --turns T [--seed S] [--out FILE] [--format jsonl|parlai]',
    '                         [--model DIR] [--db FILE | --no-db] [--group N] [--rerank K]',
    '       lightmud episodes --verify FILE [--world FILE]',
    '',
    'Two characters are placed in a location (two who live there, or random ones when fewer do),',
    'with the location\'s objects and their own, and take T turns; each turn one utterance and at',
    'most one action or emote, chosen by the model policy (server/agents) and executed by the engine.',
    'The same seed gives the same episodes.',
    '',
    `  --world FILE      world file or directory (default: the bundled world, ${DEFAULT_WORLD})`,
    '  --n N             episodes to play',
    '  --turns T         turns per episode (alternating speakers)',
    '  --seed S          random seed (default 1)',
    '  --out FILE        where to write (default: JSONL on standard output); with --format parlai,',
    '                    FILE.dialogue.txt, FILE.action.txt and FILE.emote.txt (the format lightmud eval reads)',
    '  --format F        jsonl (default: setting, personas, objects and turns, one episode a line) or parlai',
    `  --model DIR       model directory (default ${defaultModelDir()}; $LIGHTMUD_MODEL)`,
    `  --db FILE         SQLite file the episodes are recorded in (default ${DEFAULT_DB}, table model_episodes)`,
    '  --no-db           do not record in SQLite',
    '  --group N         episodes played together, their ranking batched (default 32)',
    '  --rerank K        cross-encoder rerank of the best K utterances (default 0: bi-encoder retrieval only,',
    '                    the fast setting; reranking costs ~3 ms per utterance on 2 cores)',
    '  --threads N       onnxruntime threads (default 1)',
    '  --verify FILE     replay a JSONL file of episodes in the engine and report every mismatch',
  ].join('\n'),
  async run(args) {
    const { opts, rest } = parseOptions(args, {
      world: 'string', n: 'string', turns: 'string', seed: 'string', out: 'string', format: 'string', model: 'string',
      db: 'string', 'no-db': 'boolean', group: 'string', rerank: 'string', verify: 'string', threads: 'string',
    });
    if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
    const worldPath = opts.world ?? DEFAULT_WORLD;
    const loaded = loadWorld(worldPath, { seed: 1 });
    const world = new World(loaded.state);

    if (opts.verify !== undefined) {
      if (!existsSync(opts.verify)) throw new UsageError(`--verify: no file ${opts.verify}`);
      const { episodes, errors } = parseEpisodes(readFileSync(opts.verify, 'utf8'), opts.verify);
      for (const e of errors) console.log(`error: ${e.message}`);
      const problems = verifyEpisodes(world, episodes);
      for (const p of problems) console.log(`mismatch: episode ${p.episode} turn ${p.turn}: ${p.message}`);
      const turns = episodes.reduce((a, e) => a + e.turns.length, 0);
      const actions = episodes.reduce((a, e) => a + e.turns.filter((t) => t.action).length, 0);
      console.log(`verified ${episodes.length} episodes (${turns} turns, ${actions} actions) against ${worldPath}: ${problems.length} mismatches, ${errors.length} malformed lines`);
      return problems.length || errors.length ? 1 : 0;
    }

    if (opts.n === undefined || opts.turns === undefined) throw new UsageError('--n and --turns are required (or --verify FILE)');
    const n = intOption(opts.n, 'n', 0);
    const turns = intOption(opts.turns, 'turns', 0);
    if (n < 1) throw new UsageError('--n must be at least 1');
    if (turns < 1 || turns > 1000) throw new UsageError('--turns must be between 1 and 1000');
    const seed = intOption(opts.seed, 'seed', 1);
    const format = opts.format ?? 'jsonl';
    if (format !== 'jsonl' && format !== 'parlai') throw new UsageError(`--format is jsonl or parlai, not "${format}"`);
    if (format === 'parlai' && !opts.out) throw new UsageError('--format parlai needs --out FILE');
    const group = Math.max(1, intOption(opts.group, 'group', 32));
    const rerank = Math.max(0, intOption(opts.rerank, 'rerank', 0));
    const modelDir = resolve(opts.model ?? defaultModelDir());
    if (!existsSync(modelDir)) throw new Error(`no model directory at ${modelDir}: train one (lightmud train --out DIR) and pass --model DIR`);

    // Where messages go: standard error when the episodes themselves go to standard output.
    const say = (line: string) => (opts.out ? console.log(line) : console.error(line));
    const t0 = performance.now();
    const threads = Math.max(1, intOption(opts.threads, 'threads', 1));
    const { policy, poolSize, tuning } = await loadPolicy({ modelDir, world, rerank, threads, log: say });
    say(`model ${modelDir}: pool of ${poolSize} utterances, ${rerank ? `cross-encoder rerank of the best ${rerank}` : 'bi-encoder retrieval'}${tuning ? '' : ', default thresholds'}; loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const run = `seed${seed}-${new Date().toISOString()}-${process.pid}`;
    const store = opts['no-db'] ? null : EpisodeStore.open(opts.db ?? DEFAULT_DB, run, modelDir);
    let jsonl: WriteStream | NodeJS.WriteStream | null = null;
    const collected: ModelEpisode[] = [];
    if (format === 'jsonl') {
      if (opts.out) {
        mkdirSync(dirname(resolve(opts.out)), { recursive: true });
        jsonl = createWriteStream(opts.out);
      } else jsonl = process.stdout;
    }
    const bar = progressBar();
    try {
      const stats = await runEpisodes(world, policy, {
        n, turns, seed, group,
        onEpisode: (ep) => {
          store?.add(ep);
          if (jsonl) jsonl.write(`${JSON.stringify(ep)}\n`);
          else collected.push(ep);
        },
        onProgress: (done, total) => bar('episodes', done, total, `${done}/${total}`),
      });
      if (format === 'parlai') {
        const files = parlaiFiles(opts.out!);
        const examples: Example[] = collected.flatMap((ep) => episodeExamples(world, ep));
        const distractors = policy.pool.texts.map((text) => ({ episode: '', text }));
        for (const [task] of TASKS) {
          mkdirSync(dirname(resolve(files[task])), { recursive: true });
          writeFileSync(files[task], toParlai(examples, task, distractors, new Rng(seed)));
        }
        say(`wrote ${Object.values(files).join(', ')}`);
      } else if (opts.out) say(`wrote ${opts.out}`);
      if (store) say(`recorded ${n} episodes in ${store.db.name} (table model_episodes, run ${run})`);
      const perSec = stats.episodes / stats.seconds;
      say(`${stats.episodes} episodes, ${stats.turns} turns (${stats.actions} actions, ${stats.emotes} emotes) in ${stats.seconds.toFixed(1)} s: ${perSec.toFixed(2)} episodes/s${stats.refused ? `; ${stats.refused} actions refused by the engine (a bug)` : ''}`);
      return stats.refused ? 1 : 0;
    } finally {
      store?.close();
      if (jsonl && jsonl !== process.stdout) await new Promise<void>((r) => (jsonl as WriteStream).end(() => r()));
      await policy.ranker.release().catch(() => {});
      await policy.pool.release().catch(() => {});
    }
  },
};
