/**
 * Crowd pairs in worlds of their own (issue 15): N pairs of crowd workers on one cluster portal
 * (`lightmud serve --remote --on-demand`), each pair's episode in a world opened on demand by two
 * on-demand shards (`lightmud shard --on-demand`) from a one-room template, over a nats-server and a
 * PostgreSQL of the bench's own on 127.0.0.1. Workers "type" 0.5-2 s before each turn, as in the crowd
 * bench. Figures: pairs paired and completed, time to be paired (the pair's world opened on demand
 * included), a turn from sending it to the next turn frame (the line and its action committed in the
 * pair's world and stored), the CPU of every process (shards, portal, nats-server, PostgreSQL) per turn,
 * the shards' memory when every world is open, and how many worlds each shard took.
 *
 * Sizes: 200 pairs (400 workers), 6 turns; --quick: 20 pairs. PAIRS_N, PAIRS_TURNS override. Skipped,
 * saying why, without nats-server or PostgreSQL. Every world holds one PostgreSQL connection (its lock):
 * the bench's PostgreSQL allows 300.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LightmudProcess } from '../test/cluster/processes.js';
import { natsSkip, startNats, type RunningNats } from '../test/server/nats.js';
import { postgresBinDir, startPostgres, type RunningPostgres } from '../test/server/stores.js';
import { pidFrom, treeCpuSeconds } from './cluster.bench.js';
import { crowdWorker } from './crowd.bench.js';
import { cpuSeconds } from './load.bench.js';
import { percentile, type BenchContext } from './report.js';

const BIN = fileURLToPath(new URL('../bin/lightmud.mjs', import.meta.url));

const TEMPLATE = {
  format: 'lightmud-world', version: 1, title: 'A yard for two', start: 'yard',
  rooms: [{ id: 'yard', name: 'Quiet Yard', category: 'Town', description: 'A quiet yard behind a bakery.', backstory: 'Built for the pairs bench.', exits: [] }],
  characters: [
    { id: 'baker', name: 'baker', persona: 'I am a baker. I work from dawn. I like quiet yards.', description: 'You see a baker.', room: 'yard' },
    { id: 'smith', name: 'smith', persona: 'I am a smith. I work the forge. I like strong tea.', description: 'You see a smith.', room: 'yard' },
  ],
  objects: [{ id: 'apple', name: 'apple', prefix: 'an', description: 'A red apple.', food: true, in: 'yard' }],
};

const rssMb = (pid: number) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
  } catch {
    return NaN;
  }
};

export default async function pairsBench(ctx: BenchContext): Promise<void> {
  const skip = natsSkip() || (postgresBinDir() ? false : 'PostgreSQL is not installed (or LIGHTMUD_TEST_POSTGRES=off)');
  if (skip) return ctx.report({ bench: 'crowd_pairs_own_worlds', skipped: skip });
  const pairs = Number(process.env.PAIRS_N ?? (ctx.quick ? 20 : 200));
  const turns = Number(process.env.PAIRS_TURNS ?? 6);
  const dir = mkdtempSync(join(tmpdir(), 'lightmud-pairs-bench-'));
  let nats: RunningNats | null = null;
  let pg: RunningPostgres | null = null;
  const procs: LightmudProcess[] = [];
  try {
    [nats, pg] = await Promise.all([startNats(), startPostgres(undefined, { maxConnections: pairs + 100 })]);
    const world = join(dir, 'world.json');
    writeFileSync(world, JSON.stringify(TEMPLATE));
    writeFileSync(join(dir, 'task.json'), JSON.stringify({
      id: 'pairs', world: 'world.json', locations: ['yard'], personas: ['baker', 'smith'], turns, turnSeconds: 60, warningSeconds: 10,
      reward: 'none', maxConcurrentPairs: pairs, maxUnitsPerWorker: 1, modelFallbackSeconds: null, partnerDrop: 'end_and_credit', worldPerPair: true,
    }));
    const db = join(dir, 'portal.db');
    execFileSync(process.execPath, [BIN, 'crowd', 'create', join(dir, 'task.json'), '--db', db], { stdio: 'ignore' });
    const shards = [0, 1].map(() => LightmudProcess.start('shard', ['--bus', nats!.url, '--db', pg!.url, '--on-demand', '--reclaim-after', '30', '--world', world]));
    procs.push(...shards);
    await Promise.all(shards.map((s) => s.waitForMsg('open to requests for more', 60_000)));
    const portal = LightmudProcess.start('serve', ['--remote', '--on-demand', '--bus', nats.url, '--world-id', 'lobby', '--db', db, '--http-port', '0', '--telnet-port', 'off', '--host', '127.0.0.1', '--max-connections', '0', '--max-per-ip', '0', '--connect-rate-per-ip', '0']);
    procs.push(portal);
    const up = await portal.waitFor((l) => l.event === 'listening', 'the portal to listen', 60_000);
    const pids = { shards: shards.map((s) => s.pid), portal: portal.pid, nats: pidFrom(join(nats.dir, 'nats.pid')), pg: pidFrom(join(pg.dir, 'data', 'postmaster.pid')) };
    const cpuOf = () => ({ shards: pids.shards.reduce((a, p) => a + cpuSeconds(p), 0), portal: cpuSeconds(pids.portal), nats: cpuSeconds(pids.nats), pg: treeCpuSeconds(pids.pg) });
    const cpu0 = cpuOf();
    const t0 = performance.now();
    let peakShardRss = 0;
    const sampler = setInterval(() => (peakShardRss = Math.max(peakShardRss, pids.shards.reduce((a, p) => a + rssMb(p), 0))), 500);
    const results = await Promise.all(Array.from({ length: pairs * 2 }, (_, i) => crowdWorker(up.httpPort as number, 'pairs', `pairs-worker-${i}`, turns, () => 500 + Math.random() * 1500, 180_000 + turns * 10_000)));
    clearInterval(sampler);
    const seconds = (performance.now() - t0) / 1000;
    const cpu1 = cpuOf();
    const paired = results.filter((r) => r.pairedMs !== null).map((r) => r.pairedMs!);
    const turnMs = results.flatMap((r) => r.turnMs);
    const opened = shards.map((s) => s.output.split('\n').filter((l) => l.includes('serving the world on the bus')).length);
    const used = { shards: cpu1.shards - cpu0.shards, portal: cpu1.portal - cpu0.portal, nats: cpu1.nats - cpu0.nats, pg: cpu1.pg - cpu0.pg };
    const total = used.shards + used.portal + used.nats + used.pg;
    ctx.report({
      bench: 'crowd_pairs_own_worlds', pairs, workers: pairs * 2, turns_per_episode: turns, seconds,
      paired: paired.length, never_paired: pairs * 2 - paired.length, completed: results.filter((r) => r.completed).length,
      pair_p50_ms: percentile(paired, 50), pair_p95_ms: percentile(paired, 95), pair_max_ms: percentile(paired, 100),
      turns: turnMs.length, turn_p50_ms: percentile(turnMs, 50), turn_p95_ms: percentile(turnMs, 95), turn_p99_ms: percentile(turnMs, 99),
      refused: results.reduce((a, r) => a + r.refused, 0),
      cpu_ms_per_turn: turnMs.length ? (total * 1000) / turnMs.length : NaN,
      cpu_s_shards: used.shards, cpu_s_portal: used.portal, cpu_s_nats: used.nats, cpu_s_postgres: used.pg,
      worlds_opened_per_shard: opened.join('/'), shards_peak_rss_mb: peakShardRss, load_avg: loadavg()[0] ?? NaN,
    });
  } finally {
    // PAIRS_LOGS=DIR: every process's output, for a run that went wrong.
    if (process.env.PAIRS_LOGS) procs.forEach((p, i) => writeFileSync(join(process.env.PAIRS_LOGS!, `proc-${i}.log`), p.output));
    for (const p of procs) await p.stop().catch(() => {});
    await nats?.stop().catch(() => {});
    await pg?.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}
