/**
 * Model-vs-model episodes at scale (issue 15, item 5): episode generation as queue workers on PostgreSQL.
 *
 * A configuration is everything an episode depends on besides its number: the world (its loaded state),
 * the model directory (every file), the written corpus the policy reads (world-data/episodes and the corpus
 * world: the dialogue pool, the line judge, the tuned thresholds), the code that plays episodes
 * (server/agents, engine, episodes, world-io, models/runtime), the turns, the run seed and the rerank depth.
 * Its hash names it. Episode i of a run with seed S is determined by (S, i) alone (episodes.ts: its own
 * Rng seeded by episodeSeed(S, i)), whatever the batching, so a job is a range of episode numbers
 * [first, last] of one configuration, and running it again writes the same bytes.
 *
 * Tables (made on first use):
 *   lightmud_episode_configs (hash) -> the configuration (JSON: paths and the fingerprints above)
 *   lightmud_episode_jobs    (id)   -> config, first_ep, last_ep (1-based, inclusive, as in the episode ids),
 *                                      state queued | running | done | failed, attempts, max_attempts, worker,
 *                                      lease_until, output, checksum (sha256 of the output file), error
 *
 * Claiming is `SELECT ... FOR UPDATE SKIP LOCKED` on a queued job or a running one whose lease has expired
 * (its worker died or hung). A worker renews its lease every third of it while it plays; a renewal that
 * finds the job no longer its own (the lease expired and another worker took it) stops the job without
 * writing. Output: DIR/<hash>/<first>-<last>.jsonl (zero-padded to 6 digits), written to a temp file beside
 * it, fsynced, its checksum recorded on the job, renamed into place, then the job marked done; a job whose
 * output file is already there with the recorded checksum (its worker died after the rename) is marked done
 * without being played again.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import pg from 'pg';
import { World } from '../engine/world.js';
import { CORPUS_WORLD, loadWorld } from '../world-io/load-world.js';
import { LOCK_CLASS } from '../store/pg-store.js';
import { runEpisodes, type EpisodeStats } from './episodes.js';
import { DEFAULT_EPISODES, loadPolicy } from './load.js';
import type { Policy } from './policy.js';

/** Schema changes of these tables take the advisory lock (LOCK_CLASS + 1, JOBS_SCHEMA_KEY). */
const JOBS_SCHEMA_KEY = 5;
/** Enqueueing into one configuration takes (LOCK_CLASS + 2, hashtext(config)). */
const ENQUEUE_LOCK = LOCK_CLASS + 2;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS lightmud_episode_configs (
  hash    TEXT PRIMARY KEY,
  config  TEXT NOT NULL,
  policy  TEXT,
  created TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS lightmud_episode_jobs (
  id           BIGSERIAL PRIMARY KEY,
  config       TEXT NOT NULL REFERENCES lightmud_episode_configs (hash),
  first_ep     INT NOT NULL,
  last_ep      INT NOT NULL,
  state        TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done', 'failed')),
  attempts     INT NOT NULL DEFAULT 0,
  max_attempts INT NOT NULL DEFAULT 3,
  worker       TEXT,
  lease_until  TIMESTAMPTZ,
  output       TEXT,
  checksum     TEXT,
  error        TEXT,
  created      TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated      TIMESTAMPTZ NOT NULL DEFAULT now(),
  finished     TIMESTAMPTZ,
  UNIQUE (config, first_ep),
  CHECK (first_ep >= 1 AND last_ep >= first_ep)
);
CREATE INDEX IF NOT EXISTS lightmud_episode_jobs_state ON lightmud_episode_jobs (state, id);
`;

// ---- configurations -----------------------------------------------------------------------------------

export interface EpisodeConfig {
  format: 'lightmud-episode-config';
  version: 1;
  /** Where the world and the model were when enqueued (a worker may be given other paths to the same bytes). */
  world: string;
  model: string;
  turns: number;
  seed: number;
  rerank: number;
  /** sha256 of the loaded world state, of the model directory's files, of the corpus, of the code. */
  fingerprints: { world: string; model: string; corpus: string; code: string };
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** sha256 over a directory's files (relative path, size and content of each, sorted; dot-files skipped). */
export function hashTree(root: string, keep: (rel: string) => boolean = () => true): string {
  const h = createHash('sha256');
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (name.startsWith('.')) continue;
      const p = join(dir, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) {
        const rel = relative(root, p);
        if (!keep(rel)) continue;
        h.update(`${rel}\0${st.size}\0`).update(readFileSync(p)).update('\0');
      }
    }
  };
  if (existsSync(root)) walk(root);
  return h.digest('hex');
}

const ROOT = resolve(new URL('../..', import.meta.url).pathname);
/** The code an episode's bytes depend on. */
const CODE_DIRS = ['server/agents', 'server/engine', 'server/episodes', 'server/world-io', 'models/runtime'];

function worldFingerprint(world: string): string {
  return sha256(JSON.stringify(loadWorld(world, { seed: 1 }).state));
}

let corpusMemo: string | undefined;
function corpusFingerprint(): string {
  corpusMemo ??= sha256(`${hashTree(DEFAULT_EPISODES)}\n${(() => {
    try {
      return sha256(JSON.stringify(loadWorld(CORPUS_WORLD, { seed: 1 }).state));
    } catch {
      return 'no corpus world';
    }
  })()}`);
  return corpusMemo;
}

let codeMemo: string | undefined;
function codeFingerprint(): string {
  codeMemo ??= sha256(CODE_DIRS.map((d) => `${d}:${hashTree(join(ROOT, d), (rel) => rel.endsWith('.ts') && !rel.endsWith('.test.ts'))}`).join('\n'));
  return codeMemo;
}

/** The configuration of episodes with these settings, fingerprinted from the files as they are now. */
export function describeConfig(o: { world: string; model: string; turns: number; seed: number; rerank: number }): EpisodeConfig {
  const world = resolve(o.world);
  const model = resolve(o.model);
  if (!existsSync(model)) throw new Error(`no model directory at ${model}`);
  return {
    format: 'lightmud-episode-config', version: 1, world, model, turns: o.turns, seed: o.seed, rerank: o.rerank,
    fingerprints: { world: worldFingerprint(world), model: hashTree(model), corpus: corpusFingerprint(), code: codeFingerprint() },
  };
}

/** The configuration's name: 16 hex digits of the sha256 of what it depends on (not of where the files are). */
export function configHash(c: EpisodeConfig): string {
  return sha256(JSON.stringify({ v: c.version, turns: c.turns, seed: c.seed, rerank: c.rerank, f: c.fingerprints })).slice(0, 16);
}

/** DIR/<hash>/<first>-<last>.jsonl */
export function jobOutput(dir: string, hash: string, first: number, last: number): string {
  return join(resolve(dir), hash, `${String(first).padStart(6, '0')}-${String(last).padStart(6, '0')}.jsonl`);
}

// ---- the queue ----------------------------------------------------------------------------------------

export type JobState = 'queued' | 'running' | 'done' | 'failed';

export interface Job {
  id: number;
  config: string;
  first: number;
  last: number;
  state: JobState;
  attempts: number;
  maxAttempts: number;
  worker: string | null;
  leaseLeftS: number | null;
  output: string | null;
  checksum: string | null;
  error: string | null;
}

const JOB_COLUMNS = `id::int AS id, config, first_ep, last_ep, state, attempts, max_attempts, worker,
  EXTRACT(EPOCH FROM (lease_until - now()))::float8 AS lease_left, output, checksum, error`;

function toJob(r: Record<string, unknown>): Job {
  return {
    id: Number(r.id), config: String(r.config), first: Number(r.first_ep), last: Number(r.last_ep), state: r.state as JobState,
    attempts: Number(r.attempts), maxAttempts: Number(r.max_attempts), worker: (r.worker as string | null) ?? null,
    leaseLeftS: r.lease_left === null || r.lease_left === undefined ? null : Number(r.lease_left),
    output: (r.output as string | null) ?? null, checksum: (r.checksum as string | null) ?? null, error: (r.error as string | null) ?? null,
  };
}

export interface ConfigStatus {
  hash: string;
  config: EpisodeConfig;
  jobs: Record<JobState, number>;
  episodes: { total: number; done: number };
  running: Job[];
  failed: Job[];
}

export class EpisodeQueue {
  private constructor(readonly client: pg.Client) {}

  static async connect(url: string): Promise<EpisodeQueue> {
    const client = new pg.Client({ connectionString: url, application_name: 'lightmud episodes' });
    client.on('error', () => {}); // a lost connection shows as the next query's error
    await client.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_CLASS + 1, JOBS_SCHEMA_KEY]);
      await client.query(SCHEMA);
      await client.query('COMMIT');
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
    return new EpisodeQueue(client);
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => {});
  }

  private async tx<T>(f: () => Promise<T>): Promise<T> {
    await this.client.query('BEGIN');
    try {
      const v = await f();
      await this.client.query('COMMIT');
      return v;
    } catch (err) {
      await this.client.query('ROLLBACK').catch(() => {});
      throw err;
    }
  }

  /**
   * Enqueue episodes [first, last] of a configuration as jobs of `jobSize` episodes. Only the episodes no
   * job of the configuration covers yet are enqueued (gaps split into jobs from their start), so enqueueing
   * the same range again adds nothing and a longer range adds only its new part.
   */
  async enqueue(config: EpisodeConfig, first: number, last: number, jobSize: number, maxAttempts = 3): Promise<{ hash: string; added: Job[]; covered: number }> {
    const hash = configHash(config);
    return this.tx(async () => {
      await this.client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [ENQUEUE_LOCK, hash]);
      await this.client.query('INSERT INTO lightmud_episode_configs (hash, config) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING', [hash, JSON.stringify(config)]);
      const existing = (await this.client.query('SELECT first_ep, last_ep FROM lightmud_episode_jobs WHERE config = $1 AND last_ep >= $2 AND first_ep <= $3 ORDER BY first_ep', [hash, first, last])).rows as { first_ep: number; last_ep: number }[];
      const gaps: [number, number][] = [];
      let at = first;
      for (const r of existing) {
        if (r.first_ep > at) gaps.push([at, Math.min(last, r.first_ep - 1)]);
        at = Math.max(at, r.last_ep + 1);
      }
      if (at <= last) gaps.push([at, last]);
      const added: Job[] = [];
      for (const [a, b] of gaps) {
        const r = await this.client.query(`INSERT INTO lightmud_episode_jobs (config, first_ep, last_ep, max_attempts)
          SELECT $1, s, LEAST(s + $4 - 1, $3), $5 FROM generate_series($2::int, $3::int, $4::int) AS s ORDER BY s
          RETURNING ${JOB_COLUMNS}`, [hash, a, b, jobSize, maxAttempts]);
        added.push(...r.rows.map(toJob).sort((x, y) => x.first - y.first));
      }
      const covered = existing.reduce((n, r) => n + Math.min(last, r.last_ep) - Math.max(first, r.first_ep) + 1, 0);
      return { hash, added, covered };
    });
  }

  /**
   * Claim the oldest job that is queued, or running under an expired lease, for `worker`, with a lease of
   * `leaseS` seconds. Jobs whose lease expired after their last allowed attempt are marked failed first.
   */
  async claim(worker: string, leaseS: number): Promise<(Job & { configJson: EpisodeConfig }) | null> {
    await this.client.query(`UPDATE lightmud_episode_jobs SET state = 'failed', updated = now(), lease_until = NULL,
      error = 'lease expired (worker ' || coalesce(worker, '?') || ' gone) on attempt ' || attempts || ' of ' || max_attempts
      WHERE state = 'running' AND lease_until < now() AND attempts >= max_attempts`);
    const r = await this.client.query(`WITH c AS (
        SELECT id FROM lightmud_episode_jobs
        WHERE state = 'queued' OR (state = 'running' AND lease_until < now())
        ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
      UPDATE lightmud_episode_jobs j SET state = 'running', attempts = j.attempts + 1, worker = $1,
        lease_until = now() + make_interval(secs => $2), updated = now()
      FROM c WHERE j.id = c.id
      RETURNING ${JOB_COLUMNS.replace('id::int AS id', 'j.id::int AS id')},
        (SELECT k.config FROM lightmud_episode_configs k WHERE k.hash = j.config) AS config_json`, [worker, leaseS]);
    if (!r.rows.length) return null;
    return { ...toJob(r.rows[0]), configJson: JSON.parse(r.rows[0].config_json as string) as EpisodeConfig };
  }

  /**
   * What the first worker to load the configuration's policy found (the tuned act/emote thresholds, the pool's
   * size, the rerank depth), recorded then; every later worker compares its own (a stale threshold cache, or a
   * corpus read differently, would otherwise write other episodes silently). Returns the recorded one.
   */
  async policySignature(hash: string, signature: string): Promise<string> {
    await this.client.query('UPDATE lightmud_episode_configs SET policy = $2 WHERE hash = $1 AND policy IS NULL', [hash, signature]);
    const r = await this.client.query('SELECT policy FROM lightmud_episode_configs WHERE hash = $1', [hash]);
    return String(r.rows[0]?.policy ?? signature);
  }

  /** Extend the lease; false when the job is no longer this worker's (taken again after the lease expired). */
  async renew(id: number, worker: string, leaseS: number): Promise<boolean> {
    const r = await this.client.query(`UPDATE lightmud_episode_jobs SET lease_until = now() + make_interval(secs => $3), updated = now()
      WHERE id = $1 AND worker = $2 AND state = 'running'`, [id, worker, leaseS]);
    return r.rowCount === 1;
  }

  /** Record the output's checksum and path before the file is renamed into place (lease renewed). */
  async recordOutput(id: number, worker: string, output: string, checksum: string, leaseS: number): Promise<boolean> {
    const r = await this.client.query(`UPDATE lightmud_episode_jobs SET output = $3, checksum = $4, lease_until = now() + make_interval(secs => $5), updated = now()
      WHERE id = $1 AND worker = $2 AND state = 'running'`, [id, worker, output, checksum, leaseS]);
    return r.rowCount === 1;
  }

  async done(id: number, worker: string): Promise<boolean> {
    const r = await this.client.query(`UPDATE lightmud_episode_jobs SET state = 'done', lease_until = NULL, error = NULL, finished = now(), updated = now()
      WHERE id = $1 AND worker = $2 AND state = 'running'`, [id, worker]);
    return r.rowCount === 1;
  }

  /** The job failed: queued again, or failed for good after its last attempt. */
  async fail(id: number, worker: string, error: string): Promise<JobState | null> {
    const r = await this.client.query(`UPDATE lightmud_episode_jobs SET state = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'queued' END,
      error = $3, lease_until = NULL, updated = now() WHERE id = $1 AND worker = $2 AND state = 'running' RETURNING state`, [id, worker, error.slice(0, 2000)]);
    return (r.rows[0]?.state as JobState | undefined) ?? null;
  }

  /** Give the job back without counting the attempt (this worker cannot run its configuration). */
  async release(id: number, worker: string, why: string): Promise<void> {
    await this.client.query(`UPDATE lightmud_episode_jobs SET state = 'queued', attempts = attempts - 1, worker = NULL, lease_until = NULL, error = $3, updated = now()
      WHERE id = $1 AND worker = $2 AND state = 'running'`, [id, worker, why.slice(0, 2000)]);
  }

  /** Done jobs queued again (their output file is gone or changed): played again by the next worker. */
  async requeue(ids: number[], why: string): Promise<number> {
    const r = await this.client.query(`UPDATE lightmud_episode_jobs SET state = 'queued', attempts = 0, worker = NULL, lease_until = NULL,
      output = NULL, checksum = NULL, finished = NULL, error = $2, updated = now() WHERE id = ANY($1::bigint[]) AND state = 'done'`, [ids, why]);
    return r.rowCount ?? 0;
  }

  /** Jobs queued or running (under any lease). */
  async pending(): Promise<number> {
    const r = await this.client.query(`SELECT count(*)::int AS n FROM lightmud_episode_jobs WHERE state IN ('queued', 'running')`);
    return Number(r.rows[0].n);
  }

  async jobs(config?: string): Promise<Job[]> {
    const r = await this.client.query(`SELECT ${JOB_COLUMNS} FROM lightmud_episode_jobs ${config ? 'WHERE config = $1' : ''} ORDER BY config, first_ep`, config ? [config] : []);
    return r.rows.map(toJob);
  }

  async status(): Promise<ConfigStatus[]> {
    const configs = (await this.client.query('SELECT hash, config FROM lightmud_episode_configs ORDER BY created, hash')).rows as { hash: string; config: string }[];
    const jobs = await this.jobs();
    return configs.map(({ hash, config }) => {
      const mine = jobs.filter((j) => j.config === hash);
      const count: Record<JobState, number> = { queued: 0, running: 0, done: 0, failed: 0 };
      for (const j of mine) count[j.state]++;
      const size = (j: Job) => j.last - j.first + 1;
      return {
        hash, config: JSON.parse(config) as EpisodeConfig, jobs: count,
        episodes: { total: mine.reduce((n, j) => n + size(j), 0), done: mine.filter((j) => j.state === 'done').reduce((n, j) => n + size(j), 0) },
        running: mine.filter((j) => j.state === 'running'), failed: mine.filter((j) => j.state === 'failed'),
      };
    });
  }
}

// ---- the worker ---------------------------------------------------------------------------------------

export interface WorkOptions {
  url: string;
  out: string;
  /** One job at most, then return. */
  once?: boolean;
  /** Lease in seconds (renewed every third of it). Default 60. */
  leaseS?: number;
  /** Use these paths instead of the configuration's (their fingerprints must match). */
  world?: string;
  model?: string;
  /** Episodes played together (does not change the output). Default 32. */
  group?: number;
  log?: (line: string) => void;
  /** Worker id (default host:pid:random). */
  worker?: string;
  /** Stop: the job under way is given back (queued again, the attempt not counted) and work returns. */
  signal?: AbortSignal;
}

export interface WorkResult {
  worker: string;
  jobs: { id: number; config: string; first: number; last: number; outcome: 'done' | 'already written' | 'lost lease' | 'failed' | 'requeued' | 'given back'; seconds: number }[];
  episodes: number;
  seconds: number;
  /** Stopped by the signal. */
  stopped: boolean;
}

interface Loaded {
  world: World;
  policy: Policy;
  config: EpisodeConfig;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function fileSha256(path: string): string | null {
  try {
    return sha256(readFileSync(path));
  } catch {
    return null;
  }
}

class LeaseLost extends Error {}
class Stopped extends Error {}

/** Write `text` to `path` atomically (temp file beside it, fsync, rename, fsync the directory). */
function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  syncDir(dirname(path));
}

function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // not every filesystem lets a directory be fsynced
  }
}

/** Work the queue: claim a job, play its episodes, write its output, mark it done; until none is left (or once). */
export async function work(opts: WorkOptions): Promise<WorkResult> {
  const log = opts.log ?? (() => {});
  const leaseS = Math.max(1, opts.leaseS ?? 60);
  const worker = opts.worker ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const queue = await EpisodeQueue.connect(opts.url);
  const loaded = new Map<string, Loaded>();
  const result: WorkResult = { worker, jobs: [], episodes: 0, seconds: 0, stopped: false };
  const t0 = performance.now();
  // A test hook: a pause after each episode, so that a test can kill a worker in the middle of a job.
  const delayMs = Number(process.env.LIGHTMUD_EPISODE_JOB_DELAY_MS ?? 0) || 0;

  const load = async (hash: string, config: EpisodeConfig): Promise<Loaded> => {
    const have = loaded.get(hash);
    if (have) return have;
    const here = describeConfig({ world: opts.world ?? config.world, model: opts.model ?? config.model, turns: config.turns, seed: config.seed, rerank: config.rerank });
    const mine = configHash(here);
    if (mine !== hash) {
      const differ = (Object.keys(here.fingerprints) as (keyof EpisodeConfig['fingerprints'])[]).filter((k) => here.fingerprints[k] !== config.fingerprints[k]);
      throw new ConfigMismatch(`this worker's ${differ.join(', ')} differ${differ.length === 1 ? 's' : ''} from configuration ${hash}'s (world ${here.world}, model ${here.model}): it would not write the same episodes`);
    }
    const world = new World(loadWorld(here.world, { seed: 1 }).state);
    const { policy, poolSize, rerank } = await loadPolicy({ modelDir: here.model, world, rerank: config.rerank, threads: 1, log });
    const signature = JSON.stringify({ thresholds: policy.thresholds, pool: poolSize, rerank });
    const recorded = await queue.policySignature(hash, signature);
    if (recorded !== signature) {
      await policy.ranker.release().catch(() => {});
      await policy.pool.release().catch(() => {});
      throw new ConfigMismatch(`this worker's policy for configuration ${hash} is ${signature}, the first worker's was ${recorded} (a stale threshold cache? remove $LIGHTMUD_AGENT_CACHE's agent-thresholds-*.json): it would not write the same episodes`);
    }
    const l = { world, policy, config: here };
    loaded.set(hash, l);
    return l;
  };

  try {
    for (;;) {
      if (opts.signal?.aborted) {
        result.stopped = true;
        break;
      }
      const job = await queue.claim(worker, leaseS);
      if (!job) {
        if (opts.once) break;
        if ((await queue.pending()) === 0) break;
        await sleep(Math.min(1000, (leaseS * 1000) / 4)); // others are running jobs: one may be given back, or its worker die
        continue;
      }
      const j0 = performance.now();
      const label = `job ${job.id} (configuration ${job.config}, episodes ${job.first}-${job.last}, attempt ${job.attempts})`;
      const out = jobOutput(opts.out, job.config, job.first, job.last);
      const record = (outcome: WorkResult['jobs'][number]['outcome']) => {
        result.jobs.push({ id: job.id, config: job.config, first: job.first, last: job.last, outcome, seconds: (performance.now() - j0) / 1000 });
      };
      // Written already (its worker died after the rename): done without playing it again.
      if (job.checksum && fileSha256(out) === job.checksum) {
        if (await queue.done(job.id, worker)) {
          log(`${label}: ${out} is there with the recorded checksum: done, not played again`);
          record('already written');
        }
        if (opts.once) break;
        continue;
      }
      log(`claimed ${label}`);
      // The lease is renewed from the claim on (loading a configuration's policy takes seconds).
      let lost = false;
      let renewing: Promise<void> = Promise.resolve();
      const timer = setInterval(() => {
        renewing = renewing.then(async () => {
          if (lost) return;
          try {
            if (!(await queue.renew(job.id, worker, leaseS))) lost = true;
          } catch {
            lost = true; // the database is gone: another worker will take the job when the lease expires
          }
        });
      }, (leaseS * 1000) / 3);
      let ctx: Loaded;
      try {
        ctx = await load(job.config, job.configJson);
      } catch (err) {
        clearInterval(timer);
        await renewing;
        const why = err instanceof Error ? err.message : String(err);
        await queue.release(job.id, worker, `worker ${worker}: ${why}`);
        record('requeued');
        throw err instanceof ConfigMismatch ? err : new Error(`cannot load configuration ${job.config}: ${why}`);
      }
      const dir = dirname(out);
      mkdirSync(dir, { recursive: true });
      const cfgFile = join(dir, 'config.json');
      if (!existsSync(cfgFile)) writeAtomic(cfgFile, `${JSON.stringify({ hash: job.config, ...job.configJson }, null, 2)}\n`);
      // Temp files of earlier attempts at this job are of no use (they are incomplete).
      const base = out.slice(dir.length + 1);
      for (const f of readdirSync(dir)) if (f.startsWith(`.${base}.tmp-`)) rmSync(join(dir, f), { force: true });
      const tmp = join(dir, `.${base}.tmp-${worker.replace(/[^A-Za-z0-9_.-]/g, '_')}`);

      const fd = openSync(tmp, 'w');
      const hash = createHash('sha256');
      let stats: EpisodeStats | undefined;
      try {
        stats = await runEpisodes(ctx.world, ctx.policy, {
          n: job.last - job.first + 1, first: job.first - 1, turns: ctx.config.turns, seed: ctx.config.seed, group: opts.group ?? 32,
          onEpisode: async (ep) => {
            if (lost) throw new LeaseLost();
            if (opts.signal?.aborted) throw new Stopped();
            const line = `${JSON.stringify(ep)}\n`;
            writeSync(fd, line);
            hash.update(line);
            if (delayMs) await sleep(delayMs);
          },
        });
        fsyncSync(fd);
        closeSync(fd);
        clearInterval(timer);
        await renewing;
        if (lost) throw new LeaseLost();
        const sum = hash.digest('hex');
        if (!(await queue.recordOutput(job.id, worker, out, sum, leaseS))) throw new LeaseLost();
        renameSync(tmp, out);
        syncDir(dir);
        if (await queue.done(job.id, worker)) {
          result.episodes += stats.episodes;
          log(`done ${label}: ${stats.episodes} episodes in ${stats.seconds.toFixed(1)} s -> ${out} (sha256 ${sum.slice(0, 16)})${stats.refused ? `; ${stats.refused} actions refused by the engine (a bug)` : ''}`);
          record('done');
        } else {
          log(`${label}: written, but the lease was lost before it was marked done; the next claim finds the file with its checksum`);
          record('lost lease');
        }
      } catch (err) {
        clearInterval(timer);
        await renewing;
        try {
          closeSync(fd);
        } catch {
          // closed already
        }
        rmSync(tmp, { force: true });
        if (err instanceof Stopped) {
          await queue.release(job.id, worker, `worker ${worker} stopped`).catch(() => {});
          log(`${label}: stopped; the job is given back (queued again)`);
          record('given back');
          result.stopped = true;
          break;
        } else if (err instanceof LeaseLost) {
          log(`${label}: lease lost (another worker has it now); stopped without writing`);
          record('lost lease');
        } else {
          const msg = err instanceof Error ? err.message : String(err);
          const state = await queue.fail(job.id, worker, msg).catch(() => null);
          if (state === null) {
            // Not this worker's job any more (its lease expired and another worker took it meanwhile).
            log(`${label}: ${msg}; and the job could not be marked failed (its lease was lost meanwhile, or the database is gone)`);
            record('lost lease');
          } else {
            log(`${label}: failed (${msg}); ${state === 'failed' ? 'no attempts left' : 'queued again'}`);
            record('failed');
          }
        }
      }
      if (opts.once) break;
    }
  } finally {
    for (const l of loaded.values()) {
      await l.policy.ranker.release().catch(() => {});
      await l.policy.pool.release().catch(() => {});
    }
    await queue.close();
  }
  result.seconds = (performance.now() - t0) / 1000;
  return result;
}

export class ConfigMismatch extends Error {}
