/**
 * cluster: a single process vs a cluster (issue 15), the same world and workload on this machine.
 *
 * Three setups, one after the other, each with N websocket clients (load.bench.ts's bots: guests on the load
 * bench's lanes, each sending its ordinary commands) at R commands a second each (random phases), a warm-up of
 * W seconds not measured, then S seconds measured:
 *   - `single_sqlite`: `lightmud serve` on a SQLite file, as `npm start`;
 *   - `single_postgres`: `lightmud serve --db postgres://...` (the world in PostgreSQL);
 *   - `cluster`: `lightmud shard` on PostgreSQL and one `lightmud serve --remote` portal, over a nats-server.
 * PostgreSQL and nats-server are started here on 127.0.0.1 (test/server's helpers, as `nobody` under root).
 *
 * Figures per setup: latency from sending a command to its acknowledgement (the result frame with its id, sent after
 * the commit) p50/p95/p99; refused (an error frame) and unanswered counts; CPU per acknowledged command in µs:
 * `serve_`, `shard_`, `portal_`, `nats_` and `postgres_cpu_us_per_command` (PostgreSQL's postmaster and backends;
 * on SQLite that work is inside the serve process), and `total_cpu_us_per_command`, all of them together. Then
 * the added routing latency: cluster p50 minus single_postgres p50 (the fair comparison: both commit to PostgreSQL)
 * and minus single_sqlite p50; the goal is at most 1 ms. No throughput scaling is claimed: two cores cannot show it.
 *
 * Sizes: CLUSTER_CLIENTS (default 100; --quick 30), CLUSTER_RATE (commands per second per client, default 2),
 * CLUSTER_SECONDS (measured, default 15; --quick 5), CLUSTER_WARMUP (default 3; --quick 1). Skipped (a line saying
 * why) without nats-server or PostgreSQL, or with LIGHTMUD_TEST_NATS=off / LIGHTMUD_TEST_POSTGRES=off; then only
 * single_sqlite runs.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startShard, type LightmudProcess } from '../test/cluster/processes.js';
import { natsSkip, startNats, type RunningNats } from '../test/server/nats.js';
import { postgresBinDir, startPostgres, type RunningPostgres } from '../test/server/stores.js';
import { benchWorld, cpuSeconds, serve, serveWith, WS_COMMANDS, wsBot, type Bot, type Child } from './load.bench.js';
import { percentile, type BenchContext } from './report.js';

interface Workload {
  clients: number;
  rate: number;
  seconds: number;
  warmup: number;
}

/** Each server process's CPU seconds so far, by a name for it (serve; shard, portal, nats; postgres). */
type CpuMeters = Record<string, () => number>;

interface Measured {
  sent: number;
  acknowledged: number[];
  refused: number;
  /** CPU seconds over the measured window, by process name as in the meters. */
  cpuS: Record<string, number>;
}

/** CPU seconds of a process and of its children (PostgreSQL's postmaster and its backends), or NaN. */
function treeCpuSeconds(pid: number): number {
  let total = cpuSeconds(pid);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      if (ppid === pid) total += cpuSeconds(Number(entry)) || 0;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** The pid a server wrote in its pid file (PostgreSQL's postmaster.pid, nats-server's -P file). */
function pidFrom(file: string): number {
  return Number(readFileSync(file, 'utf8').split('\n')[0]!.trim());
}

/** N websocket bots on `wsUrl`, each at `rate` commands a second; warm-up, then the measured window. */
async function drive(wsUrl: string, load: Workload, meters: CpuMeters): Promise<Measured> {
  const perRoom = 6;
  const bots: Bot[] = Array.from({ length: load.clients }, (_, i) => wsBot(wsUrl, `c-${Math.floor(i / perRoom)}-${i % perRoom}`, i % WS_COMMANDS.length));
  const timers: NodeJS.Timeout[] = [];
  try {
    for (let i = 0; i < bots.length; i += 50) await Promise.all(bots.slice(i, i + 50).map((b) => b.login()));
    const m: Measured = { sent: 0, acknowledged: [], refused: 0, cpuS: {} };
    let measuring = false;
    const interval = 1000 / load.rate;
    for (const bot of bots) {
      const tick = () => {
        if (!measuring) return bot.fire(() => {}, () => {});
        m.sent++;
        bot.fire((ms) => m.acknowledged.push(ms), () => m.refused++);
      };
      timers.push(setTimeout(() => {
        tick();
        timers.push(setInterval(tick, interval));
      }, Math.random() * interval));
    }
    await new Promise((r) => setTimeout(r, load.warmup * 1000));
    const readMeters = () => Object.fromEntries(Object.entries(meters).map(([name, read]) => [name, read()]));
    const cpu0 = readMeters();
    measuring = true;
    await new Promise((r) => setTimeout(r, load.seconds * 1000));
    for (const t of timers) clearTimeout(t);
    // The last commands' answers (bounded): a command not answered by then is unanswered.
    const settle = performance.now();
    while (m.acknowledged.length + m.refused < m.sent && performance.now() - settle < 5000) await new Promise((r) => setTimeout(r, 20));
    m.cpuS = Object.fromEntries(Object.entries(readMeters()).map(([name, s]) => [name, s - cpu0[name]!]));
    return m;
  } finally {
    for (const t of timers) clearTimeout(t);
    for (const b of bots) b.close();
  }
}

async function stopChild(child: Child): Promise<void> {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) return;
  const exited = new Promise((r) => child.proc.once('exit', r));
  child.proc.kill('SIGTERM');
  await exited;
}

/** CPU µs per acknowledged command, every server process together. */
function perCommandUs(m: Measured): number {
  return (Object.values(m.cpuS).reduce((a, s) => a + s, 0) * 1e6) / m.acknowledged.length;
}

function report(ctx: BenchContext, setup: string, load: Workload, m: Measured): void {
  const acked = m.acknowledged.length;
  ctx.report({
    bench: `cluster_${setup}`, clients: load.clients, rate_per_client: load.rate, seconds: load.seconds,
    commands: m.sent, acknowledged: acked, refused: m.refused, unanswered: m.sent - acked - m.refused,
    p50_ms: percentile(m.acknowledged, 50), p95_ms: percentile(m.acknowledged, 95), p99_ms: percentile(m.acknowledged, 99),
    // Each server process's CPU per acknowledged command, and all of them together.
    ...Object.fromEntries(Object.entries(m.cpuS).map(([name, s]) => [`${name}_cpu_us_per_command`, (s * 1e6) / acked])),
    total_cpu_us_per_command: perCommandUs(m),
    load_avg: Number(loadavg()[0]!.toFixed(2)),
  });
}

export default async function cluster(ctx: BenchContext): Promise<void> {
  const env = process.env;
  const load: Workload = {
    clients: Number(env.CLUSTER_CLIENTS ?? (ctx.quick ? 30 : 100)),
    rate: Number(env.CLUSTER_RATE ?? 2),
    seconds: Number(env.CLUSTER_SECONDS ?? (ctx.quick ? 5 : 15)),
    warmup: Number(env.CLUSTER_WARMUP ?? (ctx.quick ? 1 : 3)),
  };
  const pgBin = env.LIGHTMUD_TEST_POSTGRES === 'off' ? null : postgresBinDir();
  const skip = natsSkip() || (pgBin ? false : 'PostgreSQL is not installed (or LIGHTMUD_TEST_POSTGRES=off)');
  const dir = mkdtempSync(join(tmpdir(), 'lightmud-cluster-bench-'));
  const worldFile = join(dir, 'world.json');
  writeFileSync(worldFile, JSON.stringify(benchWorld(load.clients)));
  const children: Child[] = [];
  let pg: RunningPostgres | null = null;
  let nats: RunningNats | null = null;
  let shard: LightmudProcess | null = null;
  // Whatever happens, stop after this long.
  const deadline = setTimeout(() => {
    console.error('cluster bench: deadline reached, stopping');
    for (const c of children) c.proc.kill('SIGKILL');
    void shard?.kill9();
    process.exit(1);
  }, (3 * (load.seconds + load.warmup) + 150) * 1000);
  const p50 = (m: Measured) => percentile(m.acknowledged, 50);
  try {
    const sqlite = await serve(join(dir, 'single.db'), worldFile, 'full');
    children.push(sqlite);
    const single = await drive(`ws://127.0.0.1:${sqlite.httpPort}/ws`, load, { serve: () => cpuSeconds(sqlite.proc.pid!) });
    await stopChild(sqlite);
    report(ctx, 'single_sqlite', load, single);
    if (skip) {
      ctx.report({ bench: 'cluster', skipped: `${skip}: only single_sqlite measured` });
      return;
    }

    const server = (pg = await startPostgres(pgBin));
    const postmaster = pidFrom(join(server.dir, 'data', 'postmaster.pid'));
    const postgres = () => treeCpuSeconds(postmaster);
    const onPg = await serve(server.url, worldFile, 'full', ['--world-id', 'single', '--local-db', join(dir, 'single-local.db')]);
    children.push(onPg);
    const singlePg = await drive(`ws://127.0.0.1:${onPg.httpPort}/ws`, load, { serve: () => cpuSeconds(onPg.proc.pid!), postgres });
    await stopChild(onPg);
    report(ctx, 'single_postgres', load, singlePg);

    const bus = (nats = await startNats());
    const natsPid = pidFrom(join(bus.dir, 'nats.pid'));
    const theShard = (shard = await startShard({ bus: bus.url, db: server.url, world: 'clustered', worldFile }));
    const portal = await serveWith(['--remote', '--bus', bus.url, '--world-id', 'clustered', '--db', join(dir, 'portal.db')]);
    children.push(portal);
    const clustered = await drive(`ws://127.0.0.1:${portal.httpPort}/ws`, load, {
      shard: () => cpuSeconds(theShard.pid), portal: () => cpuSeconds(portal.proc.pid!), nats: () => cpuSeconds(natsPid), postgres,
    });
    report(ctx, 'cluster', load, clustered);
    ctx.report({
      bench: 'cluster_added_latency', p50_vs_postgres_ms: p50(clustered) - p50(singlePg), p50_vs_sqlite_ms: p50(clustered) - p50(single),
      p99_vs_postgres_ms: percentile(clustered.acknowledged, 99) - percentile(singlePg.acknowledged, 99),
      total_cpu_us_per_command_vs_postgres: perCommandUs(clustered) - perCommandUs(singlePg),
      goal_p50_ms: 1, load_avg: Number(loadavg()[0]!.toFixed(2)),
    });
  } finally {
    clearTimeout(deadline);
    for (const c of children) await stopChild(c);
    await shard?.stop();
    await nats?.stop();
    await pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
