/**
 * cluster: a single process vs a cluster (issue 15), the same world and workload on this machine.
 *
 * Three setups, all started first and kept up (idle while another is measured), each measured with N websocket
 * clients (load.bench.ts's bots: guests on the load bench's lanes, each sending its ordinary commands: look, get,
 * drop, say, go, ...) logged in, I seconds silent (the processes' idle CPU), W seconds at R commands a second each
 * (random phases) not measured, then S seconds measured; the whole repeated in rounds of alternating order
 * (A B C, C B A, ...) so that a drift in the machine's load weighs on all three alike:
 *   - `single_sqlite`: `lightmud serve` on a SQLite file, as `npm start`;
 *   - `single_postgres`: `lightmud serve --db postgres://...` (the world in PostgreSQL);
 *   - `cluster`: `lightmud shard` on PostgreSQL and one `lightmud serve --remote` portal, over a nats-server.
 * PostgreSQL and nats-server are started here on 127.0.0.1 (test/server's helpers, as `nobody` under root).
 *
 * Figures per setup, its rounds together: latency from sending a command to its acknowledgement (the result frame
 * with its id, sent after the commit) p50/p95/p99; refused (an error frame) and unanswered counts; CPU per
 * acknowledged command in µs: `serve_`, `shard_`, `portal_`, `nats_` and `postgres_cpu_us_per_command` (PostgreSQL's
 * postmaster and backends; on SQLite that work is inside the serve process), `total_cpu_us_per_command` (all of them
 * together), and `net_total_cpu_us_per_command` (less the idle rate). Then the added routing latency: cluster p50
 * minus single_postgres p50 (the fair comparison: both commit to PostgreSQL; also each round's) and minus
 * single_sqlite p50; the goal is at most 1 ms. No throughput scaling is claimed: two cores cannot show it.
 *
 * Sizes: CLUSTER_CLIENTS (default 100; --quick 30), CLUSTER_RATE (commands per second per client, default 2),
 * CLUSTER_SECONDS (measured, default 8; --quick 3), CLUSTER_WARMUP (default 2; --quick 1), CLUSTER_IDLE (default 2;
 * --quick 1), CLUSTER_ROUNDS (default 2). Skipped (a line saying why) without nats-server or PostgreSQL, or with
 * LIGHTMUD_TEST_NATS=off / LIGHTMUD_TEST_POSTGRES=off; then only single_sqlite is measured.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startShard, type LightmudProcess } from '../test/cluster/processes.js';
import { natsSkip, startNats, type RunningNats } from '../test/server/nats.js';
import { postgresBinDir, startPostgres, type RunningPostgres } from '../test/server/stores.js';
import { benchWorld, cpuSeconds, serve, serveWith, WS_COMMANDS, wsBot, type Bot, type Child } from './load.bench.js';
import { percentile, type BenchContext } from './report.js';

/** A closed connection's character is free at once (not kept 5 minutes for a resume): the next round logs in to it again. */
const FREE_ON_CLOSE = ['--linkdead', '0'];

interface Workload {
  clients: number;
  rate: number;
  seconds: number;
  warmup: number;
  /** Seconds with the bots logged in and silent, before the warm-up: the processes' idle CPU. */
  idle: number;
  /** Each setup is measured this many times, in alternating order. */
  rounds: number;
}

/** Each server process's CPU seconds so far, by a name for it (serve; shard, portal, nats; postgres). */
type CpuMeters = Record<string, () => number>;

interface Measured {
  sent: number;
  acknowledged: number[];
  refused: number;
  /** CPU seconds over the measured window, by process name as in the meters. */
  cpuS: Record<string, number>;
  /** CPU seconds of all the processes over `idleS` seconds with every bot logged in and none sending. */
  idleCpuS: number;
  idleS: number;
  /** The measured window's length in seconds (its last answers awaited included). */
  windowS: number;
  /** The machine's 1-minute load average at the end (each round's, in order, once merged). */
  loadAvg: string;
}

/** CPU seconds of a process and of its children (PostgreSQL's postmaster and its backends), or NaN. */
export function treeCpuSeconds(pid: number): number {
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
export function pidFrom(file: string): number {
  return Number(readFileSync(file, 'utf8').split('\n')[0]!.trim());
}

/** N websocket bots on `wsUrl`, each at `rate` commands a second; warm-up, then the measured window. */
async function drive(wsUrl: string, load: Workload, meters: CpuMeters): Promise<Measured> {
  const perRoom = 6;
  const bots: Bot[] = Array.from({ length: load.clients }, (_, i) => wsBot(wsUrl, `c-${Math.floor(i / perRoom)}-${i % perRoom}`, i % WS_COMMANDS.length));
  const timers: NodeJS.Timeout[] = [];
  try {
    for (let i = 0; i < bots.length; i += 50) await Promise.all(bots.slice(i, i + 50).map((b) => b.login()));
    const m: Measured = { sent: 0, acknowledged: [], refused: 0, cpuS: {}, idleCpuS: 0, idleS: 0, windowS: 0, loadAvg: '' };
    const readMeters = () => Object.fromEntries(Object.entries(meters).map(([name, read]) => [name, read()]));
    const sum = (cpu: Record<string, number>) => Object.values(cpu).reduce((a, x) => a + x, 0);
    // Idle first: every bot logged in, none sending; what the processes spend on nothing.
    const idle0 = sum(readMeters());
    const idleStart = performance.now();
    await new Promise((r) => setTimeout(r, load.idle * 1000));
    m.idleCpuS = sum(readMeters()) - idle0;
    m.idleS = (performance.now() - idleStart) / 1000;
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
    const cpu0 = readMeters();
    const windowStart = performance.now();
    measuring = true;
    await new Promise((r) => setTimeout(r, load.seconds * 1000));
    for (const t of timers) clearTimeout(t);
    // The last commands' answers (bounded): a command not answered by then is unanswered.
    const settle = performance.now();
    while (m.acknowledged.length + m.refused < m.sent && performance.now() - settle < 5000) await new Promise((r) => setTimeout(r, 20));
    m.windowS = (performance.now() - windowStart) / 1000;
    m.loadAvg = loadavg()[0]!.toFixed(2);
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

/** The same less what the processes spend idle (their idle rate over the measured window). */
function netPerCommandUs(m: Measured): number {
  return perCommandUs(m) - ((m.idleCpuS / m.idleS) * m.windowS * 1e6) / m.acknowledged.length;
}

/** One setup's rounds as one measurement: the samples, counts and CPU seconds together. */
function merged(rounds: Measured[]): Measured {
  const cpuS: Record<string, number> = {};
  for (const r of rounds) for (const [name, s] of Object.entries(r.cpuS)) cpuS[name] = (cpuS[name] ?? 0) + s;
  return {
    sent: rounds.reduce((a, r) => a + r.sent, 0), acknowledged: rounds.flatMap((r) => r.acknowledged),
    refused: rounds.reduce((a, r) => a + r.refused, 0), cpuS,
    idleCpuS: rounds.reduce((a, r) => a + r.idleCpuS, 0), idleS: rounds.reduce((a, r) => a + r.idleS, 0), windowS: rounds.reduce((a, r) => a + r.windowS, 0), loadAvg: rounds.map((r) => r.loadAvg).join(' '),
  };
}

function report(ctx: BenchContext, setup: string, load: Workload, m: Measured): void {
  const acked = m.acknowledged.length;
  ctx.report({
    bench: `cluster_${setup}`, clients: load.clients, rate_per_client: load.rate, seconds: load.seconds, rounds: load.rounds,
    commands: m.sent, acknowledged: acked, refused: m.refused, unanswered: m.sent - acked - m.refused,
    p50_ms: percentile(m.acknowledged, 50), p95_ms: percentile(m.acknowledged, 95), p99_ms: percentile(m.acknowledged, 99),
    // Each server process's CPU per acknowledged command, and all of them together.
    ...Object.fromEntries(Object.entries(m.cpuS).map(([name, s]) => [`${name}_cpu_us_per_command`, (s * 1e6) / acked])),
    total_cpu_us_per_command: perCommandUs(m),
    // Idle: all the processes' CPU with the bots logged in and silent; net: the total less that idle rate over the window.
    idle_cpu_pct: (m.idleCpuS / m.idleS) * 100, net_total_cpu_us_per_command: netPerCommandUs(m),
    load_avg: m.loadAvg,
  });
}

interface Setup {
  name: 'single_sqlite' | 'single_postgres' | 'cluster';
  wsUrl: string;
  meters: CpuMeters;
}

export default async function cluster(ctx: BenchContext): Promise<void> {
  const env = process.env;
  const load: Workload = {
    clients: Number(env.CLUSTER_CLIENTS ?? (ctx.quick ? 30 : 100)),
    rate: Number(env.CLUSTER_RATE ?? 2),
    seconds: Number(env.CLUSTER_SECONDS ?? (ctx.quick ? 3 : 8)),
    warmup: Number(env.CLUSTER_WARMUP ?? (ctx.quick ? 1 : 2)),
    idle: Number(env.CLUSTER_IDLE ?? (ctx.quick ? 1 : 2)),
    rounds: Number(env.CLUSTER_ROUNDS ?? 2),
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
    // Their signals are sent (and PostgreSQL stopped) before these return their promises.
    void nats?.kill();
    void pg?.stop();
    process.exit(1);
  }, (3 * load.rounds * (load.seconds + load.warmup + load.idle + 10) + 120) * 1000);
  try {
    // Every setup is started first and stays up (idle while another is measured).
    const sqlite = await serve(join(dir, 'single.db'), worldFile, 'full', FREE_ON_CLOSE);
    children.push(sqlite);
    const setups: Setup[] = [{ name: 'single_sqlite', wsUrl: `ws://127.0.0.1:${sqlite.httpPort}/ws`, meters: { serve: () => cpuSeconds(sqlite.proc.pid!) } }];
    if (!skip) {
      const server = (pg = await startPostgres(pgBin));
      const postmaster = pidFrom(join(server.dir, 'data', 'postmaster.pid'));
      const postgres = () => treeCpuSeconds(postmaster);
      const onPg = await serve(server.url, worldFile, 'full', ['--world-id', 'single', '--local-db', join(dir, 'single-local.db'), ...FREE_ON_CLOSE]);
      children.push(onPg);
      setups.push({ name: 'single_postgres', wsUrl: `ws://127.0.0.1:${onPg.httpPort}/ws`, meters: { serve: () => cpuSeconds(onPg.proc.pid!), postgres } });
      const bus = (nats = await startNats());
      const natsPid = pidFrom(join(bus.dir, 'nats.pid'));
      const theShard = (shard = await startShard({ bus: bus.url, db: server.url, world: 'clustered', worldFile }));
      const portal = await serveWith(['--remote', '--bus', bus.url, '--world-id', 'clustered', '--db', join(dir, 'portal.db'), ...FREE_ON_CLOSE]);
      children.push(portal);
      setups.push({
        name: 'cluster', wsUrl: `ws://127.0.0.1:${portal.httpPort}/ws`,
        meters: { shard: () => cpuSeconds(theShard.pid), portal: () => cpuSeconds(portal.proc.pid!), nats: () => cpuSeconds(natsPid), postgres },
      });
    }
    // Rounds in alternating order (A B C, C B A, ...), so that a drift in the machine's load weighs on all alike.
    const byRound = new Map<Setup['name'], Measured[]>(setups.map((x) => [x.name, []]));
    for (let round = 0; round < load.rounds; round++) {
      for (const setup of round % 2 ? [...setups].reverse() : setups) {
        byRound.get(setup.name)!.push(await drive(setup.wsUrl, load, setup.meters));
        // The bots' sessions end before the same characters are logged in again.
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    const results = new Map([...byRound].map(([name, rounds]) => [name, merged(rounds)]));
    for (const [name, m] of results) report(ctx, name, load, m);
    if (skip) {
      ctx.report({ bench: 'cluster', skipped: `${skip}: only single_sqlite measured` });
      return;
    }
    const p50 = (m: Measured) => percentile(m.acknowledged, 50);
    const [single, singlePg, clustered] = [results.get('single_sqlite')!, results.get('single_postgres')!, results.get('cluster')!];
    ctx.report({
      bench: 'cluster_added_latency', p50_vs_postgres_ms: p50(clustered) - p50(singlePg), p50_vs_sqlite_ms: p50(clustered) - p50(single),
      // The same difference in each round (the spread between rounds).
      p50_vs_postgres_by_round_ms: byRound.get('cluster')!.map((m, i) => (p50(m) - p50(byRound.get('single_postgres')![i]!)).toFixed(2)).join(' '),
      p99_vs_postgres_ms: percentile(clustered.acknowledged, 99) - percentile(singlePg.acknowledged, 99),
      total_cpu_us_per_command_vs_postgres: perCommandUs(clustered) - perCommandUs(singlePg),
      net_total_cpu_us_per_command_vs_postgres: netPerCommandUs(clustered) - netPerCommandUs(singlePg),
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
