import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync, type WriteStream } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
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
import { configHash, describeConfig, fileSha256, jobOutput, type EpisodeConfig } from '../../agents/episode-config.js';
import { work } from '../../agents/episode-worker.js';
import { EpisodeQueue } from '../../store/episode-queue.js';

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
    '       lightmud episodes --verify FILE-or-DIR [--world FILE]',
    '       lightmud episodes queue --db postgres://... --n N --turns T [--seed S] [--job-size K] [--world FILE] [--model DIR]',
    '       lightmud episodes work --db postgres://... --out DIR [--once] [--lease SECONDS] [--world FILE] [--model DIR]',
    '       lightmud episodes status --db postgres://... [--out DIR [--requeue-missing]]',
    '',
    'Two characters are placed in a location (two who live there, or random ones when fewer do),',
    'with the location\'s objects and their own, and take T turns; each turn one utterance and at',
    'most one action or emote, chosen by the model policy (server/agents) and executed by the engine.',
    'The same seed gives the same episodes.',
    '',
    `  --world FILE      world file or directory (default: the bundled world, ${DEFAULT_WORLD})`,
    '  --n N             episodes to play',
    '  --turns T         turns per episode (alternating speakers; fewer when a character dies or both have said goodbye)',
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
    '  --verify FILE     replay a JSONL file of episodes in the engine and report every mismatch; given the',
    '                    DIR of `episodes work`, every job output in it (each against its configuration\'s world),',
    '                    checking that each file holds the episodes its name says, and reporting the episodes missing',
    '',
    'At scale, as queue workers on PostgreSQL (table lightmud_episode_jobs):',
    '  queue             enqueue episodes 1..N of the configuration (world, model, corpus, code, --turns, --seed,',
    '                    --rerank) as jobs of --job-size K episodes (default 100); episodes already enqueued are not',
    '                    enqueued again. --max-attempts A (default 3): tries before a job is failed',
    '  work              claim jobs (FOR UPDATE SKIP LOCKED) and write DIR/<config-hash>/<first>-<last>.jsonl, the same',
    '                    bytes as `lightmud episodes` writes for those episodes; until no job is queued or running',
    '                    (--once: one job). --lease S (default 60): a job whose worker stops renewing is claimed again',
    '  status            jobs by state and episodes done, per configuration; running and failed jobs. With --out DIR:',
    '                    whether every done job\'s file is in DIR with its recorded checksum; --requeue-missing queues',
    '                    the jobs whose file is missing or changed again',
  ].join('\n'),
  async run(args) {
    const sub = args[0];
    if (sub === 'queue') return queueCommand(args.slice(1));
    if (sub === 'work') return workCommand(args.slice(1));
    if (sub === 'status') return statusCommand(args.slice(1));
    const { opts, rest } = parseOptions(args, {
      world: 'string', n: 'string', turns: 'string', seed: 'string', out: 'string', format: 'string', model: 'string',
      db: 'string', 'no-db': 'boolean', group: 'string', rerank: 'string', verify: 'string', threads: 'string',
    });
    if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
    if (opts.verify !== undefined) return verifyCommand(opts.verify, opts.world);
    const worldPath = opts.world ?? DEFAULT_WORLD;
    const loaded = loadWorld(worldPath, { seed: 1 });
    const world = new World(loaded.state);

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

function needPg(url: string | undefined): string {
  if (!url) throw new UsageError('--db postgres://... is required');
  if (!/^postgres(ql)?:\/\//.test(url)) throw new UsageError(`--db must be a postgres:// URL, not "${url}"`);
  return url;
}

async function queueCommand(args: string[]): Promise<number> {
  const { opts, rest } = parseOptions(args, {
    db: 'string', n: 'string', turns: 'string', seed: 'string', 'job-size': 'string', world: 'string', model: 'string', rerank: 'string', 'max-attempts': 'string',
  });
  if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
  const url = needPg(opts.db);
  if (opts.n === undefined || opts.turns === undefined) throw new UsageError('queue: --n and --turns are required');
  const n = intOption(opts.n, 'n', 0);
  const turns = intOption(opts.turns, 'turns', 0);
  if (n < 1) throw new UsageError('--n must be at least 1');
  if (turns < 1 || turns > 1000) throw new UsageError('--turns must be between 1 and 1000');
  const jobSize = intOption(opts['job-size'], 'job-size', 100);
  if (jobSize < 1) throw new UsageError('--job-size must be at least 1');
  const maxAttempts = intOption(opts['max-attempts'], 'max-attempts', 3);
  if (maxAttempts < 1) throw new UsageError('--max-attempts must be at least 1');
  const config = describeConfig({
    world: opts.world ?? DEFAULT_WORLD, model: opts.model ?? defaultModelDir(), turns,
    seed: intOption(opts.seed, 'seed', 1), rerank: Math.max(0, intOption(opts.rerank, 'rerank', 0)),
  });
  const queue = await EpisodeQueue.connect<EpisodeConfig>(url);
  try {
    const { hash, added, covered } = await queue.enqueue(configHash(config), config, 1, n, jobSize, maxAttempts);
    const eps = added.reduce((a, j) => a + j.last - j.first + 1, 0);
    console.log(`configuration ${hash} (world ${config.world}, model ${config.model}, ${turns} turns, seed ${config.seed}${config.rerank ? `, rerank ${config.rerank}` : ''}): episodes 1-${n}`);
    console.log(`enqueued ${added.length} jobs (${eps} episodes)${covered ? `; ${covered} episodes were enqueued already` : ''}`);
    return 0;
  } finally {
    await queue.close();
  }
}

async function workCommand(args: string[]): Promise<number> {
  const { opts, rest } = parseOptions(args, { db: 'string', out: 'string', once: 'boolean', lease: 'string', world: 'string', model: 'string', group: 'string' });
  if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
  const url = needPg(opts.db);
  if (!opts.out) throw new UsageError('work: --out DIR is required');
  const leaseS = intOption(opts.lease, 'lease', 60);
  if (leaseS < 1) throw new UsageError('--lease must be at least 1 (seconds)');
  // SIGINT or SIGTERM: the job under way is given back at once (rather than when its lease runs out); a second one exits.
  const stop = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    if (stop.signal.aborted) process.exit(130);
    console.log(`${sig}: stopping; the job under way will be given back`);
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let r: Awaited<ReturnType<typeof work>>;
  try {
    r = await work({
      url, out: opts.out, once: opts.once, leaseS, world: opts.world, model: opts.model, signal: stop.signal,
      group: Math.max(1, intOption(opts.group, 'group', 32)), log: (line) => console.log(line),
    });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  const failed = r.jobs.filter((j) => j.outcome === 'failed').length;
  const cpu = process.cpuUsage();
  console.log(`worker ${r.worker}: ${r.jobs.filter((j) => j.outcome === 'done').length} jobs done, ${r.episodes} episodes in ${r.seconds.toFixed(1)} s${r.episodes ? ` (${(r.episodes / r.seconds).toFixed(2)} episodes/s)` : ''}, cpu ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s${failed ? `; ${failed} failed` : ''}${r.stopped ? '; stopped' : ''}`);
  return failed ? 1 : 0;
}

async function statusCommand(args: string[]): Promise<number> {
  const { opts, rest } = parseOptions(args, { db: 'string', out: 'string', 'requeue-missing': 'boolean' });
  if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
  if (opts['requeue-missing'] && !opts.out) throw new UsageError('--requeue-missing needs --out DIR');
  const queue = await EpisodeQueue.connect<EpisodeConfig>(needPg(opts.db));
  try {
    const all = await queue.status();
    if (!all.length) console.log('no episode jobs');
    for (const c of all) {
      const j = c.jobs;
      console.log(`configuration ${c.hash} (world ${c.config.world}, model ${c.config.model}, ${c.config.turns} turns, seed ${c.config.seed}): `
        + `${j.queued + j.running + j.done + j.failed} jobs: ${j.queued} queued, ${j.running} running, ${j.done} done, ${j.failed} failed; episodes ${c.episodes.done}/${c.episodes.total} done`);
      for (const r of c.running) console.log(`  running: job ${r.id} (episodes ${r.first}-${r.last}), worker ${r.worker}, attempt ${r.attempts}/${r.maxAttempts}, lease ${r.leaseLeftS! >= 0 ? `${r.leaseLeftS!.toFixed(0)} s left` : `expired ${(-r.leaseLeftS!).toFixed(0)} s ago`}`);
      for (const f of c.failed) console.log(`  failed: job ${f.id} (episodes ${f.first}-${f.last}) after ${f.attempts} attempts: ${f.error ?? ''}`);
    }
    if (!opts.out) return 0;
    // The done jobs' files in DIR, against their recorded checksums.
    const done = (await queue.jobs()).filter((j) => j.state === 'done');
    const bad: { id: number; file: string; why: string }[] = [];
    for (const j of done) {
      const file = jobOutput(opts.out, j.config, j.first, j.last);
      const sum = fileSha256(file);
      if (sum === null) bad.push({ id: j.id, file, why: 'missing' });
      else if (sum !== j.checksum) bad.push({ id: j.id, file, why: 'another checksum than recorded' });
    }
    for (const b of bad) console.log(`  job ${b.id}: ${b.file}: ${b.why}`);
    console.log(`${done.length} done jobs' files checked in ${opts.out}: ${done.length - bad.length} present with their checksum, ${bad.length} missing or changed`);
    if (bad.length && opts['requeue-missing']) {
      const n = await queue.requeue(bad.map((b) => b.id), `output missing or changed in ${resolve(opts.out)}`);
      console.log(`queued ${n} jobs again`);
      return 0;
    }
    return bad.length ? 1 : 0;
  } finally {
    await queue.close();
  }
}

/** Verify a JSONL file, or a directory of job outputs (DIR/<config-hash>/<first>-<last>.jsonl). */
function verifyCommand(path: string, worldOpt: string | undefined): number {
  if (!existsSync(path)) throw new UsageError(`--verify: no file or directory ${path}`);
  const verifyText = (text: string, file: string, world: World) => {
    const { episodes, errors } = parseEpisodes(text, file);
    for (const e of errors) console.log(`error: ${e.message}`);
    const problems = verifyEpisodes(world, episodes);
    for (const p of problems) console.log(`mismatch: episode ${p.episode} turn ${p.turn}: ${p.message}`);
    return { episodes, errors: errors.length, problems: problems.length };
  };
  const worlds = new Map<string, World>();
  const worldAt = (p: string) => {
    let w = worlds.get(p);
    if (!w) worlds.set(p, (w = new World(loadWorld(p, { seed: 1 }).state)));
    return w;
  };
  if (!statSync(path).isDirectory()) {
    const worldPath = worldOpt ?? DEFAULT_WORLD;
    const { episodes, errors, problems } = verifyText(readFileSync(path, 'utf8'), path, worldAt(worldPath));
    const turns = episodes.reduce((a, e) => a + e.turns.length, 0);
    const actions = episodes.reduce((a, e) => a + e.turns.filter((t) => t.action).length, 0);
    console.log(`verified ${episodes.length} episodes (${turns} turns, ${actions} actions) against ${worldPath}: ${problems} mismatches, ${errors} malformed lines`);
    return problems || errors ? 1 : 0;
  }
  // A directory: of configurations (each a directory with config.json), or one configuration's.
  const configDirs = existsSync(join(path, 'config.json')) ? [path]
    : readdirSync(path).sort().map((d) => join(path, d)).filter((d) => statSync(d).isDirectory() && existsSync(join(d, 'config.json')));
  if (!configDirs.length) throw new UsageError(`--verify: ${path} holds no job outputs (no <config-hash>/config.json)`);
  let total = 0, turns = 0, actions = 0, problems = 0, errors = 0, misplaced = 0;
  for (const dir of configDirs) {
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as EpisodeConfig & { hash: string };
    if (configHash(config) !== config.hash) {
      console.log(`error: ${dir}/config.json: its hash is ${configHash(config)}, not ${config.hash}`);
      errors++;
    }
    const worldPath = worldOpt ?? config.world;
    const world = worldAt(worldPath);
    const files = readdirSync(dir).filter((f) => /^\d+-\d+\.jsonl$/.test(f)).sort();
    const have: [number, number][] = [];
    let n = 0;
    for (const f of files) {
      const [first, last] = f.replace('.jsonl', '').split('-').map(Number) as [number, number];
      const file = join(dir, f);
      const r = verifyText(readFileSync(file, 'utf8'), file, world);
      problems += r.problems;
      errors += r.errors;
      const want = Array.from({ length: last - first + 1 }, (_, i) => `model-${config.seed}-${String(first + i).padStart(5, '0')}`);
      const got = r.episodes.map((e) => e.id);
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        console.log(`error: ${file}: holds episodes ${got[0] ?? 'none'}..${got[got.length - 1] ?? ''} (${got.length}), not ${want[0]}..${want[want.length - 1]} (${want.length})`);
        misplaced++;
      }
      const prev = have[have.length - 1];
      if (prev && first <= prev[1]) {
        console.log(`error: ${file}: overlaps ${prev[0]}-${prev[1]}`);
        misplaced++;
      }
      have.push([first, last]);
      n += r.episodes.length;
      turns += r.episodes.reduce((a, e) => a + e.turns.length, 0);
      actions += r.episodes.reduce((a, e) => a + e.turns.filter((t) => t.action).length, 0);
    }
    const gaps: string[] = [];
    let at = 1;
    for (const [a, b] of have) {
      if (a > at) gaps.push(`${at}-${a - 1}`);
      at = Math.max(at, b + 1);
    }
    total += n;
    console.log(`configuration ${config.hash}: ${files.length} job outputs, ${n} episodes (episodes 1-${at - 1}${gaps.length ? `, missing ${gaps.join(', ')}` : ''}) against ${worldPath}`);
  }
  console.log(`verified ${total} episodes (${turns} turns, ${actions} actions) in ${configDirs.length} configuration${configDirs.length === 1 ? '' : 's'}: ${problems} mismatches, ${errors} malformed lines, ${misplaced} misnamed or overlapping files`);
  return problems || errors || misplaced ? 1 : 0;
}
