/**
 * Crowd load: `lightmud serve` in a child process with a crowd task over a generated world of 100
 * rooms; 200 workers join at once over /crowd/ws and play 100 episodes of 6 turns, each worker
 * "typing" for a random 0.5-2 s before each of its turns. Figures: how long from joining to being
 * paired; a turn from sending it to the next turn frame (the line and its action executed, committed
 * and stored); episodes completed; workers never paired (a stalled queue); the server's CPU.
 *
 * Sizes: 200 workers; --quick: 40. Override with CROWD_WORKERS, CROWD_TURNS, CROWD_SYNC (full, the default, or normal).
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { cpuSeconds } from './load.bench.js';
import { percentile, type BenchContext } from './report.js';

const BIN = fileURLToPath(new URL('../bin/lightmud.mjs', import.meta.url));

function crowdWorld(rooms: number): object {
  const r = [];
  const chars = [];
  const objects = [];
  for (let i = 0; i < rooms; i++) {
    r.push({ id: `room-${i}`, name: `Yard ${i}`, category: 'Town', description: `A quiet yard, number ${i}.`, backstory: 'Built for the crowd bench.', exits: [{ label: 'east', to: `room-${(i + 1) % rooms}` }] });
    for (const [k, trade] of ['baker', 'smith'].entries()) {
      chars.push({ id: `p-${i}-${k}`, name: `${trade} ${i}`, persona: `I am a ${trade}. I work from dawn. I like quiet yards.`, description: `You see a ${trade}.`, room: `room-${i}` });
    }
    objects.push({ id: `apple-${i}`, name: 'apple', prefix: 'an', description: 'A red apple.', food: true, in: `room-${i}` });
  }
  return { format: 'lightmud-world', version: 1, title: 'Crowd bench yards', rooms: r, characters: chars, objects };
}

function serve(db: string, world: string): Promise<{ proc: ChildProcess; port: number }> {
  const proc = spawn(process.execPath, [BIN, 'serve', '--db', db, '--world', world, '--http-port', '0', '--telnet-port', 'off', '--host', '127.0.0.1', '--max-connections', '0', '--max-per-ip', '0', '--connect-rate-per-ip', '0', '--sync', process.env.CROWD_SYNC ?? 'full'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += String(d)));
  return new Promise((resolve, reject) => {
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      if (line.includes('"event":"listening"')) resolve({ proc, port: (JSON.parse(line) as { httpPort: number }).httpPort });
    });
    proc.once('exit', (code) => reject(new Error(`lightmud serve exited (${code}): ${stderr}`)));
  });
}

export interface WorkerResult {
  pairedMs: number | null;
  turnMs: number[];
  completed: boolean;
  refused: number;
}

/**
 * One crowd worker over /crowd/ws: joins `task`, "types" sleepMs() before each of its turns (a line, and a hug,
 * a smile or nothing), fills in the end form; gives up after giveUpMs (default 120 s + 10 s a turn).
 */
export function crowdWorker(port: number, task: string, id: string, turns: number, sleepMs: () => number, giveUpMs = 120_000 + turns * 10_000): Promise<WorkerResult> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/crowd/ws`, { perMessageDeflate: false });
    const t0 = performance.now();
    const res: WorkerResult = { pairedMs: null, turnMs: [], completed: false, refused: 0 };
    let sentAt = 0;
    let n = 0;
    let actions: string[] = [];
    const finish = () => {
      ws.terminate();
      resolve(res);
    };
    const giveUp = setTimeout(finish, giveUpMs);
    ws.on('open', () => ws.send(JSON.stringify({ type: 'join', task, worker: id })));
    ws.on('message', (d) => {
      const f = JSON.parse(String(d)) as { type: string; yours?: boolean; validActions?: string[] };
      if (f.type === 'paired') res.pairedMs = performance.now() - t0;
      else if (f.type === 'state' && f.validActions) actions = f.validActions;
      else if (f.type === 'refused') res.refused++;
      else if (f.type === 'turn') {
        if (sentAt) {
          res.turnMs.push(performance.now() - sentAt);
          sentAt = 0;
        }
        if (f.yours) {
          setTimeout(() => {
            const act = n % 3 === 0 ? actions.find((a) => a.startsWith('hug')) : n % 3 === 1 ? 'smile' : undefined;
            sentAt = performance.now();
            ws.send(JSON.stringify({ type: 'turn', say: `Line ${n++} from ${id}, how are things with you today?`, ...(act ? { act } : {}) }));
          }, sleepMs());
        }
      } else if (f.type === 'end') {
        if (sentAt) res.turnMs.push(performance.now() - sentAt);
        res.completed = true;
        ws.send(JSON.stringify({ type: 'form', rating: 4 }));
      } else if (f.type === 'done' || f.type === 'closed') {
        clearTimeout(giveUp);
        finish();
      }
    });
    ws.on('error', () => {});
  });
}

export default async function crowdBench(ctx: BenchContext): Promise<void> {
  const workers = Number(process.env.CROWD_WORKERS ?? (ctx.quick ? 40 : 200));
  const turns = Number(process.env.CROWD_TURNS ?? 6);
  const rooms = Math.ceil(workers / 2);
  const dir = mkdtempSync(join(tmpdir(), 'lightmud-crowd-bench-'));
  try {
    const world = join(dir, 'world.json');
    writeFileSync(world, JSON.stringify(crowdWorld(rooms)));
    const personas = Array.from({ length: rooms }, (_, i) => [`p-${i}-0`, `p-${i}-1`]).flat();
    writeFileSync(join(dir, 'task.json'), JSON.stringify({
      id: 'bench', world: 'world.json', locations: Array.from({ length: rooms }, (_, i) => `room-${i}`), personas, turns, turnSeconds: 60, warningSeconds: 10,
      reward: 'none', maxConcurrentPairs: rooms, maxUnitsPerWorker: 1, modelFallbackSeconds: null, partnerDrop: 'end_and_credit',
    }));
    const db = join(dir, 'bench.db');
    execFileSync(process.execPath, [BIN, 'crowd', 'create', join(dir, 'task.json'), '--db', db], { stdio: 'ignore' });
    const server = await serve(db, world);
    try {
      const cpu0 = cpuSeconds(server.proc.pid!);
      const t0 = performance.now();
      const results = await Promise.all(Array.from({ length: workers }, (_, i) => crowdWorker(server.port, 'bench', `bench-worker-${i}`, turns, () => 500 + Math.random() * 1500)));
      const seconds = (performance.now() - t0) / 1000;
      const cpu = cpuSeconds(server.proc.pid!) - cpu0;
      const paired = results.filter((r) => r.pairedMs !== null).map((r) => r.pairedMs!);
      const turnMs = results.flatMap((r) => r.turnMs);
      ctx.report({
        bench: 'crowd_workers', sync: process.env.CROWD_SYNC ?? 'full', workers, turns_per_episode: turns, seconds,
        paired: paired.length, never_paired: workers - paired.length, completed: results.filter((r) => r.completed).length,
        pair_p50_ms: percentile(paired, 50), pair_p95_ms: percentile(paired, 95), pair_max_ms: percentile(paired, 100),
        turn_p50_ms: percentile(turnMs, 50), turn_p95_ms: percentile(turnMs, 95), turn_p99_ms: percentile(turnMs, 99), turns: turnMs.length,
        refused: results.reduce((a, r) => a + r.refused, 0), server_cpu_share: cpu / seconds,
      });
    } finally {
      server.proc.kill('SIGTERM');
      await new Promise((r) => server.proc.once('exit', r));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
