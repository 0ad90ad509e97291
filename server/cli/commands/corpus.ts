import { readEpisodeFiles } from '../../episodes/read.js';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from '../command.js';
import { intOption, parseOptions, UsageError } from '../command.js';
import { Rng } from '../../engine/rng.js';
import { episodeExamples, splitOf, SPLITS, toParlai, type Example, type Split, type SplitConfig } from '../../episodes/examples.js';
import { CORPUS_WORLD, loadWorld } from '../../world-io/load-world.js';
import { World } from '../../engine/world.js';
import { checkCorpus } from '../../episodes/corpus-check.js';
import { writeExportSource } from '../../episodes/export-source.js';
import { stageEpisode } from '../../episodes/stage.js';
import { replayEpisode } from '../../episodes/replay.js';
import { examine, execute, look, validActions } from '../../engine/index.js';

export const DEFAULT_CORPUS = new URL('../../../world-data/episodes', import.meta.url).pathname;


/** Write the corpus as ParlAI LIGHT text: one file per split and task. Returns file -> example count. */
export function exportParlai(world: World, data: string, out: string, seed: number): Record<string, number> {
  const cfg = JSON.parse(readFileSync(join(data, 'splits.json'), 'utf8')) as SplitConfig;
  const { episodes, errors } = readEpisodeFiles(data);
  if (errors.length) throw new Error(errors.slice(0, 5).join('\n'));
  const bySplit = Object.fromEntries(SPLITS.map((s) => [s, [] as Example[]])) as unknown as Record<Split, Example[]>;
  for (const ep of episodes) bySplit[splitOf(ep, world, cfg)].push(...episodeExamples(world, ep));
  mkdirSync(out, { recursive: true });
  const written: Record<string, number> = {};
  for (const split of SPLITS) {
    const rng = new Rng(seed);
    const distractors = bySplit[split].filter((x) => x.task === 'speech').map((x) => ({ episode: x.episode, text: x.label }));
    for (const [task, name] of [['speech', 'dialogue'], ['action', 'action'], ['emote', 'emote']] as const) {
      const file = join(out, `${split}.${name}.txt`);
      const text = toParlai(bySplit[split], task, distractors, rng);
      writeFileSync(file, text);
      written[file] = text ? text.trimEnd().split('\n').length : 0;
    }
  }
  writeExportSource(out, data, seed);
  return written;
}

/** A room or a character named by its id or its name (any case). Ambiguous names are refused with their ids. */
function findNamed<T extends { id: string; name: string }>(list: T[], phrase: string, what: string): T | null {
  const q = phrase.toLowerCase();
  const byId = list.find((n) => n.id.toLowerCase() === q);
  if (byId) return byId;
  const named = list.filter((n) => n.name.toLowerCase() === q);
  if (named.length > 1) throw new UsageError(`${named.length} ${what}s are called "${phrase}": give one's id (${named.map((n) => n.id).join(', ')})`);
  return named[0] ?? null;
}

/**
 * `corpus scene` arguments: a room, then characters, each an id or a name. A name of several words may be
 * quoted or not: the longest run of words that names something is taken, so `walled garden old man kitty`
 * is the room Walled Garden, the old man and the kitty.
 */
export function resolveScene(world: World, args: string[]): { room: string; characters: string[] } {
  const take = <T extends { id: string; name: string }>(from: number, list: T[], what: string): [T, number] | null => {
    for (let end = args.length; end > from; end--) {
      const found = findNamed(list, args.slice(from, end).join(' '), what);
      if (found) return [found, end];
    }
    return null;
  };
  const room = take(0, world.rooms(), 'room');
  if (!room) throw new UsageError(`no room has the id or name "${args[0]}"`);
  const characters: string[] = [];
  for (let at = room[1]; at < args.length; ) {
    const c = take(at, world.characters(), 'character');
    if (!c) throw new UsageError(`no character has the id or name "${args[at]}"`);
    characters.push(c[0].id);
    at = c[1];
  }
  if (!characters.length) throw new UsageError('scene needs a room and at least one character (ids or names)');
  return { room: room[0].id, characters };
}

const SUBCOMMANDS: [string, string][] = [
  ['check', 'replay every episode in the engine, count them, look for duplicates and copied lines'],
  ['scene ROOM CHARACTER...', 'show a writer the staged scene and each character\'s valid actions (ids or names)'],
  ['state', 'the scene after the first N turns of a written episode'],
  ['export', 'write the corpus as ParlAI LIGHT text, the files lightmud eval reads'],
];

function executeQuiet(w: World, who: string, text: string): void {
  execute(w, who, text);
}

export const corpusCommand: Command = {
  name: 'corpus',
  summary: 'check the written episode corpus: replay every action, count, find duplicates',
  usage: [
    'usage: lightmud corpus check [--data PATH] [--world PATH] [--min-turns N]',
    '       lightmud corpus scene ROOM CHARACTER... [--world PATH]      (ids or names: "walled garden" kitty)',
    '       lightmud corpus state --data FILE --id EPISODE --turn N [--world PATH]',
    '       lightmud corpus export [--data DIR] [--out DIR] [--seed N] [--world PATH]',
    '',
    'scene: print an episode\'s starting scene: the room as each character sees it, what each',
    'one carries, wears and wields, and each one\'s valid actions (for writers of episodes).',
    'state: the same, after the first N turns of a written episode have been replayed.',
    'export: write the corpus in ParlAI\'s LIGHT text format, one file per split and task',
    '(OUT/{train,valid,test_seen,test_unseen}.{dialogue,action,emote}.txt, OUT by default DATA/parlai;',
    'splits from DATA/splits.json), with 19 distractor utterances from other episodes per dialogue example.',
    '',
    'Replays every episode of a JSONL file or directory in the engine (each action must execute',
    'exactly as written), checks turn counts and looks for duplicated episodes and lines.',
    'Exits non-zero listing every problem.',
    '',
    '  --data PATH     episodes (default: world-data/episodes)',
    '  --world PATH    the world they are set in (default: the bundled world plus world-data/settings)',
    '  --min-turns N   fewest turns an episode may have (default 8)',
    '  --out DIR       export: where the ParlAI files go (default: DATA/parlai); files there are replaced',
  ].join('\n'),
  async run(args) {
    const { opts, rest } = parseOptions(args, { data: 'string', world: 'string', 'min-turns': 'string', id: 'string', turn: 'string', out: 'string', seed: 'string' });
    if (!rest.length) {
      const width = Math.max(...SUBCOMMANDS.map(([n]) => n.length));
      console.log(['usage: lightmud corpus <sub-command> [options]     (lightmud corpus --help for the options)', '', 'sub-commands:', ...SUBCOMMANDS.map(([n, what]) => `  ${n.padEnd(width)}  ${what}`)].join('\n'));
      return 0;
    }
    if (!['check', 'scene', 'state', 'export'].includes(rest[0]!)) throw new UsageError(`unknown sub-command "${rest[0]}"; the sub-commands are check, scene, state and export`);
    const world = new World(loadWorld(opts.world ?? CORPUS_WORLD).state);
    if (rest[0] === 'export') {
      const data = opts.data ?? DEFAULT_CORPUS;
      const out = opts.out ?? join(data, 'parlai');
      const written = exportParlai(world, data, out, intOption(opts.seed, 'seed', 1));
      for (const [file, n] of Object.entries(written)) console.log(`${file}: ${n} examples`);
      return 0;
    }
    if (rest[0] === 'scene' || rest[0] === 'state') {
      let staged: World;
      let chars: string[];
      if (rest[0] === 'scene') {
        if (rest.length < 3) throw new UsageError('scene needs a room and at least one character (ids or names)');
        const scene = resolveScene(world, rest.slice(1));
        chars = scene.characters;
        staged = stageEpisode(world, scene.room, scene.characters);
      } else {
        if (!opts.data || !opts.id) throw new UsageError('state needs --data FILE and --id EPISODE');
        const ep = readEpisodeFiles(opts.data).episodes.find((e) => e.id === opts.id);
        if (!ep) throw new UsageError(`no episode "${opts.id}" in ${opts.data}`);
        chars = ep.characters;
        const n = opts.turn ? Number(opts.turn) : ep.turns.length;
        const partial = { ...ep, turns: ep.turns.slice(0, n) };
        staged = stageEpisode(world, ep.room, ep.characters);
        const problems = replayEpisode(world, partial);
        for (const p of problems) console.log(`(turn ${p.turn}: ${p.message})`);
        // replay again on the staged copy to show the state after those turns
        for (const t of partial.turns) {
          if (t.action) executeQuiet(staged, t.speaker, t.action);
        }
      }
      console.log(look(staged, chars[0]!));
      for (const c of chars) {
        console.log(`\n== ${c}`);
        console.log(examine(staged, c, c));
        console.log(`valid actions: ${validActions(staged, c).join(' | ')}`);
      }
      return 0;
    }
    const { episodes, errors } = readEpisodeFiles(opts.data ?? DEFAULT_CORPUS);
    const report = checkCorpus(world, episodes, { minTurns: opts['min-turns'] ? Number(opts['min-turns']) : 8 });
    for (const e of errors) console.log(e);
    for (const p of report.problems) console.log(`episode ${p.episode}${p.turn >= 0 ? ` turn ${p.turn}` : ''}: ${p.message}`);
    console.log(`${report.episodes} episodes, ${report.turns} turns (${report.withAction} with an action, ${report.withEmote} with an emote) in ${report.rooms} rooms; ${errors.length + report.problems.length} problem(s)`);
    return errors.length + report.problems.length ? 1 : 0;
  },
};
