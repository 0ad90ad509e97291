import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from '../command.js';
import { parseOptions, UsageError } from '../command.js';
import { DEFAULT_WORLD, loadWorld } from '../../world-io/load-world.js';
import { World } from '../../engine/world.js';
import { parseEpisodes, type Episode } from '../../episodes/episode.js';
import { checkCorpus } from '../../episodes/corpus-check.js';

export const DEFAULT_CORPUS = new URL('../../../world-data/episodes', import.meta.url).pathname;

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

export const corpusCommand: Command = {
  name: 'corpus',
  summary: 'check the written episode corpus: replay every action, count, find duplicates',
  usage: [
    'usage: lightmud corpus check [--data PATH] [--world PATH] [--min-turns N]',
    '',
    'Replays every episode of a JSONL file or directory in the engine (each action must execute',
    'exactly as written), checks turn counts and looks for duplicated episodes and lines.',
    'Exits non-zero listing every problem.',
    '',
    '  --data PATH     episodes (default: world-data/episodes)',
    '  --world PATH    the world they are set in (default: the bundled world)',
    '  --min-turns N   fewest turns an episode may have (default 8)',
  ].join('\n'),
  async run(args) {
    const { opts, rest } = parseOptions(args, { data: 'string', world: 'string', 'min-turns': 'string' });
    if (rest[0] !== 'check') throw new UsageError('the only sub-command is "check"');
    const world = new World(loadWorld(opts.world ?? DEFAULT_WORLD).state);
    const { episodes, errors } = readEpisodeFiles(opts.data ?? DEFAULT_CORPUS);
    const report = checkCorpus(world, episodes, { minTurns: opts['min-turns'] ? Number(opts['min-turns']) : 8 });
    for (const e of errors) console.log(e);
    for (const p of report.problems) console.log(`episode ${p.episode}${p.turn >= 0 ? ` turn ${p.turn}` : ''}: ${p.message}`);
    console.log(`${report.episodes} episodes, ${report.turns} turns (${report.withAction} with an action, ${report.withEmote} with an emote) in ${report.rooms} rooms; ${errors.length + report.problems.length} problem(s)`);
    return errors.length + report.problems.length ? 1 : 0;
  },
};
