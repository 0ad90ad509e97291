/**
 * Episodes at scale (issue 15, item 5): `lightmud episodes queue | work | status` on a real PostgreSQL
 * (started by test/server/stores.ts's helper on 127.0.0.1; skipped, saying so, when PostgreSQL is not
 * installed or LIGHTMUD_TEST_POSTGRES=off), with the tiny test model and the little world, every command a
 * child process: enqueueing twice adds nothing; two workers in parallel drain a queue with no episode
 * played twice or missing; a worker killed with SIGKILL in the middle of a job has the job claimed again
 * after its lease, and the outputs are byte-identical to one `lightmud episodes` run of the same episodes;
 * a job whose output is already written with the recorded checksum is not played again; --verify DIR.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { postgresBinDir, startPostgres, type RunningPostgres } from '../server/stores.js';
import { cleanup, littleWorldTexts, makeAgentModel, tempDir, writeLittleWorld, writeUtterances } from './helpers.js';

const BIN = fileURLToPath(new URL('../../bin/lightmud.mjs', import.meta.url));
const off = process.env.LIGHTMUD_TEST_POSTGRES === 'off';
const bin = off ? null : postgresBinDir();
const skip = off ? 'LIGHTMUD_TEST_POSTGRES=off' : bin ? false : 'PostgreSQL is not installed (no pg_config, no /usr/lib/postgresql/N/bin)';
if (skip) console.warn(`${skip}: the episode queue tests are skipped`);

let server: RunningPostgres;
let dir: string;
let modelDir: string;
let world: string;
let env: NodeJS.ProcessEnv;

/** A fresh database on the test server, for one test. */
async function database(name: string): Promise<string> {
  const c = await server.client();
  try {
    await c.query(`CREATE DATABASE ${name}`);
  } finally {
    await c.end();
  }
  return server.url.replace(/\/postgres$/, `/${name}`);
}

async function sql<T = Record<string, unknown>>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const pg = (await import('pg')).default;
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text, params)).rows as T[];
  } finally {
    await c.end();
  }
}

const run = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, [BIN, 'episodes', ...args], { cwd: dir, encoding: 'utf8', env: { ...env, ...extraEnv }, timeout: 120_000 });

function start(args: string[], extraEnv: NodeJS.ProcessEnv = {}): { child: ChildProcess; out: () => string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [BIN, 'episodes', ...args], { cwd: dir, env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout!.on('data', (d) => (text += d));
  child.stderr!.on('data', (d) => (text += d));
  const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, out: () => text, exit };
}

/** Every job output of a queue's directory, in order, concatenated. */
function outputs(out: string): { text: string; files: string[]; hidden: string[] } {
  const [hash] = readdirSync(out);
  const d = join(out, hash!);
  const files = readdirSync(d).filter((f) => f.endsWith('.jsonl') && !f.startsWith('.')).sort();
  return { text: files.map((f) => readFileSync(join(d, f), 'utf8')).join(''), files, hidden: readdirSync(d).filter((f) => f.startsWith('.')) };
}

/** The same episodes from one `lightmud episodes` process. */
function single(n: number, turns: number, seed: number): string {
  const file = join(dir, `single-${seed}.jsonl`);
  const r = run(['--world', world, '--model', modelDir, '--n', String(n), '--turns', String(turns), '--seed', String(seed), '--no-db', '--out', file]);
  expect(r.status, r.stderr).toBe(0);
  return readFileSync(file, 'utf8');
}

const common = () => ['--world', world, '--model', modelDir];

/** Wait until a worker has written two episodes of a job to its temp file; what is there. */
async function partialOutput(out: string, job: string, log: () => string): Promise<string> {
  const t0 = Date.now();
  for (;;) {
    const d = existsSync(out) ? readdirSync(out).map((h) => join(out, h))[0] : undefined;
    const tmp = d && existsSync(d) ? readdirSync(d).find((f) => f.startsWith(`.${job}.jsonl.tmp-`)) : undefined;
    const text = tmp ? readFileSync(join(d!, tmp), 'utf8') : '';
    if (text.split('\n').length > 2) return text;
    if (Date.now() - t0 > 60_000) throw new Error(`the worker wrote nothing in 60 s:\n${log()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(skip)('lightmud episodes queue / work / status on PostgreSQL', () => {
  beforeAll(async () => {
    server = await startPostgres(bin);
    dir = tempDir('lightmud-episode-jobs-');
    modelDir = makeAgentModel(littleWorldTexts());
    copyFileSync(writeUtterances(dir), join(modelDir, 'utterances.txt'));
    world = writeLittleWorld(dir);
    env = { ...process.env, LIGHTMUD_AGENT_CACHE: join(dir, 'cache') };
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    cleanup();
  });

  it('enqueues a range once: again adds nothing, a longer range only its new part; status counts it', async () => {
    const url = await database('enqueue');
    const q1 = run(['queue', '--db', url, '--n', '10', '--turns', '4', '--seed', '3', '--job-size', '4', ...common()]);
    expect(q1.status, q1.stderr).toBe(0);
    expect(q1.stdout).toMatch(/enqueued 3 jobs \(10 episodes\)/);
    const q2 = run(['queue', '--db', url, '--n', '10', '--turns', '4', '--seed', '3', '--job-size', '4', ...common()]);
    expect(q2.stdout).toMatch(/enqueued 0 jobs \(0 episodes\); 10 episodes were enqueued already/);
    // Another job size over the same range adds nothing either; a longer range adds its new episodes only.
    const q3 = run(['queue', '--db', url, '--n', '13', '--turns', '4', '--seed', '3', '--job-size', '5', ...common()]);
    expect(q3.stdout).toMatch(/enqueued 1 jobs \(3 episodes\); 10 episodes were enqueued already/);
    const rows = await sql<{ first_ep: number; last_ep: number; state: string }>(url, 'SELECT first_ep, last_ep, state FROM lightmud_episode_jobs ORDER BY first_ep');
    expect(rows.map((r) => [r.first_ep, r.last_ep, r.state])).toEqual([[1, 4, 'queued'], [5, 8, 'queued'], [9, 10, 'queued'], [11, 13, 'queued']]);
    // Another seed is another configuration.
    const q4 = run(['queue', '--db', url, '--n', '2', '--turns', '4', '--seed', '30', ...common()]);
    expect(q4.stdout).toMatch(/enqueued 1 jobs \(2 episodes\)$/m);
    const s = run(['status', '--db', url]);
    expect(s.status).toBe(0);
    expect(s.stdout).toMatch(/4 jobs: 4 queued, 0 running, 0 done, 0 failed; episodes 0\/13 done/);
    expect(s.stdout).toMatch(/1 jobs: 1 queued, 0 running, 0 done, 0 failed; episodes 0\/2 done/);

    // A worker whose world is not the configuration's refuses, and gives the job back as it was.
    const other = JSON.parse(readFileSync(world, 'utf8')) as { rooms: { description: string }[] };
    other.rooms[0]!.description += ' It smells of rain.';
    const otherWorld = join(dir, 'other-world.json');
    writeFileSync(otherWorld, JSON.stringify(other));
    const w = run(['work', '--db', url, '--out', join(dir, 'out-refused'), '--once', '--world', otherWorld]);
    expect(w.status).toBe(1);
    expect(w.stderr).toMatch(/this worker's world differs from configuration \w+'s .*: it would not write the same episodes/);
    const [first] = await sql<{ state: string; attempts: number }>(url, 'SELECT state, attempts FROM lightmud_episode_jobs ORDER BY id LIMIT 1');
    expect(first).toEqual({ state: 'queued', attempts: 0 });
    // So does one whose policy (the tuned thresholds, the pool) is not what the first worker's was.
    await sql(url, `UPDATE lightmud_episode_configs SET policy = '{"thresholds":{"action":0.5,"emote":0.5}}'`);
    const p = run(['work', '--db', url, '--out', join(dir, 'out-refused'), '--once']);
    expect(p.status).toBe(1);
    expect(p.stderr).toMatch(/policy for configuration \w+ is .*, the first worker's was/);
  }, 120_000);

  it('two workers in parallel drain the queue: every episode once, none missing, the bytes of one process', async () => {
    const url = await database('parallel');
    const out = join(dir, 'out-parallel');
    expect(run(['queue', '--db', url, '--n', '24', '--turns', '6', '--seed', '5', '--job-size', '3', ...common()]).status).toBe(0);
    // A short pause after each episode, so that both workers are at work together.
    const slow = { LIGHTMUD_EPISODE_JOB_DELAY_MS: '40' };
    const a = start(['work', '--db', url, '--out', out], slow);
    const b = start(['work', '--db', url, '--out', out], slow);
    const [ca, cb] = await Promise.all([a.exit, b.exit]);
    expect(ca, a.out()).toBe(0);
    expect(cb, b.out()).toBe(0);
    const doneBy = (text: string) => [...text.matchAll(/^done job (\d+) /gm)].map((m) => Number(m[1]));
    const ja = doneBy(a.out());
    const jb = doneBy(b.out());
    expect(ja.length).toBeGreaterThan(0);
    expect(jb.length).toBeGreaterThan(0);
    expect([...ja, ...jb].sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const rows = await sql<{ state: string; attempts: number; checksum: string }>(url, 'SELECT state, attempts, checksum FROM lightmud_episode_jobs ORDER BY first_ep');
    expect(rows.every((r) => r.state === 'done' && r.attempts === 1 && /^[0-9a-f]{64}$/.test(r.checksum))).toBe(true);
    const { text, files, hidden } = outputs(out);
    expect(files).toEqual(['000001-000003.jsonl', '000004-000006.jsonl', '000007-000009.jsonl', '000010-000012.jsonl',
      '000013-000015.jsonl', '000016-000018.jsonl', '000019-000021.jsonl', '000022-000024.jsonl']);
    expect(hidden).toEqual([]);
    const ids = text.trim().split('\n').map((l) => (JSON.parse(l) as { id: string }).id);
    expect(ids).toEqual(Array.from({ length: 24 }, (_, i) => `model-5-${String(i + 1).padStart(5, '0')}`));
    expect(text).toBe(single(24, 6, 5));

    const s = run(['status', '--db', url]);
    expect(s.stdout).toMatch(/8 jobs: 0 queued, 0 running, 8 done, 0 failed; episodes 24\/24 done/);
    const v = run(['--verify', out]);
    expect(v.stdout).toMatch(/episodes 1-24\) against/);
    expect(v.stdout).toMatch(/verified 24 episodes \(144 turns, \d+ actions\) in 1 configuration: 0 mismatches, 0 malformed lines, 0 misnamed or overlapping files/);
    expect(v.status).toBe(0);

    // A tampered file is reported.
    const [hash] = readdirSync(out);
    const f = join(out, hash!, '000004-000006.jsonl');
    const lines = readFileSync(f, 'utf8').trim().split('\n');
    const ep = JSON.parse(lines[1]!) as { id: string; turns: { speaker: string; say: string; action?: string }[] };
    ep.turns[2] = { speaker: ep.turns[2]!.speaker, say: 'Hm.', action: 'drink boulder' };
    lines[1] = JSON.stringify(ep);
    writeFileSync(f, lines.join('\n') + '\n');
    const bad = run(['--verify', out]);
    expect(bad.status).toBe(1);
    expect(bad.stdout).toContain(`mismatch: episode ${ep.id} turn 2`);
  }, 180_000);

  it('a worker killed in the middle of a job: the job is claimed again after the lease, the outputs are the same bytes', async () => {
    const url = await database('killed');
    const out = join(dir, 'out-killed');
    expect(run(['queue', '--db', url, '--n', '12', '--turns', '6', '--seed', '6', '--job-size', '6', ...common()]).status).toBe(0);
    const a = start(['work', '--db', url, '--out', out, '--lease', '2'], { LIGHTMUD_EPISODE_JOB_DELAY_MS: '400' });
    // Wait until it has written some of its first job's episodes (to its temp file), then kill it.
    const partial = await partialOutput(out, '000001-000006', a.out);
    a.child.kill('SIGKILL');
    await a.exit;
    expect(a.out()).toMatch(/claimed job 1 /);
    expect(a.out()).not.toMatch(/done job/);
    const [held] = await sql<{ state: string; worker: string; attempts: number }>(url, 'SELECT state, worker, attempts FROM lightmud_episode_jobs WHERE first_ep = 1');
    expect(held).toMatchObject({ state: 'running', attempts: 1 });

    // A second worker takes the queued job, waits for the dead worker's lease to expire, and takes its job.
    const b = start(['work', '--db', url, '--out', out, '--lease', '2']);
    expect(await b.exit, b.out()).toBe(0);
    expect(b.out()).toMatch(/claimed job 1 \(configuration \w+, episodes 1-6, attempt 2\)/);
    const rows = await sql<{ state: string; attempts: number; worker: string }>(url, 'SELECT state, attempts, worker FROM lightmud_episode_jobs ORDER BY first_ep');
    expect(rows.map((r) => [r.state, r.attempts])).toEqual([['done', 2], ['done', 1]]);
    expect(rows[0]!.worker).not.toBe(held!.worker);
    const { text, hidden } = outputs(out);
    expect(hidden).toEqual([]); // the dead worker's temp file was cleared
    expect(text).toBe(single(12, 6, 6));
    expect(text.startsWith(partial)).toBe(true);

    // A job whose output is there with the recorded checksum (its worker died after the rename) is not played again.
    await sql(url, "UPDATE lightmud_episode_jobs SET state = 'running', worker = 'gone', lease_until = now() - interval '1 second' WHERE first_ep = 7");
    const c = run(['work', '--db', url, '--out', out, '--once']);
    expect(c.status, c.stderr).toBe(0);
    expect(c.stdout).toMatch(/job 2 \(.*\): .*000007-000012\.jsonl is there with the recorded checksum: done, not played again/);
    expect(outputs(out).text).toBe(text);
    expect(run(['--verify', out]).status).toBe(0);

    // A done job's file lost: status --out finds it, --requeue-missing queues the job again, a worker writes the same bytes.
    const ok = run(['status', '--db', url, '--out', out]);
    expect(ok.stdout).toMatch(/2 done jobs' files checked in .*: 2 present with their checksum, 0 missing or changed/);
    expect(ok.status).toBe(0);
    const [hash] = readdirSync(out);
    const lostFile = join(out, hash!, '000001-000006.jsonl');
    rmSync(lostFile);
    const missing = run(['status', '--db', url, '--out', out]);
    expect(missing.status).toBe(1);
    expect(missing.stdout).toContain(`job 1: ${lostFile}: missing`);
    const requeued = run(['status', '--db', url, '--out', out, '--requeue-missing']);
    expect(requeued.stdout).toContain('queued 1 jobs again');
    expect(run(['status', '--db', url]).stdout).toMatch(/2 jobs: 1 queued, 0 running, 1 done, 0 failed; episodes 6\/12 done/);
    expect(run(['work', '--db', url, '--out', out]).status).toBe(0);
    expect(outputs(out).text).toBe(text);
  }, 180_000);

  it('a worker stopped with SIGTERM gives its job back at once, the attempt not counted', async () => {
    const url = await database('stopped');
    const out = join(dir, 'out-stopped');
    expect(run(['queue', '--db', url, '--n', '6', '--turns', '6', '--seed', '7', '--job-size', '6', ...common()]).status).toBe(0);
    const a = start(['work', '--db', url, '--out', out, '--lease', '60'], { LIGHTMUD_EPISODE_JOB_DELAY_MS: '400' });
    await partialOutput(out, '000001-000006', a.out);
    a.child.kill('SIGTERM');
    expect(await a.exit, a.out()).toBe(0);
    expect(a.out()).toMatch(/SIGTERM: stopping/);
    expect(a.out()).toMatch(/job 1 \(.*\): stopped; the job is given back \(queued again\)/);
    const [job] = await sql<{ state: string; attempts: number; worker: string | null }>(url, 'SELECT state, attempts, worker FROM lightmud_episode_jobs');
    expect(job).toEqual({ state: 'queued', attempts: 0, worker: null });
    expect(outputs(out)).toEqual({ text: '', files: [], hidden: [] });
  }, 120_000);

  it('a worker whose job was taken from it (its lease expired) stops that job without writing', async () => {
    const url = await database('taken');
    const out = join(dir, 'out-taken');
    expect(run(['queue', '--db', url, '--n', '6', '--turns', '6', '--seed', '8', '--job-size', '6', ...common()]).status).toBe(0);
    const a = start(['work', '--db', url, '--out', out, '--lease', '3'], { LIGHTMUD_EPISODE_JOB_DELAY_MS: '600' });
    await partialOutput(out, '000001-000006', a.out);
    // As if its lease had expired and another worker had claimed the job (for 3 seconds).
    await sql(url, "UPDATE lightmud_episode_jobs SET worker = 'other', attempts = attempts + 1, lease_until = now() + interval '3 seconds'");
    expect(await a.exit, a.out()).toBe(0);
    // It notices at its next renewal, stops without writing, waits for the other's lease to expire, and does the job.
    expect(a.out()).toMatch(/job 1 \(.*attempt 1\): lease lost \(another worker has it now\); stopped without writing/);
    expect(a.out()).toMatch(/done job 1 \(.*attempt 3\)/);
    expect(outputs(out).text).toBe(single(6, 6, 8));
  }, 120_000);
});
