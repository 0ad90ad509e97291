/**
 * episode_workers: model-vs-model episodes as queue workers on PostgreSQL (issue 15, item 5).
 *
 * A PostgreSQL of its own (test/server/stores.ts's helper: initdb and pg_ctl in a temp directory, on 127.0.0.1),
 * the bundled world and model; `lightmud episodes queue` N ten-turn episodes in jobs of K, then
 * `lightmud episodes work` child processes drain the queue: 1 worker, then 2 in parallel (on another seed, so
 * another configuration: nothing is reused). Figures per run: wall time from spawning the workers to the last
 * one's exit (their start, the policy's load and the queue included), episodes/s over it; episodes/s while
 * playing (episodes over the longest time any one worker spent in its jobs' runEpisodes); play seconds per
 * episode (the jobs' runEpisodes time summed over workers / episodes); worker CPU seconds per episode (the
 * workers' own process.cpuUsage, start and load included).
 *
 * Model: models/default, or LIGHTMUD_BENCH_MODEL / LIGHTMUD_MODEL; cache .cache/agents or $LIGHTMUD_AGENT_CACHE. Sizes: EPISODE_WORKERS_N (default 384;
 * --quick 32), EPISODE_WORKERS_JOB (default 32: a job is played as one group, its ranking batched). Skipped without PostgreSQL or a model.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_MODEL_DIR } from '../server/agents/load.js';
import { DEFAULT_WORLD } from '../server/world-io/load-world.js';
import { postgresBinDir, startPostgres } from '../test/server/stores.js';
import type { BenchContext } from './report.js';

const BIN = fileURLToPath(new URL('../bin/lightmud.mjs', import.meta.url));
const CACHE = resolve(fileURLToPath(new URL('../.cache/agents', import.meta.url)));

function lightmud(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, 'episodes', ...args], { env: { ...process.env, LIGHTMUD_AGENT_CACHE: process.env.LIGHTMUD_AGENT_CACHE ?? CACHE }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => done({ code, out }));
  });
}

export default async function episodeWorkers(ctx: BenchContext): Promise<void> {
  const env = process.env;
  const model = resolve(env.LIGHTMUD_BENCH_MODEL ?? env.LIGHTMUD_MODEL ?? DEFAULT_MODEL_DIR);
  if (!existsSync(model)) {
    ctx.report({ bench: 'episode_workers', skipped: `no model directory at ${model} (LIGHTMUD_BENCH_MODEL=DIR)` });
    return;
  }
  const bin = env.LIGHTMUD_TEST_POSTGRES === 'off' ? null : postgresBinDir();
  if (!bin) {
    ctx.report({ bench: 'episode_workers', skipped: 'PostgreSQL is not installed (or LIGHTMUD_TEST_POSTGRES=off)' });
    return;
  }
  const n = Number(env.EPISODE_WORKERS_N ?? (ctx.quick ? 32 : 384));
  const jobSize = Number(env.EPISODE_WORKERS_JOB ?? 32);
  const server = await startPostgres(bin);
  const dir = mkdtempSync(join(tmpdir(), 'lightmud-episode-workers-'));
  try {
    for (const workers of [1, 2]) {
      const seed = 100 + workers;
      const q = await lightmud(['queue', '--db', server.url, '--n', String(n), '--turns', '10', '--seed', String(seed), '--job-size', String(jobSize), '--world', DEFAULT_WORLD, '--model', model]);
      if (q.code !== 0) throw new Error(`queue failed: ${q.out}`);
      const load1 = loadavg()[0]!;
      const t0 = performance.now();
      const runs = await Promise.all(Array.from({ length: workers }, () => lightmud(['work', '--db', server.url, '--out', join(dir, `out-${workers}`)])));
      const wall = (performance.now() - t0) / 1000;
      for (const r of runs) if (r.code !== 0) throw new Error(`a worker failed: ${r.out}`);
      const all = runs.map((r) => r.out).join('\n');
      const play = [...all.matchAll(/^done job \d+ .*: (\d+) episodes in ([\d.]+) s/gm)];
      const episodes = play.reduce((a, m) => a + Number(m[1]), 0);
      if (episodes !== n) throw new Error(`the workers wrote ${episodes} episodes, not ${n}:\n${all}`);
      const playS = play.reduce((a, m) => a + Number(m[2]), 0);
      // The drain without the workers' start: episodes over the longest any worker spent playing.
      const busiest = Math.max(...runs.map((r) => [...r.out.matchAll(/^done job \d+ .*: \d+ episodes in ([\d.]+) s/gm)].reduce((a, m) => a + Number(m[1]), 0)));
      const cpuS = [...all.matchAll(/, cpu ([\d.]+) s/g)].reduce((a, m) => a + Number(m[1]), 0);
      ctx.report({
        bench: 'episode_workers', workers, episodes: n, turns: 10, job_size: jobSize, wall_s: wall, episodes_per_s: n / wall, playing_episodes_per_s: n / busiest,
        play_s_per_episode: playS / n, cpu_s_per_episode: cpuS / n, cpus: cpus().length, load1,
      });
    }
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
