/**
 * An episode worker (issue 15, item 5): claims a job from the queue (server/store/episode-queue.ts), loads
 * its configuration's world and policy (refusing when this worker's files differ from the configuration's
 * fingerprints), plays the job's episodes and writes them to DIR/<hash>/<first>-<last>.jsonl (zero-padded to 6
 * digits): to a temp file beside it, fsynced, its checksum recorded on the job, renamed into place, then the
 * job marked done. A worker renews its lease every third of it while it plays; a renewal that finds the job no
 * longer its own (the lease expired and another worker took it) stops the job without writing. A job whose
 * output file is already there with the recorded checksum (its worker died after the rename) is marked done
 * without being played again.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { World } from '../engine/world.js';
import { loadWorld } from '../world-io/load-world.js';
import { EpisodeQueue } from '../store/episode-queue.js';
import { configHash, describeConfig, fileSha256, jobOutput, type EpisodeConfig } from './episode-config.js';
import { runEpisodes, type EpisodeStats } from './episodes.js';
import { loadPolicy } from './load.js';
import type { Policy } from './policy.js';

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
  const queue = await EpisodeQueue.connect<EpisodeConfig>(opts.url);
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
