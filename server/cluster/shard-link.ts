/**
 * A portal's link to its world's shard over the bus (`lightmud serve --remote`): the GameLink the Host
 * talks through instead of a worker thread. Each request carries this portal's id and a request id;
 * an answer that does not come within `timeoutMs` is asked for again with the same id (the shard runs
 * a command once per id and answers a repeat with the first answer), up to `tries` times; a resend
 * names the shard first asked, and another shard refuses it (the player is told it may or may not have
 * been done) rather than run a command its dead predecessor may have committed. While no shard
 * serves the world (a standby taking over, a world moving) it asks again every 100 ms for up to
 * `noShardWaitMs`. When no shard answers (none serves the world, the bus is down, or it stays silent)
 * the call fails with HostUnavailableError at once, after those tries or after that wait, never later:
 * the player is told the world is unavailable, and the next command goes to whichever shard serves
 * the world then.
 *
 * When the world's shard is a new one (it restarted, or a standby took over), this portal sends it the
 * characters it watches again, so their states flow as before.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { BusTimeoutError, BusNoResponderError, BusUnavailableError, type Bus, type BusBody } from '../bus/bus.js';
import { HostUnavailableError } from '../host/host-unavailable.js';
import type { GameLink, GameLinkEvents, GameLinkFactory } from '../host/game-link.js';
import type { HostConfig, HostRequest } from '../host/types.js';
import { gameSubject, OPEN_SUBJECT, outSubject, parseShardNews, parseShardReply, type ShardRequest } from './subjects.js';

export interface ShardLinkOptions {
  bus: Bus;
  /** The world's name on the bus. */
  world: string;
  /** How long to wait for an answer before asking again (default 3000 ms). */
  timeoutMs?: number;
  /** How many times to ask in all after a silence (default 2). */
  tries?: number;
  /**
   * While no shard serves the world (a standby taking over, a world moving): how long to keep asking, every
   * 100 ms, before the player is told it is unavailable (default 1500 ms; 0: told at once).
   */
  noShardWaitMs?: number;
  /** When no shard serves the world: ask the shards started with --on-demand to open it (lightmud.shards.open). */
  openOnDemand?: boolean;
  /** This portal's id on the bus (default: host name, pid and a random part). */
  portal?: string;
}

export function unavailable(world: string): HostUnavailableError {
  return new HostUnavailableError(`The world "${world}" is unavailable just now (its game server does not answer); try again in a moment.`);
}

export class ShardLink implements GameLink {
  readonly kind = 'shard' as const;
  readonly loaded = Promise.resolve();
  retiring = false;
  exited = false;
  readonly portal: string;
  private nextId = 1;
  /** The shard instance that answered last (null before the first answer). */
  private shard: string | null = null;
  private watched = new Set<string>();
  private openConfig: HostConfig | null = null;
  private rejoining: Promise<unknown> | null = null;
  private readonly unsubscribe: () => void;
  private readonly timeoutMs: number;
  private readonly tries: number;
  private readonly noShardWaitMs: number;

  constructor(private opts: ShardLinkOptions, private events: GameLinkEvents) {
    this.portal = opts.portal ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.timeoutMs = opts.timeoutMs ?? 3000;
    this.tries = opts.tries ?? 2;
    this.noShardWaitMs = opts.noShardWaitMs ?? 1500;
    if (!(this.timeoutMs >= 1) || !Number.isInteger(this.tries) || this.tries < 1) throw new Error(`a shard link needs timeoutMs >= 1 and tries >= 1 (got ${this.timeoutMs}, ${this.tries})`);
    this.unsubscribe = opts.bus.subscribe(outSubject(opts.world), (body) => this.news(body));
  }

  private news(body: BusBody): void {
    const n = parseShardNews(body);
    if (!n) return this.events.onLog({ type: 'log', level: 'warn', msg: 'a message of the world\'s shard this portal does not read was dropped', data: { world: this.opts.world, kind: String(body.kind) } });
    switch (n.kind) {
      case 'started': return this.sawShard(n.shard);
      case 'states': return this.events.onStates(n.states);
      case 'log': return this.events.onLog({ type: 'log', level: n.level, msg: `shard of "${this.opts.world}": ${n.msg}`, ...(n.data ? { data: n.data } : {}) });
      case 'perceived': if (n.from !== this.portal) this.events.onPerceived(n.deliveries, n.states, n.died);
    }
  }

  /** A shard answered, or announced itself: if it is not the one this portal knew, join it again. */
  private sawShard(shard: string): void {
    if (this.shard === shard) return;
    const before = this.shard;
    this.shard = shard;
    if (before === null || !this.openConfig || this.rejoining) return;
    this.events.onLog({ type: 'log', level: 'warn', msg: 'the world is served by a new shard: this portal joins it again', data: { world: this.opts.world, watched: this.watched.size } });
    this.rejoining = this.call({ op: 'open', config: this.openConfig, watch: [...this.watched] })
      .catch((err: unknown) => this.events.onLog({ type: 'log', level: 'warn', msg: 'joining the new shard failed; the next answer tries again', data: { err: (err as Error).message } }))
      .finally(() => (this.rejoining = null));
  }

  async call<T>(req: HostRequest): Promise<T> {
    if (this.exited) throw unavailable(this.opts.world);
    if (req.op === 'open') {
      this.openConfig = req.config;
      this.watched = new Set(req.watch);
    } else if (req.op === 'watch') {
      if (req.on) this.watched.add(req.actor);
      else this.watched.delete(req.actor);
    }
    const body: ShardRequest = { portal: this.portal, id: this.nextId++, req };
    const firstAsked = this.shard;
    const subject = gameSubject(this.opts.world);
    // Whether a shard may have received it already (a silence): then it is asked again as a resend.
    let maybeReceived = false;
    let silences = 0;
    let noShardSince = 0;
    let askedToOpen = false;
    for (;;) {
      let answer: BusBody;
      try {
        const sent = maybeReceived ? { ...body, resend: { shard: firstAsked } } : body;
        answer = await this.opts.bus.request(subject, sent as unknown as BusBody, this.timeoutMs);
      } catch (err) {
        // Asked again with the same id: a command the shard ran already is not run twice.
        if (err instanceof BusTimeoutError && ++silences < this.tries) {
          maybeReceived = true;
          continue;
        }
        // Nobody serves the world this moment (nothing was delivered): a standby or the world's new shard is
        // likely taking it; ask again for a little while before telling the player.
        if (err instanceof BusNoResponderError && !this.exited) {
          if (this.opts.openOnDemand && !askedToOpen) {
            askedToOpen = true;
            if (await this.askToOpen()) continue;
          }
          const now = Date.now();
          noShardSince ||= now;
          if (now - noShardSince < this.noShardWaitMs) {
            await new Promise((r) => setTimeout(r, 100));
            continue;
          }
        }
        if (err instanceof BusTimeoutError || err instanceof BusNoResponderError || err instanceof BusUnavailableError) throw unavailable(this.opts.world);
        throw err;
      }
      const reply = parseShardReply(answer);
      if (req.op !== 'open') this.sawShard(reply.shard);
      else this.shard = reply.shard;
      if (reply.ok) return reply.result as T;
      if (reply.unavailable) throw new HostUnavailableError(reply.error);
      throw Object.assign(new Error(reply.error), { fatal: reply.fatal === true });
    }
  }

  /** Ask an on-demand shard to open the world; true once some shard serves it. */
  private async askToOpen(): Promise<boolean> {
    try {
      const r = await this.opts.bus.request(OPEN_SUBJECT, { world: this.opts.world }, 15_000);
      this.events.onLog({ type: 'log', level: 'info', msg: r.elsewhere ? 'the world is served by another shard' : 'a shard opened the world on request', data: { world: this.opts.world, ...(typeof r.shard === 'string' ? { shard: r.shard } : {}) } });
      return true;
    } catch (err) {
      this.events.onLog({ type: 'log', level: 'warn', msg: 'no shard opened the world on request', data: { world: this.opts.world, err: (err as Error).message } });
      return false;
    }
  }

  async retire(): Promise<void> {
    this.retiring = true;
    this.exited = true;
    this.unsubscribe();
  }
}

/** For Host.start's `link` option. */
export const shardLink = (opts: ShardLinkOptions): GameLinkFactory => (events) => new ShardLink(opts, events);
