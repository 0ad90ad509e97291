/**
 * The worlds one shard process serves (`lightmud shard --world-id a,b,c`): one Shard a world, each with
 * its own game service and its own PostgreSQL connection holding that world's lock. Each world is
 * taken independently: served at once when free, stood by for while another shard holds it, and taken
 * over when that shard's connection ends. So two shards started with the same worlds split nothing on
 * purpose, but every world always has one writer and moves to a live shard within about a second of
 * its writer dying.
 *
 * Spreading: a world left free goes to whichever standing-by shard tries its lock first, and a shard
 * that already serves more worlds waits longer between tries (base x (1 + worlds served)), so the
 * worlds of a dead shard go mostly to the least loaded of the others.
 *
 * Moving a world on purpose (lightmud shard --move): the writer is asked on the world's control
 * subject to let it go; it saves and closes the world (the lock goes with its connection), answers,
 * and stays away from it for `holdMs` while a standby takes it; then it stands by for it again (and
 * takes it back if nobody else did).
 *
 * Worlds on demand (`--on-demand`): the shard also answers requests on lightmud.shards.open, as one of
 * the queue group of on-demand shards (each request goes to one of them): it opens the world named
 * from its world file, or from where the database left it, and serves it. Such a world is reclaimed
 * (saved, closed, its lock released) when no portal has asked anything of it for `reclaimIdleMs` and
 * none watches a character in it; a portal started with --on-demand asks for it again when it next
 * finds nobody serving it. (A portal killed without closing keeps its watches: its worlds are not
 * reclaimed until the shard restarts.)
 */
import type { Bus, BusBody } from '../bus/bus.js';
import type { HostConfig } from '../host/types.js';
import { Shard, type ShardLog } from './shard.js';
import { controlSubject, OPEN_QUEUE, OPEN_SUBJECT, parseOpenWorldRequest, parseReleaseRequest, type OpenWorldReply } from './subjects.js';

export interface ShardSetOptions {
  bus: Bus;
  worlds: string[];
  /** The game's configuration for one world (config.pg is required, with pg.world the world). */
  config: (world: string) => HostConfig;
  log: ShardLog;
  /** Wait between tries of a held world's lock, per world already served here (default 250 ms). */
  standbyBaseMs?: number;
  healthMs?: number;
  /** Open worlds on request (lightmud.shards.open) and reclaim them when idle for reclaimIdleMs (checked every checkMs, default a fifth of it, at most 5 s). */
  onDemand?: { reclaimIdleMs: number; checkMs?: number };
}

export class ShardSet {
  private shards = new Map<string, Shard>();
  private closing = false;
  private onServing: (world: string, shard: Shard) => void = () => {};
  /** Each served world's control subject (--move), by world. */
  private stopControl = new Map<string, () => void>();
  /** Worlds let go on purpose, waiting out their hold before this shard stands by for them again. */
  private holds = new Set<NodeJS.Timeout>();
  /** Worlds opened on request (reclaimed when idle), and those being opened now. */
  private onDemand = new Set<string>();
  private opening = new Map<string, Promise<BusBody>>();
  private stopOpen: (() => void) | null = null;
  private reclaimTimer: NodeJS.Timeout | null = null;

  constructor(private opts: ShardSetOptions) {
    if (!opts.worlds.length && !opts.onDemand) throw new Error('a shard serves at least one world, or worlds on demand');
    if (new Set(opts.worlds).size !== opts.worlds.length) throw new Error(`a world is named twice: ${opts.worlds.join(', ')}`);
  }

  /** The worlds served now (their locks held), in the order they were taken. */
  get serving(): string[] {
    return [...this.shards.keys()];
  }

  /**
   * Open every world (standing by for the held ones); `onServing` is called as each begins to serve.
   * Resolves when all serve; rejects at the first world that cannot be opened (the others are left as they are: close()).
   */
  async start(onServing: (world: string, shard: Shard) => void): Promise<void> {
    this.onServing = onServing;
    const demand = this.opts.onDemand;
    if (demand) {
      this.stopOpen = this.opts.bus.serve(OPEN_SUBJECT, (body) => this.openOnDemand(body), { queue: OPEN_QUEUE });
      this.reclaimTimer = setInterval(() => void this.reclaim(demand.reclaimIdleMs), demand.checkMs ?? Math.min(5000, Math.max(50, demand.reclaimIdleMs / 5)));
      this.reclaimTimer.unref();
    }
    await Promise.all(this.opts.worlds.map((world) => this.open(world)));
  }

  private openOnDemand(body: BusBody): Promise<BusBody> {
    const { world } = parseOpenWorldRequest(body);
    if (this.closing) return Promise.reject(new Error('this shard is stopping'));
    const served = this.shards.get(world);
    if (served) return Promise.resolve({ world, shard: served.instance, opened: false } satisfies OpenWorldReply);
    let p = this.opening.get(world);
    if (!p) {
      p = (async (): Promise<BusBody> => {
        const config = this.opts.config(world);
        try {
          // Never fresh, never standing by: a world another shard holds is served there.
          await this.open(world, { ...config, fresh: false, pg: { ...config.pg!, wait: false } });
        } catch (err) {
          if ((err as { code?: string }).code === 'LIGHTMUD_WORLD_LOCKED') return { world, elsewhere: true } satisfies OpenWorldReply;
          throw err;
        }
        const shard = this.shards.get(world);
        if (!shard) throw new Error(`"${world}" could not be opened here (the shard is stopping)`);
        this.onDemand.add(world);
        return { world, shard: shard.instance, opened: true } satisfies OpenWorldReply;
      })().finally(() => this.opening.delete(world));
      this.opening.set(world, p);
    }
    return p;
  }

  /** Close the worlds opened on request that nobody asked anything of for idleMs and nobody watches. */
  private async reclaim(idleMs: number): Promise<void> {
    const now = Date.now();
    for (const world of [...this.onDemand]) {
      const shard = this.shards.get(world);
      if (!shard) {
        this.onDemand.delete(world);
        continue;
      }
      if (shard.watching > 0 || now - shard.lastAsked < idleMs || this.closing) continue;
      this.onDemand.delete(world);
      this.letGo(world);
      try {
        await shard.close();
        this.opts.log.info({ world, shard: shard.instance, idleMs: now - shard.lastAsked }, 'reclaimed an idle world (saved and closed; opened again on request)');
      } catch (err) {
        this.opts.log.error({ world, err: (err as Error).message }, 'reclaiming an idle world failed');
      }
    }
  }

  private async open(world: string, config = this.opts.config(world)): Promise<void> {
    const base = this.opts.standbyBaseMs ?? 250;
    const shard = await Shard.start({
      bus: this.opts.bus, world, log: this.opts.log, config,
      standbyPollMs: () => base * (1 + this.shards.size),
      ...(this.opts.healthMs ? { healthMs: this.opts.healthMs } : {}),
    });
    if (this.closing) {
      await shard.close();
      return;
    }
    this.shards.set(world, shard);
    this.stopControl.set(world, this.opts.bus.serve(controlSubject(world), (body) => this.release(world, body)));
    this.onServing(world, shard);
  }

  /** Forget `world` here (no longer counted as served, no more control requests): its Shard, for the caller to close. */
  private letGo(world: string): Shard | undefined {
    const shard = this.shards.get(world);
    this.shards.delete(world);
    this.stopControl.get(world)?.();
    this.stopControl.delete(world);
    return shard;
  }

  /** The world's control request: let it go (saved, closed, its lock released), stand by for it again after holdMs. */
  private async release(world: string, body: BusBody): Promise<BusBody> {
    const { holdMs } = parseReleaseRequest(body);
    const shard = this.closing ? undefined : this.letGo(world);
    if (!shard) throw new Error(`this shard does not serve "${world}" now`);
    const t0 = performance.now();
    await shard.close();
    const ms = Math.round(performance.now() - t0);
    this.opts.log.info({ world, shard: shard.instance, closeMs: ms, holdMs }, 'let the world go (moved on purpose); standing by for it again after the hold');
    const hold = setTimeout(() => {
      this.holds.delete(hold);
      if (this.closing) return;
      this.open(world).catch((err: unknown) => this.opts.log.error({ world, err: (err as Error).message }, 'standing by again for a world let go failed'));
    }, holdMs);
    this.holds.add(hold);
    return { released: true, world, shard: shard.instance, closeMs: ms };
  }

  /** Save and close every world served here (their locks go with their connections). */
  async close(): Promise<void> {
    this.closing = true;
    this.stopOpen?.();
    if (this.reclaimTimer) clearInterval(this.reclaimTimer);
    await Promise.allSettled([...this.opening.values()]);
    for (const h of this.holds) clearTimeout(h);
    for (const stop of this.stopControl.values()) stop();
    this.stopControl.clear();
    const errors: Error[] = [];
    for (const [world, shard] of this.shards) {
      try {
        await shard.close();
      } catch (err) {
        errors.push(new Error(`${world}: ${(err as Error).message}`));
      }
    }
    this.shards.clear();
    if (errors.length) throw new Error(errors.map((e) => e.message).join('; '));
  }
}
