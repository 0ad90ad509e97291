/**
 * Characters that no person controls, in the live world: each is driven by a policy (a Driver of
 * the game host): `model` (the rankers, policy.ts), `scripted` (a file of commands), or `idle`
 * (nobody). Humans drive theirs through a connection (server/net).
 *
 *   const agents = await AgentManager.start(host, { modelDir: 'models/default' });
 *   await agents.setPolicy('town-baker', 'model');      // an admin's switch, at run time
 *   await agents.close();
 *
 * The world file says who drives each character (`policy` of a character); `drive` overrides it.
 *
 * When a model character takes a turn: when spoken to (a tell, or speech it is addressed by, or in
 * a conversation it is part of, or when it is the only one who could answer), acted upon (given,
 * hit, hugged, robbed) or emoted at, in its room; and now and then on its own while a player is in
 * its room (`idleSeconds`). A turn reads the character's view from the host (grounded facts, valid
 * actions, rule readings of the line it heard), decides with the policy (batched with the other
 * characters deciding at the same time; inference on the runtime's inference thread), and submits
 * the speech, actions and emote as the character's commands. Actions are submitted `validOnly`: the
 * host refuses, without executing, one that stopped being valid since it was chosen.
 */
import { createWriteStream, readFileSync, existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { emoteThirdPerson } from '../engine/emotes.js';
import { EMOTES, Rng, World } from '../engine/index.js';
import type { Driver, Log } from '../host/driver.js';
import type { AgentHost } from './agent-host.js';
import { DriveStore, type DriveKind } from './drive-store.js';
import type { CharacterInfo } from '../host/types.js';
import type { EventSummary } from '../net/protocol.js';
import { loadWorld } from '../world-io/load-world.js';
import { objectOfAction } from './episodes.js';
import { defaultModelDir, loadPolicy } from './load.js';
import { AgentMemory } from './memory.js';
import { refuse, type Policy, type TurnChoice, type TurnInput } from './policy.js';
import { vocativeTemplate } from './line-judge.js';
import { firstPerson } from './requests.js';
import type { AgentView } from './view.js';

/**
 * What a character says on this turn: the policy's line, except a plain one on a turn of its own. A plain
 * line answers the line heard ("Ah, that's a long story for another day."); on an idle turn the character
 * has heard nothing new, and it read as a second answer to a question it had answered already.
 */
export function lineToSay(trigger: Pick<Trigger, 'kind'>, choice: Pick<TurnChoice, 'say' | 'why'>): string {
  return trigger.kind === 'idle' && choice.why.say === 'unsure' ? '' : choice.say;
}

/** Who drives a character the agents manage (the kinds @drive sets, drive-store.ts). */
export type AgentKind = DriveKind;

export interface AgentsOptions {
  /** Model directory (default models/default, or $LIGHTMUD_MODEL). */
  modelDir?: string;
  /** Pool embeddings and tuned thresholds (default .cache/agents). */
  cacheDir?: string;
  /** A policy already loaded (tests and benches share one); else loaded from modelDir when needed. */
  policy?: Policy;
  /** Who drives which character, overriding the world file's `policy` fields. */
  drive?: Record<string, AgentKind>;
  /** Script files by character id; else `scriptsDir/<id>.txt`. */
  scripts?: Record<string, string>;
  /** Default: `scripts/` inside the world directory, or beside the world file. */
  scriptsDir?: string;
  /** Milliseconds between a script's commands (default 5000). */
  scriptPaceMs?: number;
  /** Mean seconds between a model character's turns of its own while a player is in its room (0: never; default $LIGHTMUD_AGENT_IDLE_SECONDS or 90). */
  idleSeconds?: number;
  /** No turn of its own until people in its room have been quiet this long (default IDLE_QUIET_MS, 20 s). */
  idleQuietMs?: number;
  /** Replies two model characters exchange before waiting for someone else (default 4). */
  maxChain?: number;
  /** A model character answers another model character after this pause (default 1500 ms), a person at once. */
  modelReplyDelayMs?: number;
  /** Turns per second, over all characters, that answer other model characters or come on their own (default 8); more are skipped. Turns that answer people are never limited. */
  modelTurnsPerSecond?: number;
  /** onnxruntime threads for the model (default 1: small models gain nothing from more, and the server's other threads keep their cores). */
  threads?: number;
  /** Memory: an AgentMemory, a SQLite path, or false for none (default: the host's database file). */
  memory?: AgentMemory | string | false;
  seed?: number;
  log?: Log;
  /** Called after every model turn (tests, benches, logging). */
  onTurn?: (turn: TurnRecord) => void;
}

export interface Trigger {
  kind: 'speech' | 'act' | 'emote' | 'idle';
  from?: string;
  text?: string;
  /** Caused by a person (answered first, at once). */
  human?: boolean;
  /** Already waited its delay (replies to other model characters wait `modelReplyDelayMs`). */
  delayed?: boolean;
  /** When it happened (performance.now()), for the turn record's wait. */
  at?: number;
}

export interface TurnRecord {
  character: string;
  trigger: Trigger;
  say: string;
  /** Actions executed (in order). */
  actions: string[];
  /** Actions the host refused (no longer valid when submitted); not executed. */
  refused: string[];
  emote?: string;
  why: TurnChoice['why'];
  /** Milliseconds from the start of the turn to its last command, and its parts. */
  ms: number;
  parts: { view: number; decide: number; act: number };
  /** Milliseconds from the trigger to the start of the turn (waiting for the character's previous turn, or a delay). */
  waited: number;
}

const silent: Log = { info() {}, warn() {}, error() {} };
const SPEECH = new Set(['say', 'tell', 'whisper', 'shout']);
const EMOTE_BY_THIRD = new Map(EMOTES.map((e) => [emoteThirdPerson(e), e]));

/**
 * Coalesces the decisions asked for while others are running into batches. Turns that answer a
 * person go first, in a lane of their own with up to two batches in flight: a reply asked for while
 * a batch is being decided starts at once (the inference thread and this one work on both, each
 * waiting on the other less), also while a batch of model characters talking among themselves (or
 * on their own) is in flight, so such turns never delay a reply to a player. Those other turns are
 * decided one batch at a time, and only while no reply to a person is waiting or being decided.
 */
class Batcher {
  private queues: { input: TurnInput; resolve: (c: TurnChoice) => void; reject: (e: unknown) => void }[][] = [[], []];
  /** Batches being decided, by lane (0: answers to people, 1: the rest). */
  private running = [0, 0];
  private scheduled = false;
  /**
   * Replies are decided up to 32 at a time; other turns 8 at a time, because a batch's ranking runs
   * on this thread without a pause (about 2-3 ms a turn): a reply asked for meanwhile waits for it.
   */
  constructor(private policy: Policy, private batchSizes: [number, number] = [32, 8], private urgentInFlight = 2) {}

  decide(input: TurnInput, urgent: boolean): Promise<TurnChoice> {
    return new Promise((resolve, reject) => {
      this.queues[urgent ? 0 : 1]!.push({ input, resolve, reject });
      this.schedule();
    });
  }

  /** Start what may start, after the turns asked for in this tick have joined the queues. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.running[0]! < this.urgentInFlight && this.queues[0]!.length) void this.drain(0);
      if (!this.running[0] && !this.running[1] && this.queues[1]!.length) void this.drain(1);
    });
  }

  private async drain(lane: 0 | 1): Promise<void> {
    this.running[lane]!++;
    const batch = this.queues[lane]!.splice(0, this.batchSizes[lane]);
    try {
      const out = await this.policy.decide(batch.map((b) => b.input));
      batch.forEach((b, i) => b.resolve(out[i]!));
    } catch (err) {
      for (const b of batch) b.reject(err);
    }
    this.running[lane]!--;
    if (this.queues[0]!.length || this.queues[1]!.length) this.schedule();
  }
}

class ModelDriver implements Driver {
  readonly kind = 'model' as const;
  readonly wantsState = false;
  busy = false;
  pending: Trigger | null = null;
  lastObject: string | undefined;
  idleTimer: NodeJS.Timeout | null = null;
  /** When it last perceived something a person did (idle turns only happen while people are about). */
  lastHumanAt = 0;
  stopped = false;
  constructor(private manager: AgentManager, readonly id: string, readonly name: string) {}
  perceive(text: string, event: EventSummary): void {
    this.manager.perceived(this, text, event);
  }
  arrive(): void {
    this.lastObject = undefined;
  }
  detached(): void {
    this.stop();
    this.manager.forget(this.id, this);
  }
  stop(): void {
    this.stopped = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }
}

/** A file of commands, run in order at a steady pace, looping: `# comments`, `wait SECONDS`, anything else is typed. */
export function parseScript(text: string): { command?: string; wait?: number }[] {
  const out: { command?: string; wait?: number }[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const w = /^wait\s+(\d+(?:\.\d+)?)$/i.exec(line);
    out.push(w ? { wait: Number(w[1]) } : { command: line });
  }
  return out;
}

class ScriptDriver implements Driver {
  readonly kind = 'script' as const;
  readonly wantsState = false;
  private i = 0;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  constructor(private manager: AgentManager, readonly id: string, readonly file: string, private steps: { command?: string; wait?: number }[], private paceMs: number) {}
  start(): void {
    this.schedule(this.paceMs);
  }
  private schedule(ms: number): void {
    if (this.stopped || !this.steps.length) return;
    this.timer = setTimeout(() => void this.next(), ms);
    this.timer.unref();
  }
  private async next(): Promise<void> {
    if (this.stopped) return;
    const step = this.steps[this.i++ % this.steps.length]!;
    if (step.wait !== undefined) return this.schedule(step.wait * 1000);
    try {
      await this.manager.host.submit(this.id, step.command!);
    } catch (err) {
      this.manager.log.warn({ character: this.id, err: (err as Error).message }, 'script command failed');
    }
    this.schedule(this.paceMs);
  }
  perceive(): void {}
  detached(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.manager.forget(this.id, this);
  }
}

export class AgentManager {
  readonly log: Log;
  private drivers = new Map<string, ModelDriver | ScriptDriver>();
  private batcher: Batcher | null = null;
  private policyLoading: Promise<Policy> | null = null;
  /** Deliveries of one event, collected during one route() and handled together. */
  private tick = new Map<EventSummary, { driver: ModelDriver; text: string }[]>();
  private tickScheduled = false;
  /** Whom each character spoke with last. */
  private lastPartner = new Map<string, string>();
  /** Replies exchanged by two model characters since a person last spoke to either. */
  private chain = new Map<string, number>();
  private rng: Rng;
  private memory: AgentMemory | null;
  private closed = false;
  private inFlight = new Set<Promise<void>>();
  private timers = new Set<NodeJS.Timeout>();
  /** LIGHTMUD_AGENT_TRACE=FILE: every turn record, one JSON line each (for finding where time goes). */
  private trace = process.env.LIGHTMUD_AGENT_TRACE ? createWriteStream(process.env.LIGHTMUD_AGENT_TRACE, { flags: 'a' }) : null;
  /** Token bucket for turns not caused by a person. */
  private bucket = { tokens: 0, at: 0 };

  /** Every character's name (for a line that calls someone else by name: nobody here answers it). */
  private names: { id: string; name: string }[] = [];

  /** Where @drive choices are kept across restarts (with the memory's database; none without one). */
  private drives: DriveStore | null = null;

  private constructor(readonly host: AgentHost, private opts: AgentsOptions, private policy: Policy | null, memory: AgentMemory | null) {
    this.log = opts.log ?? silent;
    this.rng = new Rng(opts.seed ?? 1);
    this.memory = memory;
    if (policy) this.batcher = new Batcher(policy);
  }

  /** Drive the characters the world file (or `opts.drive`) gives to models and scripts. */
  static async start(host: AgentHost, opts: AgentsOptions = {}): Promise<AgentManager> {
    const memory = opts.memory === false ? null : opts.memory instanceof AgentMemory ? opts.memory : AgentMemory.open(opts.memory ?? host.config.db);
    const manager = new AgentManager(host, opts, opts.policy ?? null, memory);
    try {
      // an admin's @drive, saved with the memory, wins over the world file; `opts.drive` over both
      manager.drives = memory?.db ? new DriveStore(memory.db) : null;
      const saved = manager.drives?.all() ?? new Map();
      const chars = await host.characters();
      manager.names = chars.map((c) => ({ id: c.id, name: c.name }));
      for (const c of chars) {
        const kind = opts.drive?.[c.id] ?? saved.get(c.id)?.kind ?? (c.policy === 'model' ? 'model' : c.policy === 'scripted' ? 'scripted' : undefined);
        if (!kind || kind === 'idle' || host.driverOf(c.id)) continue;
        try {
          await manager.attach(c, kind, opts.drive?.[c.id] ? undefined : saved.get(c.id)?.script);
        } catch (err) {
          manager.log.warn({ character: c.id, err: (err as Error).message }, `${c.id} stays idle`);
        }
      }
      await manager.warmUp();
      manager.log.info({ model: [...manager.drivers.values()].filter((d) => d.kind === 'model').length, scripted: [...manager.drivers.values()].filter((d) => d.kind === 'script').length }, 'agents started');
    } catch (err) {
      await manager.close();
      throw err;
    }
    return manager;
  }

  /**
   * Before the first person speaks: the valid actions of every model character embedded, and one
   * batch decided (onnxruntime's first runs allocate). Without it the first players to talk after
   * a start waited for all of that (measured at 1,000 model characters: the first 44 replies took
   * 170-250 ms to decide, later ones 5 ms at the median).
   */
  private async warmUp(): Promise<void> {
    const policy = this.policy;
    const ids = [...this.drivers.values()].filter((d) => d.kind === 'model').map((d) => d.id);
    if (!policy || !ids.length) return;
    const t0 = performance.now();
    try {
      const views = (await Promise.all(ids.map((id) => this.host.agentView(id, {})))).filter((v): v is AgentView => !!v);
      await policy.warm(views);
      this.log.info({ characters: views.length, ms: Math.round(performance.now() - t0) }, 'model policy warmed up');
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'model policy warm-up failed (first turns will be slower)');
    }
  }

  /** The model policy these characters use (loaded on first need), for others who need one (the crowd room's model partners). */
  sharedPolicy(): Promise<Policy> {
    return this.loadedPolicy();
  }

  /** The policy, loaded on first need. */
  private async loadedPolicy(): Promise<Policy> {
    if (this.policy) return this.policy;
    this.policyLoading ??= (async () => {
      let world: World | undefined;
      try {
        world = new World(loadWorld(this.host.info.source, { seed: 1 }).state);
      } catch {
        // thresholds stay at their defaults
      }
      const { policy, tuning } = await loadPolicy({ modelDir: this.opts.modelDir ?? defaultModelDir(), cacheDir: this.opts.cacheDir, world, threads: this.opts.threads });
      this.log.info({ model: this.opts.modelDir ?? defaultModelDir(), pool: policy.pool.size, thresholds: policy.thresholds, agreement: tuning?.agreement }, 'model policy loaded');
      this.policy = policy;
      this.batcher = new Batcher(policy);
      return policy;
    })();
    try {
      return await this.policyLoading;
    } catch (err) {
      this.policyLoading = null;
      throw err;
    }
  }

  private async attach(c: CharacterInfo, kind: 'model' | 'scripted', script?: string): Promise<void> {
    if (kind === 'model') {
      await this.loadedPolicy();
      const d = new ModelDriver(this, c.id, c.name);
      this.host.attach(c.id, d);
      this.drivers.set(c.id, d);
      this.scheduleIdle(d);
      return;
    }
    const file = script ?? this.opts.scripts?.[c.id] ?? join(this.scriptsDir(), `${c.id}.txt`);
    if (!file || !existsSync(file)) throw new Error(`no script file for ${c.id}${file ? ` (${file})` : ''}`);
    const steps = parseScript(readFileSync(file, 'utf8'));
    if (!steps.some((s) => s.command)) throw new Error(`${file} has no commands`);
    const d = new ScriptDriver(this, c.id, resolve(file), steps, this.opts.scriptPaceMs ?? 5000);
    this.host.attach(c.id, d);
    this.drivers.set(c.id, d);
    d.start();
  }

  /** Where scripts named by character are: `scriptsDir`, else `scripts/` beside (or inside, for a directory) the world file. */
  private scriptsDir(): string {
    if (this.opts.scriptsDir) return this.opts.scriptsDir;
    const source = this.host.info.source;
    try {
      return statSync(source).isDirectory() ? join(source, 'scripts') : join(dirname(source), 'scripts');
    } catch {
      return 'scripts';
    }
  }

  /** Who drives each character this manager drives. */
  list(): { id: string; kind: 'model' | 'script'; file?: string }[] {
    return [...this.drivers.values()].map((d) => (d instanceof ScriptDriver ? { id: d.id, kind: 'script' as const, file: d.file } : { id: d.id, kind: 'model' as const }));
  }

  /**
   * Switch a character's policy at run time (an admin's command). `who`: id or name. A character
   * a person is playing is not taken from them.
   */
  async setPolicy(who: string, kind: AgentKind, opts: { script?: string } = {}): Promise<string> {
    const chars = await this.host.characters();
    const q = who.trim().toLowerCase();
    const matches = chars.filter((c) => c.id.toLowerCase() === q);
    const found = matches.length ? matches : chars.filter((c) => c.name.toLowerCase() === q);
    if (found.length !== 1) return found.length ? `"${who}" could be ${found.map((c) => c.id).join(', ')}; use the id.` : `There is no character "${who}".`;
    const c = found[0]!;
    const current = this.host.driverOf(c.id);
    if (current?.kind === 'human') return `${c.name} (${c.id}) is played by a person; kick them first.`;
    if (current) this.host.release(c.id, `${c.id} now has another driver`);
    if (kind === 'idle') {
      this.memory?.flush();
      this.drives?.save(c.id, 'idle');
      return `${c.name} (${c.id}) is idle now.`;
    }
    try {
      await this.attach(c, kind, opts.script);
    } catch (err) {
      this.drives?.save(c.id, 'idle');
      return `${c.name} (${c.id}) stays idle: ${(err as Error).message}`;
    }
    this.drives?.save(c.id, kind, opts.script ? resolve(opts.script) : undefined);
    return kind === 'model' ? `${c.name} (${c.id}) is driven by the model now.` : `${c.name} (${c.id}) runs ${opts.script ?? 'its script'} now.`;
  }

  /** A driver let go (by the host, or after setPolicy). */
  forget(id: string, driver: Driver): void {
    if (this.drivers.get(id) === driver) this.drivers.delete(id);
  }

  // ---- perception -------------------------------------------------------------------------------

  /** Something a model character perceived: remember it, and decide (with the others who saw it) who answers. */
  perceived(driver: ModelDriver, text: string, event: EventSummary): void {
    if (this.host.driverOf(event.actor)?.kind === 'human') driver.lastHumanAt = Date.now();
    // A character whose driver asks to be left alone (a seat of a crowd episode): not answered, not remembered.
    if (this.host.driverOf(event.actor)?.quiet) return;
    const entry = memoryEntry(text, event);
    if (entry) this.memory?.add(driver.id, { speaker: 'partner', who: event.actor, ...entry });
    if (event.action && (event.target === driver.id || event.type === 'give')) {
      const obj = objectOfAction(event.action);
      if (obj) driver.lastObject = obj;
    }
    let list = this.tick.get(event);
    if (!list) this.tick.set(event, (list = []));
    list.push({ driver, text });
    if (!this.tickScheduled) {
      this.tickScheduled = true;
      queueMicrotask(() => this.flushTick());
    }
  }

  private flushTick(): void {
    this.tickScheduled = false;
    const groups = [...this.tick];
    this.tick.clear();
    for (const [event, seen] of groups) {
      for (const { driver, trigger } of this.responders(event, seen)) this.run(driver, trigger);
    }
  }

  /** Who answers an event, of the model characters who perceived it. */
  private responders(event: EventSummary, seen: { driver: ModelDriver; text: string }[]): { driver: ModelDriver; trigger: Trigger }[] {
    const actor = event.actor;
    const human = this.host.driverOf(actor)?.kind === 'human';
    const pick = (d: ModelDriver, trigger: Trigger) => {
      trigger.human = human;
      if (!human) {
        const key = [actor, d.id].sort().join('\u0000');
        const n = this.chain.get(key) ?? 0;
        if (n >= (this.opts.maxChain ?? 4)) return [];
        this.chain.set(key, n + 1);
      } else for (const k of [...this.chain.keys()]) if (k.split('\u0000').includes(d.id)) this.chain.delete(k);
      this.lastPartner.set(actor, d.id);
      this.lastPartner.set(d.id, actor);
      return [{ driver: d, trigger }];
    };
    const byId = new Map(seen.map((s) => [s.driver.id, s]));
    if (SPEECH.has(event.type)) {
      const words = quoted(seen[0]!.text);
      const trigger: Trigger = { kind: 'speech', from: actor, text: words };
      if (event.target) {
        const t = byId.get(event.target);
        return t ? pick(t.driver, trigger) : [];
      }
      if (event.type === 'shout') return [];
      const lower = words.toLowerCase();
      // The most specific name first ("young dockhand" before "dockhand").
      const addressed = seen
        .map((s) => ({ s, m: mentions(lower, s.driver.name) }))
        .filter((x) => x.m > 0)
        .sort((a, b) => b.m - a.m || b.s.driver.name.length - a.s.driver.name.length)
        .map((x) => x.s);
      if (addressed.length) return pick(addressed[0]!.driver, trigger);
      // "Good day, washerwoman." said beside the miller, to a washerwoman no model drives: not the miller's to answer
      if (this.callsSomeoneElse(words, actor, byId)) return [];
      const partner = this.lastPartner.get(actor);
      if (partner && byId.has(partner) && this.lastPartner.get(partner) === actor) return pick(byId.get(partner)!.driver, trigger);
      if (seen.length === 1) return pick(seen[0]!.driver, trigger);
      if (human) return pick(seen[this.rng.int(seen.length)]!.driver, trigger);
      return [];
    }
    if (event.target && byId.has(event.target)) {
      const kind = event.type === 'emote' ? 'emote' : 'act';
      return pick(byId.get(event.target)!.driver, { kind, from: actor, text: event.action ?? event.type });
    }
    return [];
  }

  /**
   * Does the line call by name ("Washerwoman, ...", "Good day, washerwoman.", "..., washerwoman?") a
   * character other than the speaker and the model characters who heard it?
   */
  private callsSomeoneElse(words: string, actor: string, heard: Map<string, unknown>): boolean {
    const others = this.names.filter((c) => c.id !== actor && !heard.has(c.id)).map((c) => c.name.replace(/^(?:the|a|an)\s+/i, ''));
    if (!others.length) return false;
    const lower = words.toLowerCase();
    const named = others.filter((n) => lower.includes(n.toLowerCase()) && mentions(lower, n) === 2);
    return named.length > 0 && vocativeTemplate(words, named) !== undefined;
  }

  // ---- turns ------------------------------------------------------------------------------------

  /** Whether a turn not caused by a person may run now (token bucket, `modelTurnsPerSecond`). */
  private allowModelTurn(): boolean {
    const rate = this.opts.modelTurnsPerSecond ?? 8;
    const now = performance.now();
    this.bucket.tokens = Math.min(rate, this.bucket.tokens + ((now - this.bucket.at) / 1000) * rate);
    this.bucket.at = now;
    if (this.bucket.tokens < 1) return false;
    this.bucket.tokens -= 1;
    return true;
  }

  private run(driver: ModelDriver, trigger: Trigger): void {
    if (this.closed || driver.stopped) return;
    trigger.at ??= performance.now();
    if (!trigger.human && !trigger.delayed && !this.allowModelTurn()) return;
    const delay = this.opts.modelReplyDelayMs ?? 1500;
    if (!trigger.human && trigger.kind !== 'idle' && !trigger.delayed && delay > 0) {
      const t = setTimeout(() => {
        this.timers.delete(t);
        this.run(driver, { ...trigger, delayed: true });
      }, delay);
      t.unref();
      this.timers.add(t);
      return;
    }
    if (driver.busy) {
      // Answer the newest line once the current turn is done.
      // A person's line waiting is never replaced by anything but another person's.
      const keep = driver.pending && (driver.pending.human ? !trigger.human : trigger.kind === 'idle');
      if (!keep) driver.pending = trigger;
      return;
    }
    driver.busy = true;
    const p = this.takeTurn(driver, trigger)
      .catch((err) => this.log.warn({ character: driver.id, err: (err as Error).message }, 'model turn failed'))
      .finally(() => {
        this.inFlight.delete(p);
        driver.busy = false;
        const next = driver.pending;
        driver.pending = null;
        if (next && this.drivers.get(driver.id) === driver) this.run(driver, next);
      });
    this.inFlight.add(p);
  }

  private scheduleIdle(d: ModelDriver): void {
    const mean = this.opts.idleSeconds ?? (process.env.LIGHTMUD_AGENT_IDLE_SECONDS ? Number(process.env.LIGHTMUD_AGENT_IDLE_SECONDS) : 90);
    if (mean <= 0 || d.stopped || this.closed) return;
    const delay = -Math.log(1 - this.rng.next()) * mean * 1000;
    d.idleTimer = setTimeout(() => {
      d.idleTimer = null;
      if (d.stopped || this.closed) return;
      // while people are about (the last 5 minutes), but not in the middle of what they are doing or
      // saying (the last 20 s): a turn of its own then reads as talking over them
      const since = Date.now() - d.lastHumanAt;
      if (since >= (this.opts.idleQuietMs ?? IDLE_QUIET_MS) && since < 5 * 60_000) this.run(d, { kind: 'idle' });
      this.scheduleIdle(d);
    }, Math.max(1000, delay));
    d.idleTimer.unref();
  }

  private async takeTurn(driver: ModelDriver, trigger: Trigger): Promise<void> {
    const t0 = performance.now();
    const id = driver.id;
    const heard = trigger.kind === 'speech' && trigger.from && trigger.text ? { from: trigger.from, text: trigger.text } : undefined;
    // The partner: who spoke to or acted on it now, else the one it last talked with.
    const partner = trigger.from ?? this.lastPartner.get(id);
    const view: AgentView | null = await this.host.agentView(id, { heard, lastObject: driver.lastObject, partner });
    if (!view || this.host.driverOf(id) !== driver || this.closed) return;
    if (trigger.kind === 'idle' && !view.others.some((o) => this.host.driverOf(o.id)?.kind === 'human')) return;
    if (view.plan?.lastObject) driver.lastObject = view.plan.lastObject;
    const history = this.memory ? this.memory.history(id) : [];
    const t1 = performance.now();
    const choice = await this.batcher!.decide({ view, history, variant: this.rng.int(1 << 30) }, trigger.human === true);
    if (this.host.driverOf(id) !== driver || this.closed) return;
    const t2 = performance.now();

    const record: TurnRecord = { character: id, trigger, say: '', actions: [], refused: [], why: choice.why, ms: 0, parts: { view: t1 - t0, decide: t2 - t1, act: 0 }, waited: t0 - (trigger.at ?? t0) };
    const remember = (kind: 'say' | 'act' | 'emote', text: string) => this.memory?.add(id, { speaker: 'self', kind, text });
    const speak = async (text: string) => {
      if (!text.trim()) return;
      const r = await this.host.submit(id, `say ${text}`);
      if (r.ok) {
        record.say = record.say ? `${record.say} ${text}` : text;
        remember('say', text);
      }
    };
    choice.say = lineToSay(trigger, choice);
    if (!choice.sayAfter) await speak(choice.say);
    let done = 0;
    for (const action of choice.actions) {
      const r = await this.host.submit(id, action, null, { validOnly: true });
      if (!r.ok) {
        record.refused.push(action);
        // A step of a plan that can no longer be done: say why, and stop.
        if (choice.why.act === 'request' && !choice.sayAfter) await speak(refuse(r.failed === 'invalid' ? "I can't do that now." : firstPerson(r.text), done));
        break;
      }
      done++;
      record.actions.push(r.action ?? action);
      remember('act', r.action ?? action);
      const obj = objectOfAction(r.action ?? action);
      if (obj) driver.lastObject = obj;
    }
    if (choice.sayAfter) await speak(choice.say);
    if (!choice.actions.length && choice.emote) {
      const r = await this.host.submit(id, choice.emote);
      if (r.ok) {
        record.emote = choice.emote;
        remember('emote', choice.emote);
      }
    }
    record.ms = performance.now() - t0;
    record.parts.act = performance.now() - t2;
    this.opts.onTurn?.(record);
    this.trace?.write(JSON.stringify(record) + '\n');
  }

  /** Let every driven character go, wait for turns in flight, save memory. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const d of [...this.drivers.values()]) {
      if (d instanceof ModelDriver) d.stop();
      this.host.detach(d.id, d);
      if (d instanceof ScriptDriver) d.detached();
    }
    this.drivers.clear();
    await Promise.allSettled([...this.inFlight]);
    this.memory?.close();
    this.trace?.end();
    if (this.policy && !this.opts.policy) {
      await this.policy.ranker.release().catch(() => {});
      await this.policy.pool.release().catch(() => {});
    }
  }
}

/** How long a room must have been quiet of people before a model character there takes a turn of its own. */
export const IDLE_QUIET_MS = 20_000;

/** The words inside the quotes of a speech perception: `The baker says, "Hello."` -> `Hello.` */
export function quoted(text: string): string {
  const m = /"([\s\S]*)"\s*$/.exec(text);
  return (m ? m[1]! : text).trim();
}

/** How the line names the character: 2 by its full name ("old sailor"), 1 by a distinctive word of it ("Blackwick"), 0 not. */
export function mentions(lowerText: string, name: string): 0 | 1 | 2 {
  const n = name.toLowerCase();
  if (new RegExp(`\\b${escapeRe(n)}\\b`).test(lowerText)) return 2;
  const words = n.split(/\s+/).filter((w) => w.length > 3);
  return words.length > 1 && words.some((w) => new RegExp(`\\b${escapeRe(w)}\\b`).test(lowerText)) ? 1 : 0;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A history line from a perception, or null for what does not go in the context (arrivals, ...). */
export function memoryEntry(text: string, event: EventSummary): { kind: 'say' | 'act' | 'emote'; text: string } | null {
  if (SPEECH.has(event.type)) {
    const words = quoted(text);
    return words ? { kind: 'say', text: words } : null;
  }
  if (event.action) return { kind: 'act', text: event.action };
  if (event.type === 'emote') {
    for (const w of text.toLowerCase().split(/[^a-z]+/)) {
      const e = EMOTE_BY_THIRD.get(w);
      if (e) return { kind: 'emote', text: e };
    }
  }
  return null;
}

/** The help line of the admin command below. */
