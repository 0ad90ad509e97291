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
  return written;
}

function executeQuiet(w: World, who: string, text: string): void {
  execute(w, who, text);
}

export const corpusCommand: Command = {
  name: 'corpus',
  summary: 'check the written episode corpus: replay every action, count, find duplicates',
  usage: [
    'usage: lightmud corpus check [--data PATH] [--world PATH] [--min-turns N]',
    '       lightmud corpus scene ROOM CHARACTER CHARACTER... [--world PATH]',
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
        const [room, ...who] = rest.slice(1);
        if (!room || who.length < 1) throw new UsageError('scene needs a room id and at least one character id');
        chars = who;
        staged = stageEpisode(world, room, who);
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
    if (rest[0] !== 'check') throw new UsageError('the sub-commands are check, scene and state');
    const { episodes, errors } = readEpisodeFiles(opts.data ?? DEFAULT_CORPUS);
    const report = checkCorpus(world, episodes, { minTurns: opts['min-turns'] ? Number(opts['min-turns']) : 8 });
    for (const e of errors) console.log(e);
    for (const p of report.problems) console.log(`episode ${p.episode}${p.turn >= 0 ? ` turn ${p.turn}` : ''}: ${p.message}`);
    console.log(`${report.episodes} episodes, ${report.turns} turns (${report.withAction} with an action, ${report.withEmote} with an emote) in ${report.rooms} rooms; ${errors.length + report.problems.length} problem(s)`);
    return errors.length + report.problems.length ? 1 : 0;
  },
};
