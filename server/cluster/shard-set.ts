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
 */
import type { Bus, BusBody } from '../bus/bus.js';
import type { HostConfig } from '../host/types.js';
import { Shard, type ShardLog } from './shard.js';
import { controlSubject, parseReleaseRequest } from './subjects.js';

export interface ShardSetOptions {
  bus: Bus;
  worlds: string[];
  /** The game's configuration for one world (config.pg is required, with pg.world the world). */
  config: (world: string) => HostConfig;
  log: ShardLog;
  /** Wait between tries of a held world's lock, per world already served here (default 250 ms). */
  standbyBaseMs?: number;
  healthMs?: number;
}

export class ShardSet {
  private shards = new Map<string, Shard>();
  private closing = false;

  constructor(private opts: ShardSetOptions) {
    if (!opts.worlds.length) throw new Error('a shard serves at least one world');
    if (new Set(opts.worlds).size !== opts.worlds.length) throw new Error(`a world is named twice: ${opts.worlds.join(', ')}`);
  }

  /** The worlds served now (their locks held), in the order they were taken. */
  get serving(): string[] {
    return [...this.shards.keys()];
  }

  shard(world: string): Shard | undefined {
    return this.shards.get(world);
  }

  /**
   * Open every world (standing by for the held ones); `onServing` is called as each begins to serve.
   * Resolves when all serve; rejects at the first world that cannot be opened (the others are left as they are: close()).
   */
  async start(onServing: (world: string, shard: Shard) => void): Promise<void> {
    this.onServing = onServing;
    await Promise.all(this.opts.worlds.map((world) => this.open(world)));
  }

  private onServing: (world: string, shard: Shard) => void = () => {};
  private stopControl = new Map<string, () => void>();
  private holds = new Set<NodeJS.Timeout>();

  private async open(world: string): Promise<void> {
    const base = this.opts.standbyBaseMs ?? 250;
    const shard = await Shard.start({
      bus: this.opts.bus, world, log: this.opts.log, config: this.opts.config(world),
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

  /** The world's control request: let it go (saved, closed, its lock released), stand by for it again after holdMs. */
  private async release(world: string, body: BusBody): Promise<BusBody> {
    const { holdMs } = parseReleaseRequest(body);
    const shard = this.shards.get(world);
    if (!shard || this.closing) throw new Error(`this shard does not serve "${world}" now`);
    this.stopControl.get(world)?.();
    this.stopControl.delete(world);
    this.shards.delete(world);
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
