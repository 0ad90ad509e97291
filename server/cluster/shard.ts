/**
 * A shard: the process that owns one world in a cluster (`lightmud shard`, issue 15). It runs the game
 * service (server/host/game-service.ts, the loop the single-process server runs in its worker thread)
 * in this process, over a channel whose other end is the bus: portals send HostRequests on the world's
 * game subject and get the answers; states, logs and what one portal's command made the others'
 * characters perceive go out on the world's out subject.
 *
 * One writer: the world is in PostgreSQL behind its advisory lock (server/store/pg-store.ts). The shard
 * serves the bus only once it holds the lock; a second shard for the world stands by until the first
 * one's connection ends (or, with `wait: false`, is refused). A shard that loses its connection, and the
 * lock with it, stops writing: the game service exits the process with code 1 at the next write, or at
 * the next health check while idle.
 *
 * A command is run once per (portal, request id) (recent-results.ts): a portal's resend after a lost
 * answer gets the first run's answer.
 */
import { randomUUID } from 'node:crypto';
import type { Bus, BusBody } from '../bus/bus.js';
import { serveGame } from '../host/game-service.js';
import type { GameChannel } from '../host/game-channel.js';
import type { AdminResult, HostConfig, HostRequest, OpenInfo, SubmitResult, WorkerMessage } from '../host/types.js';
import { RecentResults } from './recent-results.js';
import { gameSubject, outSubject, parseShardRequest, type ShardNews, type ShardReply } from './subjects.js';

export interface ShardLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface ShardOptions {
  bus: Bus;
  /** The world's name on the bus (and in PostgreSQL). */
  world: string;
  /** The game's configuration; `pg` is required: a shard's world is in PostgreSQL. */
  config: HostConfig;
  log: ShardLog;
  /** How often to check, while idle, that the world's store is still held (default 1000 ms). */
  healthMs?: number;
  /** How many answers to remember for resends (default 10,000). */
  remember?: number;
  /** While another shard holds the world: how long to wait between tries of its lock (default 250 ms; asked before each wait). */
  standbyPollMs?: () => number;
}

/** The answer to a resend that reached another shard than the first try. */
export const UNSURE = 'The world\'s game server changed while your last command was on its way; it may or may not have been done: look before you try it again.';

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };

export class Shard {
  /** This run of the shard: a portal that sees another one knows the shard restarted (and sends its watches again). */
  readonly instance = randomUUID();
  info!: OpenInfo;
  private pending = new Map<number, Pending>();
  private nextId = 1;
  private deliver: ((msg: HostRequest & { id: number }) => void) | null = null;
  private recent: RecentResults<ShardReply>;
  /** Which portals watch each character: the game computes states for a character while any does. */
  private watchers = new Map<string, Set<string>>();
  private stopServing: (() => void) | null = null;
  private health: NodeJS.Timeout | null = null;
  private closed = false;
  /** When a portal last asked anything of the world (ms since the epoch). */
  lastAsked = Date.now();

  private constructor(private opts: ShardOptions) {
    this.recent = new RecentResults(opts.remember ?? 10_000);
  }

  /** Open the world (standing by while another shard holds it, when config.pg.wait), then serve it on the bus. */
  static async start(opts: ShardOptions): Promise<Shard> {
    if (!opts.config.pg) throw new Error('a shard keeps its world in PostgreSQL: --db postgres://...');
    const shard = new Shard(opts);
    serveGame(shard.channel(), { owner: `shard ${shard.instance} pid ${process.pid}`, ...(opts.standbyPollMs ? { pollMs: opts.standbyPollMs } : {}) });
    shard.info = await shard.call<OpenInfo>({ op: 'open', config: opts.config, watch: [] });
    shard.stopServing = opts.bus.serve(gameSubject(opts.world), (body) => shard.answer(body));
    shard.publish({ kind: 'started', shard: shard.instance });
    const every = opts.healthMs ?? 1000;
    shard.health = setInterval(() => void shard.call({ op: 'health' }).catch(() => {}), every);
    shard.health.unref();
    return shard;
  }

  /** The game service's end of the channel: requests come from call(), its messages go to the callers or out on the bus. */
  private channel(): GameChannel {
    return {
      post: (m: WorkerMessage) => this.received(m),
      onRequest: (handler) => (this.deliver = handler),
      close: () => this.opts.log.error({ world: this.opts.world }, 'the game stops: a fatal error (see above); the shard exits'),
    };
  }

  private received(m: WorkerMessage): void {
    switch (m.type) {
      case 'loaded': return;
      case 'log':
        this.opts.log[m.level]({ world: this.opts.world, ...m.data }, m.msg);
        return this.publish({ kind: 'log', shard: this.instance, level: m.level, msg: m.msg, ...(m.data ? { data: m.data } : {}) });
      case 'states': return this.publish({ kind: 'states', shard: this.instance, states: m.states });
      case 'replies':
        m.ids.forEach((id, i) => this.settle(id, (p) => p.resolve(m.results[i])));
        return;
      case 'reply':
        if (m.ok) return this.settle(m.id, (p) => p.resolve(m.result));
        return this.settle(m.id, (p) => p.reject(Object.assign(new Error(m.error), { fatal: m.fatal === true, ...(m.code ? { code: m.code } : {}) })));
    }
  }

  private settle(id: number, how: (p: Pending) => void): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    how(p);
  }

  private call<T>(req: HostRequest): Promise<T> {
    const deliver = this.deliver;
    if (!deliver) return Promise.reject(new Error('the game service is not running'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      deliver({ ...req, id });
    });
  }

  private publish(news: ShardNews): void {
    this.opts.bus.publish(outSubject(this.opts.world), news as unknown as BusBody);
  }

  /** A portal's request: checked, run (commands once per request id), answered. */
  private async answer(body: BusBody): Promise<BusBody> {
    const { portal, id, req, resend } = parseShardRequest(body);
    this.lastAsked = Date.now();
    const changes = req.op === 'submit' || req.op === 'admin';
    if (changes && resend && resend.shard !== this.instance && !this.recent.has(portal, id)) {
      // First sent to another shard (one that may have run it and died before answering): not run here.
      return { shard: this.instance, ok: false, unavailable: true, error: UNSURE } satisfies ShardReply as unknown as BusBody;
    }
    const reply = changes ? this.recent.once(portal, id, () => this.run(portal, req)).result : this.run(portal, req);
    return (await reply) as unknown as BusBody;
  }

  private async run(portal: string, req: HostRequest): Promise<ShardReply> {
    try {
      return { shard: this.instance, ok: true, result: await this.perform(portal, req) };
    } catch (err) {
      return { shard: this.instance, ok: false, error: (err as Error).message, ...((err as { fatal?: boolean }).fatal ? { fatal: true } : {}) };
    }
  }

  private async perform(portal: string, req: HostRequest): Promise<unknown> {
    switch (req.op) {
      // The shard opened the world; a portal's "open" joins it, with the characters it watches.
      case 'open':
        await this.setWatches(portal, req.watch);
        return this.info;
      // A portal leaves: the world stays open for the others.
      case 'close':
        await this.setWatches(portal, []);
        return null;
      case 'watch':
        await this.watch(portal, req.actor, req.on);
        return null;
      case 'crash':
        throw new Error('a shard does not crash on request');
      case 'submit': {
        const r = await this.call<SubmitResult>(req);
        this.tellOthers(portal, r.deliveries, r.states, r.died ?? []);
        return r;
      }
      case 'admin': {
        const r = await this.call<AdminResult>(req);
        this.tellOthers(portal, r.deliveries, r.states, []);
        return r;
      }
      default:
        return this.call(req);
    }
  }

  /** The other portals route what their characters perceived of this portal's command. */
  private tellOthers(from: string, deliveries: SubmitResult['deliveries'], states: SubmitResult['states'], died: string[]): void {
    if (!deliveries.length && !Object.keys(states).length && !died.length) return;
    this.publish({ kind: 'perceived', shard: this.instance, from, deliveries, states, died });
  }

  private async setWatches(portal: string, actors: string[]): Promise<void> {
    const wanted = new Set(actors);
    for (const [actor, portals] of this.watchers) if (portals.has(portal) && !wanted.has(actor)) await this.watch(portal, actor, false);
    for (const actor of wanted) await this.watch(portal, actor, true);
  }

  private async watch(portal: string, actor: string, on: boolean): Promise<void> {
    const portals = this.watchers.get(actor) ?? new Set<string>();
    const before = portals.size;
    if (on) portals.add(portal);
    else portals.delete(portal);
    if (portals.size) this.watchers.set(actor, portals);
    else this.watchers.delete(actor);
    if ((before === 0) !== (portals.size === 0)) await this.call({ op: 'watch', actor, on: portals.size > 0 });
  }

  /** Characters some portal watches now (a portal with players in the world watches theirs). */
  get watching(): number {
    return this.watchers.size;
  }

  /** Stop answering, save the world and close its store (the lock goes with the connection). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.health) clearInterval(this.health);
    this.stopServing?.();
    await this.call({ op: 'close' });
  }
}
