/**
 * The queue of episode jobs on PostgreSQL (issue 15, item 5): a job is a range of episode numbers
 * [first, last] of one configuration (server/agents/episode-config.ts), kept here as opaque JSON under its hash.
 *
 * Tables (made on first use):
 *   lightmud_episode_configs (hash) -> the configuration (JSON)
 *   lightmud_episode_jobs    (id)   -> config, first_ep, last_ep (1-based, inclusive, as in the episode ids),
 *                                      state queued | running | done | failed, attempts, max_attempts, worker,
 *                                      lease_until, output, checksum (sha256 of the output file), error
 *
 * Claiming is `SELECT ... FOR UPDATE SKIP LOCKED` on a queued job or a running one whose lease has expired
 * (its worker died or hung). The worker (server/agents/episode-worker.ts) renews its lease while it plays and
 * records the output's checksum before the file is renamed into place.
 */
import pg from 'pg';
import { LOCK_CLASS } from './pg-store.js';

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

/** C: the configuration's type (the queue stores it as JSON and never reads it). */
export interface ConfigStatus<C> {
  hash: string;
  config: C;
  jobs: Record<JobState, number>;
  episodes: { total: number; done: number };
  running: Job[];
  failed: Job[];
}

export class EpisodeQueue<C extends object> {
  private constructor(readonly client: pg.Client) {}

  static async connect<C extends object>(url: string): Promise<EpisodeQueue<C>> {
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
    return new EpisodeQueue<C>(client);
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
  async enqueue(hash: string, config: C, first: number, last: number, jobSize: number, maxAttempts = 3): Promise<{ hash: string; added: Job[]; covered: number }> {
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
  async claim(worker: string, leaseS: number): Promise<(Job & { configJson: C }) | null> {
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
    return { ...toJob(r.rows[0]), configJson: JSON.parse(r.rows[0].config_json as string) as C };
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

  async status(): Promise<ConfigStatus<C>[]> {
    const configs = (await this.client.query('SELECT hash, config FROM lightmud_episode_configs ORDER BY created, hash')).rows as { hash: string; config: string }[];
    const jobs = await this.jobs();
    return configs.map(({ hash, config }) => {
      const mine = jobs.filter((j) => j.config === hash);
      const count: Record<JobState, number> = { queued: 0, running: 0, done: 0, failed: 0 };
      for (const j of mine) count[j.state]++;
      const size = (j: Job) => j.last - j.first + 1;
      return {
        hash, config: JSON.parse(config) as C, jobs: count,
        episodes: { total: mine.reduce((n, j) => n + size(j), 0), done: mine.filter((j) => j.state === 'done').reduce((n, j) => n + size(j), 0) },
        running: mine.filter((j) => j.state === 'running'), failed: mine.filter((j) => j.state === 'failed'),
      };
    });
  }
}

