/**
 * Load: `lightmud serve` in a child process on 127.0.0.1, N websocket and M telnet guests each
 * sending one command a second (at random phases) for a fixed time; latency is from sending a
 * command to receiving its acknowledgement (websocket: the result frame with the command's id, sent
 * once the command is committed; telnet: the echo of a unique `say`). Also the cost of committing
 * one command with synchronous=FULL and NORMAL, measured on the game host directly.
 *
 * Sizes: 500 clients (100 of them telnet) for 15 s; --quick: 100 clients for 5 s. Override with
 * LOAD_CLIENTS, LOAD_TELNET, LOAD_SECONDS, LOAD_RATE (commands per second per client), LOAD_SYNC (full|normal),
 * LOAD_WARMUP (seconds of the same load before the measured ones, default 3: reported apart as warmup_p99_ms),
 * LOAD_SERVER_ARGS (more flags for the server).
 * Diagnostics: LOAD_NODE_ARGS (node options for the server), LOAD_SERVER_STDERR=FILE, LOAD_TRACE=FILE
 * (every command's send time and latency), LOAD_LOCKSTEP=1 (a stress variant: every websocket bot starts
 * at the top of its command list, so all of them send the same kind of command in the same second: at
 * 2,000 clients, 1,600 go east in one second; by default each starts at a random place, as independent
 * players do).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { connect } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { GameHost } from '../server/host/game-host.js';
import { percentile, type BenchContext } from './report.js';

const BIN = fileURLToPath(new URL('../bin/lightmud.mjs', import.meta.url));
const TRADES = ['tanner', 'cooper', 'miller', 'weaver', 'potter', 'fletcher', 'chandler', 'mason'];

/** A ring of rooms, `perRoom` characters and four objects in each. */
export function benchWorld(characters: number, perRoom = 6): object {
  const roomCount = Math.max(2, Math.ceil(characters / perRoom));
  const rooms = [];
  const chars = [];
  const objects = [];
  for (let r = 0; r < roomCount; r++) {
    rooms.push({
      id: `room-${r}`, name: `Lane ${r}`, category: 'Town', description: `A narrow lane of workshops, number ${r}.`, backstory: 'Built for the load bench.',
      exits: [{ label: 'east', to: `room-${(r + 1) % roomCount}` }, { label: 'west', to: `room-${(r + roomCount - 1) % roomCount}` }],
    });
    for (let k = 0; k < perRoom; k++) {
      const trade = TRADES[k % TRADES.length]!;
      chars.push({ id: `c-${r}-${k}`, name: trade, persona: `I am a ${trade}. I work hard. I like my lane.`, description: `You see a busy ${trade}.`, room: `room-${r}` });
    }
    objects.push(
      { id: `stool-${r}`, name: 'stool', description: 'A three-legged stool.', in: `room-${r}` },
      { id: `apple-${r}`, name: 'apple', prefix: 'an', description: 'A red apple.', food: true, in: `room-${r}` },
      { id: `barrel-${r}`, name: 'barrel', description: 'A rain barrel.', gettable: false, container: true, in: `room-${r}` },
      { id: `mug-${r}`, name: 'mug', description: 'A tin mug.', drink: true, in: `barrel-${r}` },
    );
  }
  return { format: 'lightmud-world', version: 1, title: 'Load bench lanes', rooms, characters: chars, objects };
}

export interface Child {
  proc: ChildProcess;
  httpPort: number;
  telnetPort: number;
}

/** `lightmud serve` on a SQLite file or PostgreSQL (`extra`: `--world-id`, `--local-db`), as serveWith. */
export function serve(db: string, world: string, sync: string, extra: string[] = []): Promise<Child> {
  // LOAD_SERVER_ARGS: more flags for the server, e.g. "--snapshot-every 100000".
  const more = (process.env.LOAD_SERVER_ARGS ?? '').split(' ').filter(Boolean);
  return serveWith(['--db', db, '--world', world, '--sync', sync, ...extra, ...more]);
}

/** `lightmud serve ARGS` on 127.0.0.1, free ports, the per-address limits off; resolves once it listens. */
export function serveWith(serveArgs: string[]): Promise<Child> {
  const args = [BIN, 'serve', ...serveArgs, '--http-port', '0', '--telnet-port', '0', '--host', '127.0.0.1', '--max-connections', '0', '--max-per-ip', '0', '--frame-rate-per-ip', '0', '--max-characters-per-ip', '0', '--connect-rate-per-ip', '0'];
  // LOAD_NODE_ARGS: extra node options for the server, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = (process.env.LOAD_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const proc = spawn(process.execPath, [...nodeArgs, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += String(d)));
  // LOAD_SERVER_STDERR: a file that gets the server's standard error too (with LOAD_NODE_ARGS=--trace-gc, say).
  if (process.env.LOAD_SERVER_STDERR) proc.stderr!.pipe(createWriteStream(process.env.LOAD_SERVER_STDERR));
  return new Promise((resolve, reject) => {
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      if (!line.includes('"event":"listening"')) return;
      const entry = JSON.parse(line) as { httpPort: number; telnetPort: number };
      resolve({ proc, httpPort: entry.httpPort, telnetPort: entry.telnetPort });
    });
    proc.once('exit', (code) => reject(new Error(`lightmud serve exited (${code}): ${stderr}`)));
  });
}

/** Linux pressure stall information: the share of the last 60 s in which some runnable task waited for a CPU, or NaN. */
function cpuPressure(): number {
  try {
    const m = /some avg10=[\d.]+ avg60=([\d.]+)/.exec(readFileSync('/proc/pressure/cpu', 'utf8'));
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
}

/** CPU seconds used by a process so far (Linux), or NaN. */
export function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

export interface Bot {
  transport: 'websocket' | 'telnet';
  login(): Promise<void>;
  /** Send one command; `done` is called with the latency when it is acknowledged. */
  fire(done: (ms: number) => void, refused: () => void): void;
  close(): void;
}

export const WS_COMMANDS = ['look', 'get stool', 'drop stool', 'say good day', 'wave', 'inventory', 'examine barrel', 'go east', 'go west', 'get mug from barrel', 'put mug in barrel', 'smile'];

export function wsBot(url: string, character: string, start = 0): Bot {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  const pending = new Map<string, { t0: number; done: (ms: number) => void; refused: () => void }>();
  let n = start;
  let welcomed: (() => void) | null = null;
  ws.on('message', (data) => {
    const s = String(data);
    // Only our own acknowledgements and errors are parsed; events and states from others are counted, not read.
    if (s.startsWith('{"type":"observation","kind":"result"') || s.startsWith('{"type":"error"')) {
      const f = JSON.parse(s) as { id?: string; type: string };
      const p = f.id === undefined ? undefined : pending.get(f.id);
      if (!p) return;
      pending.delete(f.id!);
      if (f.type === 'error') p.refused();
      else p.done(performance.now() - p.t0);
    } else if (s.startsWith('{"type":"welcome"')) welcomed?.();
  });
  ws.on('error', () => {});
  const opened = new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('close', () => reject(new Error(`websocket ${character} closed`)));
  });
  opened.catch(() => {});
  return {
    transport: 'websocket',
    async login() {
      await opened;
      const welcome = new Promise<void>((resolve) => (welcomed = resolve));
      ws.send(JSON.stringify({ type: 'login', guest: true, character }));
      await welcome;
    },
    fire(done, refused) {
      const id = String(n++);
      pending.set(id, { t0: performance.now(), done, refused });
      ws.send(JSON.stringify({ type: 'command', text: WS_COMMANDS[n % WS_COMMANDS.length], id }));
    },
    close: () => ws.terminate(),
  };
}

function telnetBot(port: number, character: string): Bot {
  const socket = connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  let tail = '';
  const waiting: { marker: string; t0: number; done: (ms: number) => void }[] = [];
  let wantLogin: { marker: string; resolve: () => void } | null = null;
  let n = 0;
  socket.on('data', (chunk) => {
    tail = (tail + chunk.toString('latin1')).slice(-8192);
    if (wantLogin && tail.includes(wantLogin.marker)) {
      const w = wantLogin;
      wantLogin = null;
      tail = '';
      w.resolve();
    }
    while (waiting.length && tail.includes(waiting[0]!.marker)) {
      const w = waiting.shift()!;
      tail = tail.slice(tail.indexOf(w.marker) + w.marker.length);
      w.done(performance.now() - w.t0);
    }
  });
  socket.on('error', () => {});
  const expect = (marker: string) =>
    new Promise<void>((resolve) => {
      if (tail.includes(marker)) {
        tail = '';
        return resolve();
      }
      wantLogin = { marker, resolve };
    });
  return {
    transport: 'telnet',
    async login() {
      await expect('> ');
      socket.write('guest\r\n');
      await expect('Choose a character');
      socket.write(`${character}\r\n`);
      await expect('You are now');
    },
    fire(done) {
      const marker = `k${n++}x${character}`;
      waiting.push({ marker: `You say, "${marker}"`, t0: performance.now(), done });
      socket.write(`say ${marker}\r\n`);
    },
    close: () => socket.destroy(),
  };
}

/**
 * The disk's own fsync latency while the load runs: a 4 KB write and fsync every 20 ms on a file of its own,
 * off this process's event loop (the thread pool). With --sync full every acknowledgement waits for an fsync,
 * so a stall of the disk's is a stall of every command committed in it.
 */
function diskProbe(file: string): { stop(): Promise<{ p50_ms: number; max_ms: number; over_50ms: number }> } {
  const lat: number[] = [];
  let running = true;
  const done = (async () => {
    const fh = await open(file, 'w');
    const buf = Buffer.alloc(4096, 1);
    try {
      while (running) {
        await fh.write(buf);
        const t0 = performance.now();
        await fh.sync();
        lat.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      await fh.close();
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      return { p50_ms: percentile(lat, 50), max_ms: Math.max(0, ...lat), over_50ms: lat.filter((x) => x > 50).length };
    },
  };
}

/** Cost of one committed command on the game host, without the network. */
function commitCost(ctx: BenchContext, world: string, dir: string): void {
  for (const sync of ['full', 'normal'] as const) {
    const host = GameHost.open({ db: join(dir, `commit-${sync}.db`), world, sync, fresh: true });
    const n = ctx.quick ? 500 : 3000;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) host.submit('c-0-0', i % 2 ? 'drop stool' : 'get stool');
    const ms = performance.now() - t0;
    host.close();
    ctx.report({ bench: `commit_${sync}`, commands: n, per_command_us: (ms * 1000) / n, commands_per_s: n / (ms / 1000) });
  }
}

export default async function load(ctx: BenchContext): Promise<void> {
  const env = process.env;
  const clients = Number(env.LOAD_CLIENTS ?? (ctx.quick ? 100 : 500));
  const telnet = Math.min(clients, Number(env.LOAD_TELNET ?? Math.round(clients / 5)));
  const seconds = Number(env.LOAD_SECONDS ?? (ctx.quick ? 5 : 15));
  const rate = Number(env.LOAD_RATE ?? 1);
  const sync = env.LOAD_SYNC === 'normal' ? 'normal' : 'full';
  const dir = mkdtempSync(join(tmpdir(), 'lightmud-load-'));
  const worldFile = join(dir, 'world.json');
  writeFileSync(worldFile, JSON.stringify(benchWorld(clients)));
  let child: Child | null = null;
  const bots: Bot[] = [];
  // Whatever happens, stop after this long.
  const deadline = setTimeout(() => {
    console.error('load bench: deadline reached, stopping');
    child?.proc.kill('SIGKILL');
    process.exit(1);
  }, (seconds + 90) * 1000);
  try {
    commitCost(ctx, worldFile, dir);
    child = await serve(join(dir, 'load.db'), worldFile, sync);
    const url = `ws://127.0.0.1:${child.httpPort}/ws`;
    const perRoom = 6;
    const characterIds = Array.from({ length: clients }, (_, i) => `c-${Math.floor(i / perRoom)}-${i % perRoom}`);
    // Telnet bots are spread among the websocket ones (every k-th client), so rooms mix transports.
    const every = telnet ? Math.floor(clients / telnet) : Infinity;
    let t = 0;
    for (let i = 0; i < clients; i++) {
      const useTelnet = t < telnet && i % every === 0;
      if (useTelnet) t++;
      // Each websocket bot starts at a random place in the command list, so the kinds of command mix within
      // each second, as with independent players. LOAD_LOCKSTEP=1: they all start at the top and send the
      // same kind in the same second (all 1,600 go east in one second at 2,000 clients).
      const start = env.LOAD_LOCKSTEP === '1' ? 0 : Math.floor(Math.random() * WS_COMMANDS.length);
      bots.push(useTelnet ? telnetBot(child.telnetPort, characterIds[i]!) : wsBot(url, characterIds[i]!, start));
    }
    const loginStart = performance.now();
    for (let i = 0; i < bots.length; i += 50) await Promise.all(bots.slice(i, i + 50).map((b) => b.login()));
    const loginMs = performance.now() - loginStart;

    const latencies: Record<'websocket' | 'telnet', number[]> = { websocket: [], telnet: [] };
    let sent = 0;
    let refused = 0;
    const statsUrl = `http://127.0.0.1:${child.httpPort}/api/stats`;
    // LOAD_WARMUP seconds of the same load first (default 3, --quick 1), not measured: the 2,000 logins' garbage, cold
    // code paths and caches. What it saw is reported apart (warmup_p99_ms), the rest is measured from a fresh start.
    const warmupS = Number(env.LOAD_WARMUP ?? (ctx.quick ? 1 : 3));
    const warmup: number[] = [];
    let measuring = false;
    const timers: NodeJS.Timeout[] = [];
    // LOAD_TRACE: a file with one line per acknowledged command: when it was sent (ms since the epoch), its latency (ms), w|t.
    const trace: string[] | null = env.LOAD_TRACE ? [] : null;
    const interval = 1000 / rate;
    for (const bot of bots) {
      const tick = () => {
        if (!measuring) return bot.fire((ms) => warmup.push(ms), () => {});
        sent++;
        const sentAt = Date.now();
        bot.fire((ms) => {
          latencies[bot.transport].push(ms);
          trace?.push(`${sentAt} ${ms.toFixed(1)} ${bot.transport[0]}`);
        }, () => refused++);
      };
      timers.push(setTimeout(() => {
        tick();
        timers.push(setInterval(tick, interval));
      }, Math.random() * interval));
    }
    await new Promise((r) => setTimeout(r, warmupS * 1000));
    // Answers to the warm-up's last commands may still come: they go to `warmup`, as they were sent then.
    await fetch(`${statsUrl}?reset`);
    const cpu0 = cpuSeconds(child.proc.pid!);
    const clientCpu0 = process.cpuUsage();
    // The clients' own event-loop delay: a late loop here delays the acknowledgements it measures.
    const clientLoop = monitorEventLoopDelay({ resolution: 10 });
    clientLoop.enable();
    const disk = diskProbe(join(dir, 'fsync-probe'));
    const t0 = performance.now();
    measuring = true;
    await new Promise((r) => setTimeout(r, seconds * 1000));
    for (const x of timers) clearTimeout(x);
    // Let the last commands be acknowledged (bounded).
    const wallMs = performance.now() - t0;
    const settle = performance.now();
    while (latencies.websocket.length + latencies.telnet.length + refused < sent && performance.now() - settle < 5000) await new Promise((r) => setTimeout(r, 50));
    const cpu = cpuSeconds(child.proc.pid!) - cpu0;
    const fsync = await disk.stop();
    const clientCpu = process.cpuUsage(clientCpu0);
    const after = (await (await fetch(statsUrl)).json()) as { commands: { count: number; p50_ms: number; p99_ms: number }; eventLoop: { p99_ms: number; max_ms: number } };
    const all = [...latencies.websocket, ...latencies.telnet];
    clientLoop.disable();
    if (trace) writeFileSync(env.LOAD_TRACE!, `${trace.join('\n')}\n`);
    ctx.report({
      bench: `load_${clients}`, clients, websocket: clients - telnet, telnet, rate_per_client: rate, seconds, sync, commands_mixed: env.LOAD_LOCKSTEP !== '1',
      commands: sent, acknowledged: all.length, refused, unanswered: sent - all.length - refused,
      p50_ms: percentile(all, 50), p99_ms: percentile(all, 99), max_ms: Math.max(...all),
      ws_p99_ms: percentile(latencies.websocket, 99), telnet_p99_ms: percentile(latencies.telnet, 99),
      throughput: all.length / (wallMs / 1000), server_cpu_pct: (cpu / (wallMs / 1000)) * 100, login_s: loginMs / 1000,
      // Measured inside the server (receipt to acknowledgement) over the same commands; and its event-loop delay.
      server_p50_ms: after.commands.p50_ms, server_p99_ms: after.commands.p99_ms, server_loop_p99_ms: after.eventLoop.p99_ms,
      // The clients' own CPU (this process), and the 1-minute load average of the machine (other work on it shows here).
      client_cpu_pct: ((clientCpu.user + clientCpu.system) / 1e6 / (wallMs / 1000)) * 100,
      client_loop_p99_ms: clientLoop.percentile(99) / 1e6, client_loop_max_ms: clientLoop.max / 1e6,
      load_avg: Number(loadavg()[0]!.toFixed(2)), cpu_pressure_pct: cpuPressure(),
      // The disk's fsync latency meanwhile (diskProbe): its stalls are the commands' with --sync full.
      disk_fsync_p50_ms: fsync.p50_ms, disk_fsync_max_ms: fsync.max_ms, disk_fsync_over_50ms: fsync.over_50ms,
      warmup_s: warmupS, warmup_commands: warmup.length, ...(warmup.length ? { warmup_p99_ms: percentile(warmup, 99) } : {}),
    });
  } finally {
    clearTimeout(deadline);
    for (const b of bots) b.close();
    if (child) {
      const exited = new Promise((r) => child!.proc.once('exit', r));
      child.proc.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
}
