/**
 * The game host: owns the live World, runs every command through the engine, commits it to the
 * event log before returning (a periodic snapshot, when due, is its own write after the commit), and
 * says who perceived what.
 * Synchronous and transport-free; it runs inside the host worker (server/host/worker.ts), and tests
 * can use it directly.
 */
import { resolve as resolvePath } from 'node:path';
import { World, execute, look, validActions, type GameEvent, type NodeId, type ObjectNode } from '../engine/index.js';
import { DEFAULT_WORLD, loadWorld } from '../world-io/load-world.js';
import { describeStorageFault, openDb, type Db } from '../store/db.js';
import { WalCheckpointer } from '../store/wal-checkpointer.js';
import type { NewEvent } from '../store/world-store.js';
import { SqliteStore, type GameStore, type WorldWrite } from '../store/store.js';
import type { CharacterState, EventSummary, ObjectView } from '../net/protocol.js';
import { StateCache } from './state-cache.js';
import { agentView, type AgentView, type ViewOptions } from '../agents/view.js';
import type { AdminOp, AdminResult, CharacterInfo, Delivery, HostConfig, OpenInfo, StorageFault, SubmitResult, WorldCounts, WorldSummary } from './types.js';
import { parse } from '../engine/parser.js';
import { sanitiseInput } from '../engine/index.js';
import { build, type BuildVerb } from './build.js';

export const DEFAULT_SNAPSHOT_EVERY = 5000;

/**
 * A value now (the SQLite store writes synchronously) or later (PostgreSQL). The host's write paths
 * are written once with these two helpers: on SQLite they run synchronously, exactly as before the
 * store interface, and the sync methods (submit, commit, admin, save, close, open) return plain values;
 * on PostgreSQL the *Async methods return promises that resolve after the commit.
 */
type Maybe<T> = T | Promise<T>;
const then = <T, U>(v: Maybe<T>, f: (t: T) => Maybe<U>): Maybe<U> => (v instanceof Promise ? v.then(f) : f(v));
function attempt<T>(fn: () => Maybe<T>, onError: (err: unknown) => Maybe<T>): Maybe<T> {
  let v: Maybe<T>;
  try {
    v = fn();
  } catch (err) {
    return onError(err);
  }
  return v instanceof Promise ? v.catch(onError) : v;
}
function now<T>(v: Maybe<T>): T {
  if (v instanceof Promise) throw new Error('this store writes asynchronously (PostgreSQL): use the *Async methods of GameHost');
  return v;
}

/** While the database cannot be written: commands that only read the world (run, not logged). */
const READS = new Set(['look', 'examine', 'inventory', 'score', 'health', 'help', 'incomplete', 'unknown']);
/** While the database cannot be written: how often a command that writes is tried again. */
export const STORAGE_RETRY_MS = 5000;


/** Event types that change nothing in the world graph. */
const QUIET = new Set(['say', 'tell', 'whisper', 'shout', 'emote', 'examine']);

const summarise = (e: GameEvent): EventSummary => {
  const s: EventSummary = { type: e.type, actor: e.actor };
  if (e.target) s.target = e.target;
  if (e.object) s.object = e.object;
  if (e.container) s.container = e.container;
  if (e.action) s.action = e.action;
  return s;
};

const article = (n: { name: string; prefix?: string }) => (n.prefix === '' ? n.name : `${n.prefix || (/^[aeiou]/i.test(n.name) ? 'an' : 'a')} ${n.name}`);
const definite = (n: { name: string; prefix?: string }) => (n.prefix === '' ? n.name : `the ${n.name}`);
const cap = (s: string) => (s ? s[0]!.toUpperCase() + s.slice(1) : s);

/** Find a node of one kind by id, exact name, or unique partial name (case-insensitive). */
function findNode<T extends { id: string; name: string }>(nodes: T[], query: string): { ok: true; node: T } | { ok: false; message: string } {
  const q = query.trim().toLowerCase();
  if (!q) return { ok: false, message: 'Name one.' };
  const byId = nodes.find((n) => n.id.toLowerCase() === q);
  if (byId) return { ok: true, node: byId };
  const exact = nodes.filter((n) => n.name.toLowerCase() === q);
  if (exact.length === 1) return { ok: true, node: exact[0]! };
  const partial = exact.length ? exact : nodes.filter((n) => n.name.toLowerCase().includes(q));
  if (partial.length === 1) return { ok: true, node: partial[0]! };
  if (partial.length > 1) return { ok: false, message: `"${query}" could be ${partial.slice(0, 6).map((n) => `${n.name} (${n.id})`).join(', ')}${partial.length > 6 ? ', ...' : ''}; use the id.` };
  return { ok: false, message: `Nothing called "${query}".` };
}

/** How a PostgreSQL world's store behaves while another server holds the world (PgStore's options of the same names). */
export interface StandbyOptions {
  onWait?: (holder: string) => void;
  pollMs?: number | (() => number);
  owner?: string;
}

/** An executed command waiting for its commit; row null: not logged (a read while the database cannot be written, or a refusal). */
interface PendingCommand {
  row: NewEvent | null;
  result: SubmitResult;
}

export class GameHost {
  world: World;
  /** Where the world is kept: the SQLite file (SqliteStore) or PostgreSQL (PgStore). */
  readonly store: GameStore;
  /** Characters whose state the network side wants after each change. */
  readonly watched = new Set<string>();
  private sinceSnapshot = 0;
  private readonly snapshotEvery: number;
  /** Executed commands waiting for commit(); row null: not logged (a read while the database cannot be written, or a refusal). */
  private pending: PendingCommand[] = [];
  /** Set while the database cannot be written: commands that write are refused, reads are served. */
  storageFault: StorageFault | null = null;
  private storageRetryAt = 0;
  /** How often a write is tried again while the database cannot be written (HostConfig.storageRetryMs). */
  storageRetryMs = STORAGE_RETRY_MS;
  /** Whether a command since the last commit changed the world (not only speech or emotes). */
  private changed = false;
  /**
   * States by character. Valid actions depend only on the character's room and what it holds, so a
   * state stays true until something other than speech happens in that room (see invalidate()).
   * validActions is the costly part of a state (milliseconds for a character holding many things).
   */
  private stateCache = new StateCache();

  private constructor(
    store: GameStore,
    world: World,
    readonly source: string,
    readonly info: OpenInfo,
    snapshotEvery: number,
  ) {
    this.world = world;
    this.store = store;
    this.snapshotEvery = snapshotEvery;
    this.sinceSnapshot = info.replayed;
  }

  /** The SQLite connection of a host on SQLite (tests and tools poke at it); throws on PostgreSQL. */
  get db(): Db {
    if (this.store instanceof SqliteStore) return this.store.db;
    throw new Error(`the game host keeps its world in ${this.store.name}, not in SQLite`);
  }

  /** Open the SQLite database and bring back the last state: the newest snapshot plus the commands logged after it. */
  static open(config: HostConfig): GameHost {
    if (config.pg) throw new Error('GameHost.open opens SQLite; use GameHost.openAsync for PostgreSQL');
    const store = GameHost.openSqlite(config);
    try {
      return now(GameHost.restore(store, config));
    } catch (err) {
      store.close();
      throw err;
    }
  }

  /** Open either store (PostgreSQL when config.pg is set: its lock taken, or waited for when config.pg.wait) and bring back the last state. */
  static async openAsync(config: HostConfig, opts: StandbyOptions = {}): Promise<GameHost> {
    if (!config.pg) return GameHost.open(config);
    // Loaded only for PostgreSQL: a server on SQLite never loads pg.
    const { PgStore } = await import('../store/pg-store.js');
    const store = await PgStore.open({ url: config.pg.url, world: config.pg.world, wait: config.pg.wait, ...opts });
    try {
      return await GameHost.restore(store, config);
    } catch (err) {
      await store.close();
      throw err;
    }
  }

  private static openSqlite(config: HostConfig): SqliteStore {
    const db = openDb(config.db, { sync: config.sync ?? 'full' });
    try {
      if (config.maxDbBytes && config.maxDbBytes > 0) {
        const pageSize = db.pragma('page_size', { simple: true }) as number;
        db.pragma(`max_page_count = ${Math.max(1, Math.floor(config.maxDbBytes / pageSize))}`);
      }
    } catch (err) {
      db.close();
      throw err;
    }
    const checkpointer = config.checkpointThread && !db.memory ? new WalCheckpointer(db, { sync: config.sync ?? 'full' }) : null;
    return new SqliteStore(db, checkpointer);
  }

  private static restore(store: GameStore, config: HostConfig): Maybe<GameHost> {
    const savedSource = store.getMeta('world.source');
    const given = config.world ? resolvePath(config.world) : undefined;
    const snap = config.fresh ? null : store.latestSnapshot();
    const snapshotEvery = config.snapshotEvery ?? DEFAULT_SNAPSHOT_EVERY;
    if (snap && given && savedSource && given !== savedSource) {
      const where = store.kind === 'sqlite' ? config.db : store.name;
      throw new Error(`${where} holds the world from ${savedSource}, not ${given}: pass --fresh to start ${given} anew (accounts are kept), or use another --db`);
    }
    if (!snap) {
      const source = given ?? savedSource ?? DEFAULT_WORLD;
      const loaded = loadWorld(source, { seed: config.seed ?? 1 });
      const world = new World(loaded.state);
      const seq = store.lastSeq();
      const written = store.write({ snapshot: { state: world.toJSON(), reason: config.fresh ? 'fresh' : 'seed' }, meta: { 'world.source': source, 'world.title': world.title } });
      return then(written, () => {
        const seeded = new GameHost(store, world, source, { title: world.title, source, restored: 'seeded', replayed: 0, diverged: 0, seq, counts: counts(world) }, snapshotEvery);
        seeded.storageRetryMs = config.storageRetryMs ?? STORAGE_RETRY_MS;
        return seeded;
      });
    }
    const { world, replayed, diverged, seq } = GameHost.replay(store);
    const source = savedSource ?? given ?? DEFAULT_WORLD;
    const host = new GameHost(store, world, source, { title: world.title, source, restored: 'snapshot', replayed, diverged, seq, counts: counts(world) }, snapshotEvery);
    host.storageRetryMs = config.storageRetryMs ?? STORAGE_RETRY_MS;
    if (!replayed) return host;
    return then(
      attempt<unknown>(() => host.saveStep('recovered'), (err) => {
        // The state is restored, in memory; the database cannot be written: serve reads, refuse actions.
        if (!store.isStorageError(err)) throw err;
        host.storageFault = { code: err.code, message: err.message, since: Date.now() };
        host.storageRetryAt = Date.now() + host.storageRetryMs;
        host.info.storage = host.storageFault;
        return null;
      }),
      () => host,
    );
  }

  /** The state the database holds: the newest snapshot and the commands logged after it, replayed. */
  static replay(store: Pick<GameStore, 'latestSnapshot' | 'commandsAfter'>): { world: World; replayed: number; diverged: number; seq: number } {
    const snap = store.latestSnapshot();
    if (!snap) throw new Error('the database holds no snapshot');
    const world = new World(snap.state);
    let replayed = 0;
    let diverged = 0;
    let seq = snap.seq;
    for (const cmd of store.commandsAfter(snap.seq)) {
      seq = cmd.seq;
      if (cmd.kind !== 'command') continue;
      const out = execute(world, cmd.actor, cmd.input);
      replayed++;
      if (out.text !== cmd.text) diverged++;
    }
    return { world, replayed, diverged, seq };
  }

  // ---- commands --------------------------------------------------------------------------------

  /** Execute one line of a character's input; durable when this returns. SQLite only (see submitAsync). */
  submit(actor: NodeId, text: string, account: string | null = null, cause: string | null = null): SubmitResult {
    this.needSync();
    this.prepare(actor, text, account, cause);
    const result = this.commit().pop()!;
    this.snapshotIfDue();
    // Called directly (tests, benches), the result carries the observers' states too; the actor's own wins.
    Object.assign(result.states, this.observerStates(), { ...result.states });
    return result;
  }

  /** submit() on either store: resolves once the command is durable (and a periodic snapshot due after it is written). */
  async submitAsync(actor: NodeId, text: string, account: string | null = null, cause: string | null = null): Promise<SubmitResult> {
    this.prepare(actor, text, account, cause);
    const result = (await this.commitStep()).pop()!;
    await this.snapshotStep();
    Object.assign(result.states, this.observerStates(), { ...result.states });
    return result;
  }

  private needSync(): void {
    if (!this.store.sync) throw new Error(`the game host writes ${this.store.name} asynchronously: use the *Async methods`);
  }

  /**
   * Execute a command now and hold its log row for `commit()`. The network side must not hear of
   * the result before the commit: the worker collects the commands that arrive together, executes
   * them in order, and commits them in one transaction (one fsync for the group).
   */
  prepare(actor: NodeId, text: string, account: string | null = null, cause: string | null = null): void {
    if (this.storageFault) {
      // Reads are served from memory and not logged; a command that writes is refused, except one every
      // STORAGE_RETRY_MS, which is tried for real (its commit clears the fault, or reverts and refuses it).
      if (READS.has(parse(sanitiseInput(text)).kind)) {
        const out = execute(this.world, actor, text);
        this.pending.push({ row: null, result: { seq: 0, ok: out.ok, text: out.text, deliveries: [], states: this.statesFor([actor]) } });
        return;
      }
      if (Date.now() < this.storageRetryAt) {
        this.pending.push({ row: null, result: this.storageRefusal(actor) });
        return;
      }
      this.storageRetryAt = Date.now() + this.storageRetryMs;
    }
    const outcome = execute(this.world, actor, text);
    if (this.invalidate(outcome.events)) this.changed = true;
    const deliveries = this.deliveries(outcome.events, actor);
    // The actor's state now, exactly after its command; the observers' once the batch is done (commit).
    const result: SubmitResult = { seq: 0, ok: outcome.ok, text: outcome.text, deliveries, states: this.statesFor([actor]) };
    if (outcome.failed) result.failed = outcome.failed;
    if (outcome.action) result.action = outcome.action;
    const died = outcome.events.filter((e) => e.type === 'death').map((e) => e.actor);
    if (died.length) result.died = died;
    // `again` is logged as the command it ran, so a replay from a snapshot does the same
    this.pending.push({ row: { time: Date.now(), actor, kind: 'command', input: outcome.input ?? text, ok: outcome.ok, text: outcome.text, events: outcome.events, account, cause }, result });
  }

  /**
   * Commit every prepared command in one transaction; returns their results in order, each with its
   * actor's state. The watched characters that perceived a change are noted for observerStates()
   * (and a periodic snapshot, when one comes due, for snapshotIfDue() / snapshotStep()).
   * SQLite only; commitAsync() on either store.
   */
  commit(): SubmitResult[] {
    return now(this.commitStep());
  }

  /** commit() on either store: resolves once the group is durable (PostgreSQL: after its COMMIT). */
  async commitAsync(): Promise<SubmitResult[]> {
    return this.commitStep();
  }

  /** commit(), synchronous on SQLite, a promise on PostgreSQL (the worker takes either). */
  commitStep(): Maybe<SubmitResult[]> {
    const batch = this.pending;
    if (!batch.length) return [];
    this.pending = [];
    const writes = batch.filter((p) => p.row !== null);
    if (!writes.length) return this.committed(batch);
    // Only the commands' rows: the periodic snapshot is its own write after them (snapshotStep()).
    const w: WorldWrite = { events: writes.map((p) => p.row!) };
    if (this.store.sync) {
      // SQLite: the hot path, without promises or closures (as before the store interface).
      let seqs: number[];
      try {
        seqs = this.store.write(w) as number[];
      } catch (err) {
        return this.notCommitted(batch, writes, err);
      }
      return this.written(batch, writes, seqs);
    }
    return (this.store.write(w) as Promise<number[]>).then((seqs) => this.written(batch, writes, seqs), (err: unknown) => this.notCommitted(batch, writes, err));
  }

  private written(batch: PendingCommand[], writes: PendingCommand[], seqs: number[]): SubmitResult[] {
    for (let i = 0; i < writes.length; i++) writes[i]!.result.seq = seqs[i]!;
    this.sinceSnapshot += writes.length;
    this.storageFault = null;
    return this.committed(batch);
  }

  private committed(batch: PendingCommand[]): SubmitResult[] {
    batch[batch.length - 1]!.result.storage = this.storageFault;
    // Observers get a fresh state only when the world changed where they are (not for speech or emotes):
    // noted here, computed by observerStates(), once for however many commands changed their room since.
    if (this.changed) {
      for (const p of batch) for (const d of p.result.deliveries) if (!QUIET.has(d.event.type) && this.watched.has(d.character)) this.observers.add(d.character);
      this.changed = false;
    }
    return batch.map((p) => p.result);
  }

  private notCommitted(batch: PendingCommand[], writes: PendingCommand[], err: unknown): SubmitResult[] {
    if (!this.store.isStorageError(err)) throw err;
    // Nothing of the batch is saved: go back to what is, and tell each actor that nothing happened.
    this.enterStorageFault(err);
    for (const p of writes) p.result = this.storageRefusal(p.row!.actor);
    this.changed = false;
    return batch.map((p) => ({ ...p.result, storage: this.storageFault }));
  }

  /** Watched characters that perceived a change of the world in committed commands and have had no state since. */
  private observers = new Set<string>();

  /**
   * The fresh states of the watched characters that perceived a change of the world in the commands
   * committed since the last call: one state each, however many commands changed their room. The
   * worker sends them after the answers of those commands (never with changes not yet committed);
   * computing them is the costly part of a command seen by a room (validActions, per observer).
   */
  observerStates(): Record<string, CharacterState> {
    if (this.pending.length) throw new Error('observerStates() with commands not committed');
    const ids = this.observers;
    this.observers = new Set();
    return this.statesFor(ids);
  }

  get staleObservers(): number {
    return this.observers.size;
  }

  /**
   * Write the periodic snapshot when one is due (every `snapshotEvery` logged commands). Its own
   * transaction, after the commit of the commands it follows: their acknowledgements need not wait
   * for it (the worker answers them first), and nothing is lost without it (the log has them all).
   * Call only with nothing prepared and uncommitted, so the snapshot is the state the log ends at.
   */
  snapshotIfDue(): void {
    now(this.snapshotStep());
  }

  /**
   * snapshotIfDue() on either store: nothing (nothing due) or synchronous on SQLite, a promise on
   * PostgreSQL that resolves once the snapshot is committed or refused. The worker runs nothing else
   * meanwhile (the world must stay the state the snapshot is taken at until its write is done, and
   * PostgreSQL's one connection writes one thing at a time).
   */
  snapshotStep(): Maybe<void> {
    if (this.sinceSnapshot < this.snapshotEvery || this.pending.length || this.storageFault) return;
    const counted = this.sinceSnapshot;
    // The state as JSON text, without a copy of the world; written at the store's last seq.
    const w: WorldWrite = { snapshot: { state: this.world.serialize(), reason: 'periodic' } };
    if (this.store.sync) {
      try {
        this.store.write(w);
      } catch (err) {
        return this.snapshotFailed(err);
      }
      this.sinceSnapshot = Math.max(0, this.sinceSnapshot - counted);
      return;
    }
    return (this.store.write(w) as Promise<number[]>).then(
      () => {
        this.sinceSnapshot = Math.max(0, this.sinceSnapshot - counted);
      },
      (err: unknown) => this.snapshotFailed(err),
    );
  }

  private snapshotFailed(err: unknown): void {
    if (!this.store.isStorageError(err)) throw err;
    // The world is as the database holds it (its commands are committed): no replay, but writes are
    // refused until a retry succeeds, as when a batch cannot be written; the snapshot is tried again then.
    this.storageFault = { code: err.code, message: err.message, since: this.storageFault?.since ?? Date.now() };
    this.storageRetryAt = Date.now() + this.storageRetryMs;
  }

  get uncommitted(): number {
    return this.pending.length;
  }

  /** The database could not be written: note it, and bring the world back to what the database holds. */
  private enterStorageFault(err: Error & { code: string }): void {
    const since = this.storageFault?.since ?? Date.now();
    this.storageFault = { code: err.code, message: err.message, since };
    this.storageRetryAt = Date.now() + this.storageRetryMs;
    const back = GameHost.replay(this.store);
    this.world = back.world;
    this.sinceSnapshot = back.replayed;
    this.stateCache.clear();
  }

  private storageRefusal(actor: NodeId): SubmitResult {
    const why = this.storageFault ? describeStorageFault(this.storageFault) : 'it cannot write its database';
    return {
      seq: 0, ok: false, failed: 'storage', deliveries: [], states: this.statesFor([actor]), storage: this.storageFault,
      text: `Nothing happened: the server cannot save anything right now (${why}), so it does not change the world. You can still look, examine and check your inventory; try again later.`,
    };
  }

  private deliveries(events: GameEvent[], actor: NodeId): Delivery[] {
    const out: Delivery[] = [];
    for (const e of events) {
      const event = summarise(e);
      for (const [character, text] of Object.entries(e.seen)) if (character !== actor) out.push({ character, text, event });
    }
    return out;
  }

  private statesFor(ids: Iterable<string>): Record<string, CharacterState> {
    const states: Record<string, CharacterState> = {};
    for (const id of new Set(ids)) {
      if (!this.watched.has(id)) continue;
      const s = this.state(id);
      if (s) states[id] = s;
    }
    return states;
  }

  // ---- views -----------------------------------------------------------------------------------

  look(id: NodeId): string {
    return look(this.world, id);
  }

  /**
   * Forget cached states that `events` may have changed: those of everyone in a room where
   * something other than speech or an emote happened. Returns whether anything changed.
   */
  private invalidate(events: GameEvent[]): boolean {
    if (events.every((e) => QUIET.has(e.type))) return false;
    const rooms = new Set<string>();
    for (const e of events) {
      rooms.add(e.room);
      for (const who of [e.actor, e.target]) {
        const r = who ? this.world.roomOf(who) : undefined;
        if (r) rooms.add(r);
      }
    }
    // A character that moved is named by its event (actor or target), with the room it left, so the
    // room of its cached state is in `rooms` too. (Admin operations clear the whole cache.)
    this.stateCache.forgetRooms(rooms);
    return true;
  }

  /** The character's situation and choices; null if there is no such character or it is nowhere. */
  state(id: NodeId): CharacterState | null {
    const cached = this.stateCache.get(id);
    if (cached) return cached;
    const s = this.computeState(id);
    if (s) this.stateCache.set(id, s);
    return s;
  }

  private computeState(id: NodeId): CharacterState | null {
    const w = this.world;
    const me = w.character(id);
    const roomId = w.roomOf(id);
    const room = roomId ? w.room(roomId) : undefined;
    if (!me || !room) return null;
    const thing = (o: ObjectNode) => ({ id: o.id, name: o.name });
    const objects: ObjectView[] = [];
    for (const nid of w.visibleFrom(id)) {
      const o = w.object(nid);
      if (!o || w.isInside(nid, id)) continue;
      const p = w.placement(nid);
      if (p) objects.push({ id: o.id, name: o.name, parent: p.parent, rel: p.rel });
    }
    return {
      room: { id: room.id, name: room.name, category: room.category, description: room.description, exits: room.exits.map((e) => ({ label: e.label, to: e.to, name: w.room(e.to)?.name ?? '' })) },
      character: {
        id: me.id, name: me.name, description: me.description,
        carrying: w.objectsIn(id, 'carried').map(thing), wearing: w.objectsIn(id, 'worn').map(thing), wielding: w.objectsIn(id, 'wielded').map(thing),
      },
      objects,
      people: w.charactersIn(room.id).filter((c) => c.id !== id).map((c) => ({ id: c.id, name: c.name, player: false })),
      validActions: validActions(w, id),
    };
  }

  /** What a model-driven character needs to decide its turn (server/agents/view.ts). */
  agentView(id: NodeId, opts: ViewOptions): AgentView | null {
    return agentView(this.world, id, { ...opts, validActions: this.state(id)?.validActions });
  }

  /** Is `text` one of the character's valid actions (canonical text) right now? */
  isValidAction(id: NodeId, text: string): boolean {
    return this.state(id)?.validActions.includes(text) ?? false;
  }

  /** The answer to a refused validOnly submit: nothing executed, nothing logged. */
  refusal(text: string): SubmitResult {
    return { seq: 0, ok: false, text: `"${text}" is not something you can do now.`, failed: 'invalid', deliveries: [], states: {} };
  }

  characters(): CharacterInfo[] {
    return this.world.characters().map((c) => {
      const roomId = this.world.roomOf(c.id) ?? '';
      return { id: c.id, name: c.name, roomId, room: this.world.room(roomId)?.name ?? 'nowhere', policy: c.policy, persona: c.persona };
    });
  }

  summary(): WorldSummary {
    const w = this.world;
    return {
      title: w.title,
      counts: counts(w),
      rooms: w.rooms().map((r) => ({
        id: r.id, name: r.name, category: r.category,
        exits: r.exits.map((e) => ({ label: e.label, to: e.to })),
        characters: w.charactersIn(r.id).length,
        objects: w.objectsIn(r.id).length,
      })),
    };
  }

  // ---- admin -----------------------------------------------------------------------------------

  /** An admin operation, durable when this returns. SQLite only; adminAsync() on either store. */
  admin(op: AdminOp, account: string | null, cause: string | null = null): AdminResult {
    return now(this.adminStep(op, account, cause));
  }

  async adminAsync(op: AdminOp, account: string | null, cause: string | null = null): Promise<AdminResult> {
    return this.adminStep(op, account, cause);
  }

  adminStep(op: AdminOp, account: string | null, cause: string | null = null): Maybe<AdminResult> {
    return then(this.commitStep(), () => {
      this.stateCache.clear();
      this.adminCause = cause;
      if (this.storageFault && Date.now() < this.storageRetryAt) {
        return { ok: false, text: `Not done: the server cannot save anything right now (${describeStorageFault(this.storageFault)}: ${this.storageFault.message}).`, deliveries: [], states: {}, storage: this.storageFault };
      }
      return attempt<AdminResult>(
        () => then(this.adminOp(op, account), (r) => {
          this.storageFault = null;
          return { ...r, storage: null };
        }),
        (err) => {
          if (!this.store.isStorageError(err)) throw err;
          // The operation may have changed the world before its write failed: back to what the database holds.
          this.enterStorageFault(err);
          return { ok: false, text: `Not done: the server cannot save anything right now (${describeStorageFault(this.storageFault!)}: ${err.message}).`, deliveries: [], states: {}, storage: this.storageFault };
        },
      );
    });
  }

  private adminOp(op: AdminOp, account: string | null): Maybe<AdminResult> {
    switch (op.op) {
      case 'narrate': return this.narrate(op.actor, op.text, account);
      case 'teleport': return this.teleport(op.actor, op.who, op.to, account);
      case 'create': return this.build(op.actor, 'create', op.spec, account);
      case 'build': return this.build(op.actor, op.verb, op.args, account);
      case 'reloadWorld': return this.reloadWorld(op.actor, account);
      case 'save': return then(this.saveStep('admin'), (seq): AdminResult => ({ ok: true, text: `Saved the world (snapshot at event ${seq}).`, seq, deliveries: [], states: {} }));
    }
  }

  /** Provenance of the admin operation in progress. */
  private adminCause: string | null = null;

  /** Log an admin operation with a snapshot, in one write. */
  private logAdmin(actor: NodeId, input: string, text: string, events: GameEvent[], account: string | null, meta?: Record<string, string>): Maybe<number> {
    const w: WorldWrite = { events: [{ time: Date.now(), actor, kind: 'admin', input, ok: true, text, events, account, cause: this.adminCause }], snapshot: { state: this.world.toJSON(), reason: 'admin' } };
    if (meta) w.meta = meta;
    return then(this.store.write(w), (seqs) => {
      this.sinceSnapshot = 0;
      return seqs[0]!;
    });
  }

  private narrate(actor: NodeId, raw: string, account: string | null): Maybe<AdminResult> {
    const text = raw.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
    const room = this.world.roomOf(actor);
    if (!text || text.length > 1000) return { ok: false, text: 'Narrate 1 to 1000 characters.', deliveries: [], states: {} };
    if (!room) return { ok: false, text: 'You are nowhere.', deliveries: [], states: {} };
    const seen: Record<string, string> = {};
    for (const c of this.world.charactersIn(room)) seen[c.id] = text;
    const mine = `You narrate: ${text}`;
    seen[actor] = mine;
    const event: GameEvent = { type: 'narrate', actor, room, text, seen };
    // Logged, but no snapshot: narration changes nothing in the world (and is not replayed: kind admin).
    const written = this.store.write({ events: [{ time: Date.now(), actor, kind: 'admin', input: `@narrate ${text}`, ok: true, text: mine, events: [event], account, cause: this.adminCause }] });
    return then(written, ([seq]): AdminResult => ({ ok: true, text: mine, seq, deliveries: this.deliveries([event], actor), states: {} }));
  }

  private teleport(actor: NodeId, whoQuery: string, toQuery: string, account: string | null): Maybe<AdminResult> {
    const w = this.world;
    const fail = (text: string): AdminResult => ({ ok: false, text, deliveries: [], states: {} });
    const who = /^(me|myself|self)$/i.test(whoQuery.trim()) ? { ok: true as const, node: w.character(actor)! } : findNode(w.characters(), whoQuery);
    if (!who.ok) return fail(who.message);
    let dest = findNode(w.rooms(), toQuery);
    if (!dest.ok) {
      const person = findNode(w.characters(), toQuery);
      const room = person.ok ? w.room(w.roomOf(person.node.id) ?? '') : undefined;
      if (!room) return fail(`No room or character called "${toQuery}".`);
      dest = { ok: true, node: room };
    }
    const target = who.node;
    const from = w.roomOf(target.id);
    const to = dest.node.id;
    if (from === to) return fail(`${cap(definite(target))} is already in ${dest.node.name}.`);
    const seen: Record<string, string> = {};
    if (from) for (const c of w.charactersIn(from)) if (c.id !== target.id) seen[c.id] = `${cap(definite(target))} vanishes in a swirl of light.`;
    w.move(target.id, to, 'in');
    for (const c of w.charactersIn(to)) if (c.id !== target.id) seen[c.id] = `${cap(article(target))} appears in a swirl of light.`;
    seen[target.id] = `You are whisked away to ${dest.node.name}.`;
    const text = target.id === actor ? seen[actor]! : `You send ${definite(target)} to ${dest.node.name}.`;
    if (target.id !== actor) seen[actor] = text;
    const event: GameEvent = { type: 'teleport', actor, room: from ?? to, target: target.id, seen };
    return then(this.logAdmin(actor, `@teleport ${whoQuery} to ${toQuery}`, text, [event], account), (seq): AdminResult => {
      const deliveries = this.deliveries([event], actor);
      return { ok: true, text, seq, deliveries, states: this.statesFor([actor, ...deliveries.map((d) => d.character)]), relocated: [target.id] };
    });
  }

  /** @create and the builder commands: a change made by server/host/build.ts, logged with a snapshot (kept over a restart). */
  private build(actor: NodeId, verb: BuildVerb, args: string, account: string | null): Maybe<AdminResult> {
    const change = build(this.world, actor, verb, args);
    if (!change.ok || !change.event) return { ok: false, text: change.text, deliveries: [], states: {} };
    const event = change.event;
    return then(this.logAdmin(actor, `@${verb} ${args.trim()}`, change.text, [event], account), (seq): AdminResult => {
      const deliveries = this.deliveries([event], actor);
      return { ok: true, text: change.text, seq, deliveries, states: this.statesFor([actor, ...deliveries.map((d) => d.character)]) };
    });
  }

  private reloadWorld(actor: NodeId, account: string | null): Maybe<AdminResult> {
    const loaded = loadWorld(this.source, { seed: 1 });
    const before = new Set(this.world.characters().map((c) => c.id));
    this.world = new World(loaded.state);
    const after = new Set(this.world.characters().map((c) => c.id));
    const removed = [...before].filter((id) => !after.has(id));
    const text = `Reloaded the world from ${this.source}: ${this.world.rooms().length} rooms, ${after.size} characters, ${this.world.objects().length} objects.`;
    return then(this.logAdmin(actor, '@reload world', text, [], account, { 'world.title': this.world.title }), (seq): AdminResult => (
      { ok: true, text, seq, deliveries: [], states: this.statesFor(after), removed, relocated: [...after] }));
  }

  // ---- persistence -----------------------------------------------------------------------------

  /** Write a snapshot of the current state; returns the event sequence number it includes. SQLite only; saveAsync() on either store. */
  save(reason: string): number {
    return now(this.saveStep(reason));
  }

  async saveAsync(reason: string): Promise<number> {
    return this.saveStep(reason);
  }

  private saveStep(reason: string): Maybe<number> {
    return then(this.commitStep(), () => {
      const seq = this.store.lastSeq();
      return then(this.store.write({ snapshot: { state: this.world.toJSON(), reason } }), () => {
        this.sinceSnapshot = 0;
        return seq;
      });
    });
  }

  counts(): WorldCounts {
    return counts(this.world);
  }

  /** Save a shutdown snapshot and close the store. SQLite only; closeAsync() on either store. */
  close(): void {
    if (!this.store.open) return;
    this.needSync();
    try {
      this.save('shutdown');
    } catch (err) {
      // Every acknowledged command is in the log already; only the shutdown snapshot is lost.
      if (!this.store.isStorageError(err)) throw err;
    } finally {
      void this.store.close();
    }
  }

  async closeAsync(): Promise<void> {
    if (!this.store.open) {
      // Lost (PostgreSQL's connection died): every acknowledged command is committed; nothing more can be written.
      await this.store.close();
      return;
    }
    try {
      await this.saveStep('shutdown');
    } catch (err) {
      if (!this.store.isStorageError(err) && this.store.open) throw err;
    } finally {
      await this.store.close();
    }
  }
}

function counts(w: World): WorldCounts {
  let rooms = 0;
  let characters = 0;
  let objects = 0;
  for (const n of w.nodes()) {
    if (n.kind === 'room') rooms++;
    else if (n.kind === 'character') characters++;
    else objects++;
  }
  return { rooms, characters, objects };
}
