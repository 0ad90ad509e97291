/**
 * The game host as the network side sees it: a handle on the host worker (server/host/worker.ts)
 * plus the table of who drives each character.
 *
 * Evennia splits a MUD into a portal (sockets) and a server (game); so does lightmud, with threads:
 * the main thread keeps every connection, the worker owns the World and the database's world tables.
 * `reloadCode()` starts a worker on the code now on disk, moves the state across through the
 * database, and swaps it in; a crashed worker is restarted the same way. Either way no connection
 * drops: commands sent meanwhile wait, then run on the new worker.
 *
 * A character is driven by at most one Driver: a human session, a model policy, a script; or by
 * nobody. `submit(characterId, text)` runs a line of input for a character; each character's
 * perception of it is routed to that character's driver, and to every `onPerception` listener.
 */
import type { CharacterState, EventSummary } from '../net/protocol.js';
import type { AgentsOptions, AgentManager } from '../agents/manager.js';
import type { AgentView, ViewOptions as AgentViewOptions } from '../agents/view.js';
import type { AdminOp, AdminResult, CharacterInfo, Delivery, HostConfig, HostRequest, OpenInfo, StorageFault, SubmitResult, WorldSummary } from './types.js';
import { cleanText } from '../net/clean-text.js';
import { HostUnavailableError } from './host-unavailable.js';
import { WorkerLink } from './worker-link.js';
import type { GameLink, GameLinkFactory } from './game-link.js';

export { HostUnavailableError } from './host-unavailable.js';
export type { GameLink, GameLinkEvents, GameLinkFactory } from './game-link.js';

export type { Driver, DriverKind, Log, PerceptionListener } from './driver.js';
import type { Driver, Log, PerceptionListener } from './driver.js';

const silent: Log = { info() {}, warn() {}, error() {} };

export class Host {
  info!: OpenInfo;
  /** Set while the database cannot be written (disk full, read-only): reads are served, actions refused. */
  storage: StorageFault | null = null;
  private link!: GameLink;
  /** Resolves to the live link; replaced by a pending promise while the worker is being replaced. */
  private gate!: Promise<GameLink>;
  private drivers = new Map<string, Driver>();
  /** Characters the worker computes states for. */
  private watched = new Set<string>();
  private listeners = new Set<PerceptionListener>();
  private crashes: number[] = [];
  private closed = false;
  private fatalHandlers = new Set<(err: Error) => void>();
  private reloading: Promise<unknown> | null = null;

  private constructor(readonly config: HostConfig, private log: Log, private makeLink: GameLinkFactory) {}

  /**
   * Open the world. `link`: where the game runs (default: a worker thread of this process; in a cluster,
   * the world's shard over the bus, server/cluster/shard-link.ts, which opened the world itself).
   */
  static async start(config: HostConfig, opts: { log?: Log; agents?: AgentsOptions | false; link?: GameLinkFactory } = {}): Promise<Host> {
    const host = new Host(config, opts.log ?? silent, opts.link ?? ((events) => new WorkerLink(events)));
    const link = host.spawn();
    await link.loaded;
    try {
      host.info = await link.call<OpenInfo>({ op: 'open', config, watch: [] });
      host.noteStorage(host.info.storage ?? null);
    } catch (err) {
      await link.retire();
      throw err;
    }
    host.link = link;
    host.gate = Promise.resolve(link);
    if (opts.agents !== false) await host.startAgents(opts.agents);
    return host;
  }

  /** Model and scripted characters (server/agents): started when the world file or `opts.drive` names any. */
  agents: AgentManager | null = null;

  /** Start the agents when the world names model or scripted characters (or `always`, for an admin's @drive). */
  async startAgents(opts: AgentsOptions | undefined, always = false): Promise<AgentManager | null> {
    if (this.agents) return this.agents;
    this.agentsStarting ??= this.launchAgents(opts, always).finally(() => (this.agentsStarting = null));
    return this.agentsStarting;
  }

  private agentsStarting: Promise<AgentManager | null> | null = null;

  private async launchAgents(opts: AgentsOptions | undefined, always: boolean): Promise<AgentManager | null> {
    const wanted = always || (await this.characters()).some((c) => c.policy === 'model' || c.policy === 'scripted') || Object.keys(opts?.drive ?? {}).length > 0;
    if (!wanted) return null;
    try {
      const { AgentManager } = await import('../agents/manager.js');
      this.agents = await AgentManager.start(this, { log: this.log, ...opts });
    } catch (err) {
      // No model (models/default not there yet, say): those characters stay idle; the game goes on.
      this.log.warn({ err: (err as Error).message }, 'model and scripted characters stay idle');
    }
    return this.agents;
  }

  /** What a model character needs to decide its turn (grounded facts, valid actions, readings of a line it heard). */
  agentView(characterId: string, opts: AgentViewOptions = {}): Promise<AgentView | null> {
    return this.call<AgentView | null>({ op: 'agentView', actor: characterId, opts });
  }

  private spawn(): GameLink {
    return this.makeLink({
      onExit: (link, code, error) => this.onExit(link, code, error),
      onStates: (states) => this.route([], states, null),
      onLog: (m) => this.log[m.level](m.data ?? {}, m.msg),
      onPerceived: (deliveries, states, died) => {
        this.route(deliveries, states, null);
        for (const id of died) this.release(id, 'You have died; your character is gone from the world. Choose another.', true);
      },
    });
  }

  /** Where the game runs: in a worker thread of this process, or in a shard reached over the bus. */
  get gameKind(): GameLink['kind'] {
    return this.link.kind;
  }

  // ---- drivers ---------------------------------------------------------------------------------

  driverOf(characterId: string): Driver | undefined {
    return this.drivers.get(characterId);
  }

  /** Give a character to a driver; throws if another driver has it. */
  attach(characterId: string, driver: Driver): void {
    const current = this.drivers.get(characterId);
    if (current && current !== driver) throw new Error(`${characterId} is already driven`);
    this.drivers.set(characterId, driver);
    this.refreshWatch(characterId);
  }

  /** Release a character (if `driver` still drives it). */
  detach(characterId: string, driver: Driver): void {
    if (this.drivers.get(characterId) !== driver) return;
    this.drivers.delete(characterId);
    this.refreshWatch(characterId);
  }

  /** Tell the host whether to compute states for a character (call when its driver's wantsState changes). */
  refreshWatch(characterId: string): void {
    const on = this.drivers.get(characterId)?.wantsState ?? false;
    if (on === this.watched.has(characterId)) return;
    if (on) this.watched.add(characterId);
    else this.watched.delete(characterId);
    void this.call({ op: 'watch', actor: characterId, on }).catch(() => {});
  }

  /** Take a character from whoever drives it, telling them why. */
  release(characterId: string, reason: string, rechoose = false): boolean {
    const d = this.drivers.get(characterId);
    if (!d) return false;
    this.detach(characterId, d);
    d.detached(reason, rechoose);
    return true;
  }

  drivenCharacters(): string[] {
    return [...this.drivers.keys()];
  }

  /** Observe every perception of every character (for logging, model policies, tests). Returns an unsubscribe function. */
  onPerception(listener: PerceptionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Called when the host cannot keep a worker running; the server should shut down. */
  onFatal(handler: (err: Error) => void): void {
    this.fatalHandlers.add(handler);
  }

  // ---- game ------------------------------------------------------------------------------------

  /** Run one line of input for a character. Resolves once the command is durable. */
  async submit(characterId: string, input: string, account: string | null = null, opts: { validOnly?: boolean; cause?: string } = {}): Promise<SubmitResult> {
    // Whoever drives the character (a player, a model, a script, an outside agent): no bidi overrides or invisible characters.
    const text = cleanText(input);
    const cause = opts.cause ?? this.causeOf(characterId);
    const r = await this.call<SubmitResult>(opts.validOnly ? { op: 'submit', actor: characterId, text, account, cause, validOnly: true } : { op: 'submit', actor: characterId, text, account, cause });
    if (r.storage !== undefined) this.noteStorage(r.storage);
    for (const l of this.listeners) l(characterId, r.text, null);
    this.route(r.deliveries, r.states, characterId);
    // The dead leave play as characters a world reload drops do: their drivers are told and let go.
    for (const id of r.died ?? []) this.release(id, 'You have died; your character is gone from the world. Choose another.', true);
    const own = r.states[characterId];
    if (own) this.annotate(own);
    return r;
  }

  /** Provenance of a command for this character, from its driver: human, model, script, agent:NAME; null when nobody drives it. */
  causeOf(characterId: string): string | null {
    const d = this.drivers.get(characterId);
    if (!d) return null;
    return d.causeName ? `${d.kind}:${d.causeName}` : d.kind;
  }

  async state(characterId: string): Promise<CharacterState | null> {
    const s = await this.call<CharacterState | null>({ op: 'state', actor: characterId });
    return s ? this.annotate(s) : null;
  }

  look(characterId: string): Promise<string> {
    return this.call<string>({ op: 'look', actor: characterId });
  }

  characters(): Promise<CharacterInfo[]> {
    return this.call<CharacterInfo[]>({ op: 'characters' });
  }

  async freeCharacters(): Promise<CharacterInfo[]> {
    return (await this.characters()).filter((c) => !this.drivers.has(c.id));
  }

  summary(): Promise<WorldSummary> {
    return this.call<WorldSummary>({ op: 'summary' });
  }

  async admin(op: AdminOp, account: string | null, opts: { cause?: string } = {}): Promise<AdminResult> {
    const cause = opts.cause ?? this.causeOf(op.actor);
    const r = await this.call<AdminResult>({ op: 'admin', admin: op, account, cause });
    if (r.storage !== undefined) this.noteStorage(r.storage);
    if (op.op === 'reloadWorld') this.info = { ...this.info, counts: (await this.summary()).counts };
    this.route(r.deliveries, r.states, op.actor);
    for (const id of r.removed ?? []) this.release(id, 'Your character is not in the reloaded world; choose another.', true);
    for (const id of r.relocated ?? []) {
      const d = this.drivers.get(id);
      if (!d?.arrive) continue;
      const [look, state] = await Promise.all([this.look(id), d.wantsState ? this.state(id) : Promise.resolve(null)]);
      // The driver may have changed while we waited.
      if (this.drivers.get(id) === d) d.arrive(look, state);
    }
    return r;
  }

  private route(deliveries: Delivery[], states: Record<string, CharacterState>, actor: string | null): void {
    for (const d of deliveries) {
      this.drivers.get(d.character)?.perceive(d.text, d.event);
      for (const l of this.listeners) l(d.character, d.text, d.event);
    }
    for (const [id, s] of Object.entries(states)) {
      if (id === actor) continue;
      const driver = this.drivers.get(id);
      if (driver?.state) driver.state(this.annotate(s));
    }
  }

  private annotate(s: CharacterState): CharacterState {
    for (const p of s.people) {
      const kind = this.drivers.get(p.id)?.kind ?? null;
      p.player = kind === 'human';
      p.driver = kind;
    }
    return s;
  }

  private async call<T>(req: HostRequest): Promise<T> {
    if (this.closed) throw new HostUnavailableError('The server is shutting down.');
    const link = await this.gate;
    return link.call<T>(req);
  }

  // ---- reload, crash, close --------------------------------------------------------------------

  /**
   * Reload the game code: start a worker on the code now on disk; once it has loaded, the old worker
   * finishes the commands it has, saves and closes the database, and the new one opens it.
   * If the new code fails to load, the old worker carries on and the error is thrown.
   */
  async reloadCode(): Promise<{ ms: number; info: OpenInfo }> {
    if (this.reloading) throw new Error('A reload is already in progress.');
    if (this.link.kind === 'shard') throw new Error('This server plays a world whose game runs in a shard (lightmud shard): restart the shard to load new game code.');
    const t0 = performance.now();
    const run = (async () => {
      const fresh = this.spawn();
      fresh.retiring = true; // not ours until it takes over
      try {
        await fresh.loaded;
      } catch (err) {
        await fresh.retire();
        throw new Error(`the new game code failed to load, so the old code keeps running: ${(err as Error).message}`);
      }
      const old = await this.gate;
      let swap!: (l: GameLink) => void;
      this.gate = new Promise((resolve) => (swap = resolve));
      try {
        await old.call({ op: 'close' });
      } catch (err) {
        swap(old);
        await fresh.retire();
        throw err;
      }
      const watch = [...this.watched];
      try {
        this.info = await fresh.call<OpenInfo>({ op: 'open', config: this.openConfig(), watch });
        this.noteStorage(this.info.storage ?? null);
      } catch (err) {
        await fresh.retire();
        try {
          this.info = await old.call<OpenInfo>({ op: 'open', config: this.openConfig(), watch });
        } catch (again) {
          // Neither worker can open the world (on PostgreSQL: another server took the world's lock in between):
          // this server cannot serve it any more. Waiting calls fail instead of waiting forever.
          swap(old);
          const lost = new Error(`the world could not be opened again after the reload: ${(again as Error).message}`);
          for (const h of this.fatalHandlers) h(lost);
          throw lost;
        }
        this.noteStorage(this.info.storage ?? null);
        swap(old);
        throw new Error(`the new game code failed to open the world, so the old code keeps running: ${(err as Error).message}`);
      }
      fresh.retiring = false;
      this.link = fresh;
      swap(fresh);
      await old.retire();
      return { ms: performance.now() - t0, info: this.info };
    })();
    this.reloading = run;
    try {
      return await run;
    } finally {
      this.reloading = null;
    }
  }

  /**
   * After the first open, always restore from the database (never re-seed, never --fresh again). On
   * PostgreSQL a restart or reload never stands by for the world's lock: if another server has taken the
   * world meanwhile, this one has lost it and stops (onFatal) rather than wait with its players connected.
   */
  private openConfig(): HostConfig {
    const { fresh: _fresh, ...rest } = this.config;
    if (rest.pg) rest.pg = { ...rest.pg, wait: false };
    return rest;
  }

  /** For tests: make the worker die as if the game code had crashed. */
  async crashForTest(): Promise<void> {
    const link = await this.gate;
    if (!(link instanceof WorkerLink)) throw new Error('crashForTest needs a worker thread');
    void link.call({ op: 'crash' }).catch(() => {});
    await new Promise<void>((resolve) => link.worker.once('exit', () => resolve()));
  }

  private onExit(link: GameLink, code: number, error: Error | null): void {
    if (link.retiring || this.closed || link !== this.link) return;
    const now = Date.now();
    this.crashes = this.crashes.filter((t) => now - t < 60_000);
    this.crashes.push(now);
    this.log.error({ code, err: error?.message }, 'the game host worker died; restarting it from the database');
    if (this.crashes.length > 5) {
      const err = new Error(`the game host worker died ${this.crashes.length} times in a minute; giving up`);
      for (const h of this.fatalHandlers) h(err);
      return;
    }
    let swap!: (l: GameLink) => void;
    this.gate = new Promise((resolve) => (swap = resolve));
    const restart = async (): Promise<void> => {
      const fresh = this.spawn();
      try {
        await fresh.loaded;
        const watch = [...this.watched];
        this.info = await fresh.call<OpenInfo>({ op: 'open', config: this.openConfig(), watch });
        this.noteStorage(this.info.storage ?? null);
        this.link = fresh;
        swap(fresh);
        this.log.info({ replayed: this.info.replayed, seq: this.info.seq }, 'the game host worker restarted');
      } catch (err) {
        fresh.retiring = true;
        await fresh.retire();
        // Calls waiting for the worker now fail (the worker has exited) instead of waiting forever.
        swap(fresh);
        for (const h of this.fatalHandlers) h(err as Error);
      }
    };
    void restart();
  }

  /** The worker found the database writable, or not (from each command's result, and at each open). */
  noteStorage(fault: StorageFault | null): void {
    if (fault && !this.storage) this.log.error({ code: fault.code, err: fault.message }, 'the database cannot be written: serving reads, refusing actions until it can');
    else if (!fault && this.storage) this.log.warn({ code: this.storage.code, seconds: Math.round((Date.now() - this.storage.since) / 1000) }, 'the database can be written again');
    this.storage = fault;
  }

  /** Save the world and stop the worker. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.agents?.close().catch(() => {});
    if (this.reloading) await this.reloading.catch(() => {});
    const link = await this.gate;
    this.closed = true;
    try {
      await link.call({ op: 'close' });
    } finally {
      await link.retire();
    }
  }
}
