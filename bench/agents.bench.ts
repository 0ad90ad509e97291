/**
 * Model-driven characters under load, and model-vs-model episodes.
 *
 * agents_reply: `lightmud serve` in a child process on 127.0.0.1 with a world of N model
 * characters (the bundled world's 136, every one set to `model`, plus more placed beside them)
 * and P player characters; P websocket players, each in a room with model characters, speak
 * lines addressed to one of them by name (questions, requests, greetings). Latency is from sending
 * the line to receiving that character's spoken reply (the `say` event) over the websocket. The
 * players' own command acknowledgements are timed too (humans must not be slowed by the models).
 * Model characters also take turns of their own (mean every AGENTS_IDLE seconds, default 30).
 *
 * episodes: `runEpisodes` in process: ten-turn episodes per second with the bundled model.
 *
 * Model: models/default, or LIGHTMUD_BENCH_MODEL / LIGHTMUD_MODEL; skipped when there is none.
 * Sizes: 1,000 model characters and 50 players (AGENTS_CHARACTERS, AGENTS_PLAYERS), 30 s of talk and
 * 64 episodes; --quick: 8 s and 16. AGENTS_SECONDS overrides; AGENTS_BASELINE=0 skips the idle run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { World } from '../server/engine/index.js';
import { DEFAULT_WORLD, loadWorld } from '../server/world-io/load-world.js';
import { loadPolicy, DEFAULT_MODEL_DIR } from '../server/agents/load.js';
import { runEpisodes } from '../server/agents/episodes.js';
import { percentile, type BenchContext } from './report.js';

const BIN = fileURLToPath(new URL('../bin/lightmud.mjs', import.meta.url));
const CACHE = resolve(fileURLToPath(new URL('../.cache/agents', import.meta.url)));

interface Spec {
  id: string;
  name: string;
  room: string;
  policy?: string;
  [k: string]: unknown;
}

const KIN = ['young', 'old', 'tall', 'stout', 'thin', 'red-haired', 'grey-haired', 'freckled', 'one-eyed', 'bearded'];

/** The bundled world with every character model-driven, `models - 136` more model characters and `players` player characters. */
export function benchWorld(models: number, players: number, policy = 'model'): { world: object; rooms: string[] } {
  const files = readdirSync(DEFAULT_WORLD).filter((f) => f.endsWith('.json')).sort((a, b) => (a === 'world.json' ? -1 : b === 'world.json' ? 1 : a.localeCompare(b)));
  const merged: { format: string; version: number; title: string; start?: string; rooms: { id: string }[]; characters: Spec[]; objects: unknown[] } = {
    format: 'lightmud-world', version: 1, title: 'Agents bench', rooms: [], characters: [], objects: [],
  };
  for (const f of files) {
    const d = JSON.parse(readFileSync(join(DEFAULT_WORLD, f), 'utf8')) as Record<string, unknown>;
    if (typeof d.start === 'string') merged.start = d.start;
    merged.rooms.push(...((d.rooms as { id: string }[]) ?? []));
    merged.characters.push(...((d.characters as Spec[]) ?? []));
    merged.objects.push(...((d.objects as unknown[]) ?? []));
  }
  const base = merged.characters.map((c) => ({ ...c, policy }));
  const extra: Spec[] = [];
  for (let i = 0; base.length + extra.length < models; i++) {
    const c = base[i % base.length]!;
    // Each generation of kin has its own word, so that every name in a room is unique and a player
    // who addresses one of them by name is answered by that one.
    const gen = Math.floor(i / base.length);
    extra.push({ ...c, id: `${c.id}-kin${gen + 1}`, name: `${KIN[gen % KIN.length]}${gen >= KIN.length ? ` ${Math.floor(gen / KIN.length) + 1}` : ''} ${c.name}`, prefix: 'the', policy });
  }
  // Players go to the rooms with the most model characters.
  const count = new Map<string, number>();
  for (const c of [...base, ...extra]) count.set(c.room, (count.get(c.room) ?? 0) + 1);
  const rooms = [...count.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([r]) => r);
  const visitors: Spec[] = [];
  for (let i = 0; i < players; i++) {
    visitors.push({ id: `visitor-${i}`, name: `visitor ${i}`, prefix: 'the', persona: 'I am a traveller passing through the vale.', description: 'You see a dusty traveller.', room: rooms[i % rooms.length]!, policy: 'human' });
  }
  merged.characters = [...base, ...extra, ...visitors];
  return { world: merged, rooms };
}

function serve(db: string, world: string, model: string, idle: string): Promise<{ proc: ChildProcess; port: number }> {
  const args = [BIN, 'serve', '--db', db, '--world', world, '--http-port', '0', '--telnet-port', 'off', '--host', '127.0.0.1', '--sync', 'normal', '--max-per-ip', '0', '--frame-rate-per-ip', '0', '--max-characters-per-ip', '0', '--connect-rate-per-ip', '0', '--log-level', 'info'];
  const env = { ...process.env, LIGHTMUD_MODEL: model, LIGHTMUD_AGENT_CACHE: CACHE, LIGHTMUD_AGENT_IDLE_SECONDS: idle };
  // AGENTS_NODE_ARGS: extra node options for the server, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = (process.env.AGENTS_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const proc = spawn(process.execPath, [...nodeArgs, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += String(d)));
  // With LIGHTMUD_AGENT_TRACE=FILE the server's log goes to FILE.server.log as well (for finding a missed reply).
  const log = process.env.LIGHTMUD_AGENT_TRACE ? createWriteStream(`${process.env.LIGHTMUD_AGENT_TRACE}.server.log`, { flags: 'a' }) : null;
  if (log) proc.stdout!.on('data', (d) => log.write(d));
  return new Promise((resolve, reject) => {
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      if (!line.includes('"event":"listening"')) return;
      resolve({ proc, port: (JSON.parse(line) as { httpPort: number }).httpPort });
    });
    proc.once('exit', (code) => reject(new Error(`lightmud serve exited (${code}): ${stderr.slice(-2000)}`)));
  });
}

function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

interface Frame {
  type: string;
  kind?: string;
  id?: string;
  text?: string;
  event?: { type: string; actor: string };
  people?: { id: string; name: string; player: boolean }[];
}

const LINES = [
  (n: string) => `${n}, what are you carrying?`,
  (n: string) => `Good day to you, ${n}! How goes it?`,
  (n: string) => `${n}, can you give me a gold coin?`,
  (n: string) => `Tell me, ${n}, what brings you here?`,
  (n: string) => `${n}, are you armed?`,
  (n: string) => `I'm feeling sad today, ${n}.`,
];

/** Replies to the first line, which every player says at the same moment once all are in. */
interface Burst {
  replies: number[];
  /** Resolves when every player has logged in. */
  start: Promise<void>;
  loggedIn: () => void;
}

function burst(players: number): Burst {
  let left = players;
  let go!: () => void;
  const start = new Promise<void>((r) => (go = r));
  return { replies: [], start, loggedIn: () => void (--left === 0 && go()) };
}

/**
 * One player: logs in, waits for the others, says its first line with all of them at once (the
 * burst), then says lines to the model characters of its room, one at a time, 0.3-1 s apart.
 */
async function player(url: string, character: string, until: number, replies: number[], acks: number[], misses: { n: number }, replyWaitMs: number, first: Burst): Promise<void> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  const frames: Frame[] = [];
  let wake: (() => void) | null = null;
  ws.on('message', (d) => {
    frames.push(JSON.parse(String(d)) as Frame);
    wake?.();
  });
  ws.on('error', () => {});
  await new Promise<void>((r, j) => {
    ws.once('open', () => r());
    ws.once('error', j);
  }).catch((err: unknown) => {
    first.loggedIn(); // the others go without this one
    throw err;
  });
  const next = (match: (f: Frame) => boolean, ms: number): Promise<Frame | null> =>
    new Promise((resolve) => {
      const t = setTimeout(() => {
        wake = null;
        resolve(null);
      }, ms);
      const check = () => {
        const i = frames.findIndex(match);
        if (i < 0) return;
        // take only the match: a reply may arrive before the speaker's own acknowledgement
        const f = frames.splice(i, 1)[0]!;
        clearTimeout(t);
        wake = null;
        resolve(f);
      };
      wake = check;
      check();
    });
  ws.send(JSON.stringify({ type: 'login', guest: true, character }));
  const state = await next((f) => f.type === 'state', 60_000);
  const people = (state?.people ?? []).filter((p) => !p.id.startsWith('visitor-'));
  first.loggedIn();
  await first.start;
  let k = 0;
  while (Date.now() < until && people.length) {
    const who = people[k % people.length]!;
    const line = LINES[k % LINES.length]!(who.name);
    const id = `l${k++}`;
    frames.length = 0;
    const t0 = performance.now();
    ws.send(JSON.stringify({ type: 'command', text: `say ${line}`, id }));
    const ack = await next((f) => f.type === 'observation' && f.id === id, 10_000);
    if (ack) acks.push(performance.now() - t0);
    const reply = await next((f) => f.type === 'observation' && f.kind === 'event' && f.event?.type === 'say' && f.event.actor === who.id, replyWaitMs);
    if (reply) (k === 1 ? first.replies : replies).push(performance.now() - t0);
    else if (replyWaitMs >= 1000) {
      misses.n++;
      // With LIGHTMUD_AGENT_TRACE=FILE each missed line is written to FILE.misses (who, what, when).
      const trace = process.env.LIGHTMUD_AGENT_TRACE;
      if (trace) appendFileSync(`${trace}.misses`, JSON.stringify({ player: character, to: who.id, line, sentAt: Date.now() - Math.round(performance.now() - t0), acked: !!ack, seen: frames.map((f) => f.event?.type ?? f.kind ?? f.type) }) + '\n');
    }
    await new Promise((r) => setTimeout(r, 300 + Math.random() * 700));
  }
  ws.terminate();
}

export default async function agents(ctx: BenchContext): Promise<void> {
  const env = process.env;
  const model = resolve(env.LIGHTMUD_BENCH_MODEL ?? env.LIGHTMUD_MODEL ?? DEFAULT_MODEL_DIR);
  if (!existsSync(model)) {
    ctx.report({ bench: 'agents', skipped: `no model directory at ${model} (LIGHTMUD_BENCH_MODEL=DIR)` });
    return;
  }
  const machine = { cpus: cpus().length, load1: loadavg()[0]! };

  // ---- episodes per second --------------------------------------------------------------------
  {
    const world = new World(loadWorld(DEFAULT_WORLD, { seed: 1 }).state);
    const { policy } = await loadPolicy({ modelDir: model, world, cacheDir: CACHE, rerank: 0 });
    const n = ctx.quick ? 16 : 64;
    const st = await runEpisodes(world, policy, { n, turns: 10, seed: 1 });
    ctx.report({ bench: 'episodes', model, episodes: n, turns: 10, seconds: st.seconds, episodes_per_s: st.episodes / st.seconds, actions: st.actions, emotes: st.emotes, refused: st.refused, ...machine });
    await policy.ranker.release();
    await policy.pool.release();
  }

  // ---- replies in the live world, and the same players without model characters ----------------
  const players = Number(env.AGENTS_PLAYERS ?? 50);
  const characters = Number(env.AGENTS_CHARACTERS ?? 1000);
  const seconds = Number(env.AGENTS_SECONDS ?? (ctx.quick ? 8 : 30));
  for (const policy of env.AGENTS_BASELINE === '0' ? ['model'] : ['model', 'idle']) {
    const dir = mkdtempSync(join(tmpdir(), 'lightmud-agents-bench-'));
    const { world } = benchWorld(characters, players, policy);
    const worldFile = join(dir, 'world.json');
    writeFileSync(worldFile, JSON.stringify(world));
    const t0 = performance.now();
    const server = await serve(join(dir, 'bench.db'), worldFile, model, env.AGENTS_IDLE ?? '30');
    const startSeconds = (performance.now() - t0) / 1000;
    try {
      const url = `ws://127.0.0.1:${server.port}/ws`;
      const replies: number[] = [];
      const acks: number[] = [];
      const misses = { n: 0 };
      const cpu0 = cpuSeconds(server.proc.pid!);
      const until = Date.now() + seconds * 1000;
      const first = burst(players);
      // Without model characters nobody answers: players then wait a fixed 50 ms instead of a reply.
      await Promise.all(Array.from({ length: players }, (_, i) => player(url, `visitor-${i}`, until, replies, acks, misses, policy === 'model' ? 10_000 : 50, first)));
      const cpu = cpuSeconds(server.proc.pid!) - cpu0;
      if (policy === 'model') {
        ctx.report({
          bench: 'agents_reply', transport: 'websocket 127.0.0.1', model, model_characters: characters, players, seconds, server_start_s: startSeconds,
          replies: replies.length, no_reply_in_10s: misses.n, reply_p50_ms: percentile(replies, 50), reply_p95_ms: percentile(replies, 95), reply_p99_ms: percentile(replies, 99),
          burst_lines: players, burst_replies: first.replies.length, burst_reply_p50_ms: percentile(first.replies, 50), burst_reply_max_ms: percentile(first.replies, 100),
          human_ack_p50_ms: percentile(acks, 50), human_ack_p95_ms: percentile(acks, 95), server_cpu_percent: (cpu / seconds) * 100, ...machine,
        });
      } else {
        ctx.report({ bench: 'agents_baseline', note: 'same world and players, every character idle', players, seconds, lines: acks.length, human_ack_p50_ms: percentile(acks, 50), human_ack_p95_ms: percentile(acks, 95), server_cpu_percent: (cpu / seconds) * 100, ...machine });
      }
    } finally {
      server.proc.kill('SIGTERM');
      await new Promise((r) => server.proc.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
