/**
 * The crowd room: workers of every task, their pairing queues and the episodes they play, over the
 * game host. The engine knows nothing of it: a seat is a host Driver like a player's session, turns
 * are host.submit calls (actions `validOnly`: checked by the engine before they run), and each
 * worker reaches the room through a link (the /crowd/ws websocket; see routes.ts).
 *
 * Never stalls: the queues are planned whenever a worker arrives or leaves and an episode ends, and
 * once a second (model fallback, turn timers, partners away).
 */
import { randomBytes } from 'node:crypto';
import { isEmote } from '../engine/emotes.js';
import type { Driver, Host, Log } from '../host/host.js';
import type { HistoryEntry } from '../agents/context.js';
import type { CharacterState, EventSummary } from '../net/protocol.js';
import { checkLine } from './checks.js';
import type { CrowdServerFrame, PairedFrame } from './protocol.js';
import { answerIsEmote, checkGold, goldDue, type GoldScene } from './gold.js';
import { ScriptPartner, type Partner, type PartnerFactory } from './partners.js';
import { PairingQueue } from './queue.js';
import type { CrowdStore, EpisodeSetup, Provenance } from './store.js';
import { checkTaskAgainstWorld, type CrowdTask } from './task.js';
import { blocksMoreWork, counts } from './units.js';

/** How the room reaches one worker's page. */
export interface WorkerLink {
  send(frame: CrowdServerFrame): void;
}

export interface CrowdRoomOptions {
  /** The partner that takes a seat no worker has (model fallback, a dropped worker replaced). */
  partner: PartnerFactory;
  log?: Log;
  /** Milliseconds between sweeps of the queues and timers (default 1000). */
  tickMs?: number;
  /**
   * A world of its own for one episode of a task with worldPerPair (a portal's host over a shard link to a
   * world opened on demand); closed when the episode ends. Without it such tasks are refused.
   */
  pairWorld?: (world: string) => Promise<Host>;
}

const silent: Log = { info() {}, warn() {}, error() {} };

/** The world name of an episode's own world: the episode id in the letters a world name may have, at most 64. */
export function pairWorldName(episode: string): string {
  const clean = episode.replace(/[^A-Za-z0-9_-]/g, '_').replace(/^[^A-Za-z0-9]/, 'w');
  return clean.length <= 64 ? clean : `${clean.slice(0, 40)}-${clean.slice(-23)}`;
}

function code(): string {
  // 10 characters from an alphabet without look-alikes.
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  return [...randomBytes(10)].map((b) => alphabet[b % alphabet.length]).join('');
}

function shuffle<T>(a: T[]): T[] {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

const quoted = (text: string) => /"([\s\S]*)"\s*$/.exec(text)?.[1] ?? text;

/** One side of an episode: a worker (human) or a partner program; a host Driver of its character. */
class Seat implements Driver {
  link: WorkerLink | null = null;
  partner: Partner | null = null;
  /** Pseudonym and unit while a worker holds the seat. */
  worker: string | null = null;
  unit: string | null = null;
  awaySince: number | null = null;
  timeouts = 0;
  said: string[] = [];
  /** Model characters of the world who happen to be in the room do not join in. */
  readonly quiet = true;

  constructor(readonly ep: LiveEpisode, readonly character: string, readonly name: string) {}

  get kind(): 'human' | 'model' | 'script' {
    return this.partner ? this.partner.kind : 'human';
  }

  get wantsState(): boolean {
    return this.partner === null;
  }

  send(frame: CrowdServerFrame): void {
    if (!this.partner) this.link?.send(frame);
  }

  perceive(text: string, event: EventSummary): void {
    const other = this.ep.other(this);
    // Only the episode: not the partner's arrival while it is being cast.
    if (this.ep.turnStartedAt === 0) return;
    if (event.actor === other.character) this.send({ type: 'log', who: 'partner', text, ...(other.partner ? { model: true } : {}) });
  }

  state(state: CharacterState): void {
    this.send({ type: 'state', ...state });
  }

  arrive(_look: string, state: CharacterState | null): void {
    // Placed in the episode's room: the page is sent the look with the pairing.
    if (state) this.state(state);
  }

  detached(reason: string): void {
    // Taken away by the server (an admin, a world reload): the episode cannot go on.
    void this.ep.room.finish(this.ep, 'ended', `the game took the character away: ${reason}`, false);
  }
}

class LiveEpisode {
  readonly seats: [Seat, Seat];
  /** Turns stored so far. */
  turn = 0;
  /** Index of the seat whose turn it is. */
  current = 0;
  turnStartedAt = 0;
  warned = false;
  busy = false;
  over = false;
  history: { speaker: string; kind: HistoryEntry['kind']; text: string }[] = [];
  lastSay: { from: string; text: string } | undefined;
  /** Set once the episode is cast. */
  setup?: EpisodeSetup;
  /** A gold unit's scene, and whether its answer was something the worker could do when it was served. */
  gold?: { scene: GoldScene; valid: boolean };

  /** `host`: the world the episode plays in (the room's own, or one of its own with worldPerPair). */
  constructor(readonly room: CrowdRoom, readonly host: Host, readonly id: string, readonly task: CrowdTask, readonly location: string, a: [string, string], b: [string, string]) {
    this.seats = [new Seat(this, a[0], a[1]), new Seat(this, b[0], b[1])];
  }

  /** Whose turn it is. */
  get up(): Seat {
    return this.seats[this.current === 0 ? 0 : 1];
  }

  other(s: Seat): Seat {
    return this.seats[0] === s ? this.seats[1] : this.seats[0];
  }

  humans(): Seat[] {
    return this.seats.filter((s) => !s.partner);
  }
}

interface TaskState {
  queue: PairingQueue;
  links: Map<string, WorkerLink>;
  checked: boolean;
}

export class CrowdRoom {
  private tasks = new Map<string, TaskState>();
  private live = new Set<LiveEpisode>();
  /** Worker pseudonym -> their seat in a live episode. */
  private seated = new Map<string, Seat>();
  /** Worker pseudonym -> unit awaiting the end form, with its code. */
  private forms = new Map<string, { unit: string; code: string; reason: string }>();
  private timer: NodeJS.Timeout;
  private log: Log;
  private closed = false;
  private nextEpisode = 1;

  constructor(readonly host: Host, readonly store: CrowdStore, private opts: CrowdRoomOptions) {
    this.log = opts.log ?? silent;
    const stale = store.endStale();
    if (stale) this.log.warn({ episodes: stale }, 'crowd episodes left live by the last run were ended');
    this.timer = setInterval(() => this.tick(), opts.tickMs ?? 1000);
    this.timer.unref();
  }

  private stateOf(task: string): TaskState {
    let t = this.tasks.get(task);
    if (!t) this.tasks.set(task, (t = { queue: new PairingQueue(), links: new Map(), checked: false }));
    return t;
  }

  /** Live episodes and waiting workers, for the admin page. */
  status(): { live: { id: string; task: string; room: string; turn: number; seats: { character: string; kind: string; away: boolean }[] }[]; waiting: Record<string, number> } {
    return {
      live: [...this.live].map((e) => ({ id: e.id, task: e.task.id, room: e.location, turn: e.turn, seats: e.seats.map((s) => ({ character: s.character, kind: s.kind, away: s.awaySince !== null })) })),
      waiting: Object.fromEntries([...this.tasks].map(([id, t]) => [id, t.queue.size])),
    };
  }

  // ---- workers arrive and leave --------------------------------------------------------------

  /** A worker's page joined: resume their seat, show their end form, or queue them. Returns the pseudonym. */
  async join(taskId: string, platformId: string, link: WorkerLink): Promise<string | null> {
    const row = this.store.task(taskId);
    if (!row) {
      link.send({ type: 'closed', message: `There is no task "${taskId}".` });
      return null;
    }
    const worker = this.store.pseudonym(platformId);
    const task = row.task;
    link.send({ type: 'task', title: task.title, reward: task.reward, instructions: task.instructions, turns: task.turns });
    const seat = this.seated.get(worker);
    if (seat && seat.ep.task.id === taskId) {
      this.rebind(seat, link);
      return worker;
    }
    if (seat) {
      link.send({ type: 'closed', message: 'You are in an episode of another task; finish it first.' });
      return null;
    }
    const form = this.forms.get(worker);
    if (form && this.store.unit(form.unit)?.task === taskId) {
      link.send({ type: 'end', reason: form.reason });
      this.stateOf(taskId).links.set(worker, link);
      return worker;
    }
    if (row.status !== 'open') {
      link.send({ type: 'closed', message: row.status === 'paused' ? 'This task is paused; please come back later.' : 'This task is closed. Thank you!' });
      return null;
    }
    const st = this.stateOf(taskId);
    if (!st.checked) {
      if (task.worldPerPair && !this.opts.pairWorld) {
        link.send({ type: 'closed', message: 'This task gives each pair a world of its own, and this server cannot make worlds (it needs to be a portal started with --on-demand). Please tell the requester.' });
        return null;
      }
      try {
        const [summary, chars] = await Promise.all([this.host.summary(), this.host.characters()]);
        checkTaskAgainstWorld(task, new Set(summary.rooms.map((r) => r.id)), new Set(chars.map((c) => c.id)));
        st.checked = true;
      } catch (err) {
        this.log.error({ task: taskId, err: (err as Error).message }, 'crowd task does not fit the served world');
        link.send({ type: 'closed', message: 'This task is not set up correctly on this server; please tell the requester.' });
        return null;
      }
    }
    if (!this.store.isAllowed(taskId, worker)) {
      link.send({ type: 'closed', message: 'This task is open to invited workers only.' });
      return null;
    }
    const mine = this.store.unitsOf(taskId, worker);
    if (this.store.isBlocked(taskId, worker) || mine.some((u) => blocksMoreWork(u.status))) {
      link.send({ type: 'closed', message: 'There is no more work for you in this task. Thank you.' });
      return null;
    }
    if (mine.filter((u) => counts(u.status)).length >= task.maxUnitsPerWorker) {
      link.send({ type: 'closed', message: `You have done the most units this task allows (${task.maxUnitsPerWorker}). Thank you!` });
      return null;
    }
    const old = st.links.get(worker);
    if (old && old !== link) old.send({ type: 'closed', message: 'You opened this task in another window; carry on there.' });
    st.links.set(worker, link);
    if (task.onboarding) {
      const passed = this.store.onboarded(taskId, worker);
      if (passed === false) {
        st.links.delete(worker);
        link.send({ type: 'closed', message: 'Thank you for your interest; this task is not a fit this time.' });
        return null;
      }
      if (passed === null) {
        link.send({ type: 'onboarding', text: task.onboarding.text, question: task.onboarding.question, choices: task.onboarding.choices });
        return worker;
      }
    }
    this.enqueue(taskId, task, worker, link);
    return worker;
  }

  /** The answer to the onboarding question: right, the worker joins the queue; wrong, the task ends for them. */
  onboard(taskId: string, worker: string, choice: number, link: WorkerLink): void {
    const row = this.store.task(taskId);
    const st = this.tasks.get(taskId);
    const ob = row?.task.onboarding;
    if (!row || !ob || !st || st.links.get(worker) !== link || this.store.onboarded(taskId, worker) !== null) return link.send({ type: 'error', message: 'There is no question to answer now.' });
    const passed = choice === ob.answer;
    this.store.setOnboarded(taskId, worker, passed);
    if (!passed) {
      st.links.delete(worker);
      return link.send({ type: 'closed', message: 'Thank you for your interest; this task is not a fit this time.' });
    }
    this.enqueue(taskId, row.task, worker, link);
  }

  /** The gold scene due for the worker's next unit, if one is (gold.ts: the 1st, 3rd, 7th, ... unit). */
  private goldFor(task: CrowdTask, worker: string): GoldScene | null {
    if (!task.gold?.length) return null;
    const done = this.store.unitsOf(task.id, worker).filter((u) => counts(u.status));
    const gold = done.filter((u) => u.gold).length;
    return goldDue(done.length, gold) ? task.gold[gold % task.gold.length]! : null;
  }

  private enqueue(taskId: string, task: CrowdTask, worker: string, link: WorkerLink): void {
    const st = this.stateOf(taskId);
    const scene = this.goldFor(task, worker);
    if (scene && !this.seated.has(worker)) {
      link.send({ type: 'waiting', position: 1, fallbackSeconds: task.modelFallbackSeconds });
      // Its room or characters busy: an ordinary unit now, the gold one at the next.
      void this.start(task, [worker], scene).catch((err: unknown) => {
        this.log.error({ err: (err as Error).message }, 'crowd gold episode failed to start');
        return false;
      }).then((started) => {
        if (!started && st.links.get(worker) === link && !this.seated.has(worker)) this.queueUp(taskId, task, worker, link);
      });
      return;
    }
    this.queueUp(taskId, task, worker, link);
  }

  private queueUp(taskId: string, task: CrowdTask, worker: string, link: WorkerLink): void {
    const st = this.stateOf(taskId);
    st.queue.add(worker, Date.now());
    if (task.modelFallbackSeconds !== null || task.partnerDrop === 'replace_with_model') this.opts.partner.warm?.();
    link.send({ type: 'waiting', position: st.queue.position(worker), fallbackSeconds: task.modelFallbackSeconds });
    this.pump(taskId);
  }

  /** A worker's page went away. */
  leave(taskId: string, worker: string, link: WorkerLink): void {
    const st = this.tasks.get(taskId);
    if (st?.links.get(worker) === link) {
      st.links.delete(worker);
      st.queue.remove(worker);
    }
    const seat = this.seated.get(worker);
    if (seat && seat.link === link) {
      seat.link = null;
      seat.awaySince = Date.now();
      const other = seat.ep.other(seat);
      other.send({ type: 'partner', status: 'away', message: `Your partner's connection dropped. If they are not back within ${seat.ep.task.partnerDropSeconds} seconds, ${seat.ep.task.partnerDrop === 'replace_with_model' ? 'a model character takes their place' : 'the episode ends and you are credited'}.` });
    }
  }

  private rebind(seat: Seat, link: WorkerLink): void {
    const was = seat.link;
    if (was && was !== link) was.send({ type: 'closed', message: 'You opened this task in another window; carry on there.' });
    seat.link = link;
    this.stateOf(seat.ep.task.id).links.set(seat.worker!, link);
    if (seat.awaySince !== null) {
      seat.awaySince = null;
      seat.ep.other(seat).send({ type: 'partner', status: 'back', message: 'Your partner is back.' });
    }
    void this.sendPaired(seat.ep, seat).then(() => this.sendTurn(seat.ep));
  }

  // ---- pairing -------------------------------------------------------------------------------

  private tick(): void {
    if (this.closed) return;
    const now = Date.now();
    for (const id of this.tasks.keys()) this.pump(id);
    for (const ep of [...this.live]) {
      if (ep.over) continue;
      for (const s of ep.humans()) {
        if (s.awaySince !== null && now - s.awaySince >= ep.task.partnerDropSeconds * 1000) void this.dropped(ep, s, 'left');
      }
      // Not started yet (being cast), or a turn being run.
      if (ep.over || ep.busy || ep.turnStartedAt === 0) continue;
      const seat = ep.up;
      if (seat.partner) continue;
      const elapsed = (now - ep.turnStartedAt) / 1000;
      if (!ep.warned && elapsed >= ep.task.turnSeconds - ep.task.warningSeconds) {
        ep.warned = true;
        seat.send({ type: 'warning', seconds: Math.max(0, Math.round(ep.task.turnSeconds - elapsed)) });
      }
      if (elapsed >= ep.task.turnSeconds) this.timedOut(ep, seat);
    }
  }

  private pumping = new Set<string>();

  /** Start whatever episodes can start now in a task. */
  pump(taskId: string): void {
    if (this.closed || this.pumping.has(taskId)) return;
    const row = this.store.task(taskId);
    const st = this.tasks.get(taskId);
    if (!row || !st || row.status !== 'open' || !st.queue.size) return;
    const running = [...this.live].filter((e) => e.task.id === taskId).length;
    const slots = row.task.maxConcurrentPairs - running;
    if (slots <= 0) return;
    const now = Date.now();
    const fallback = row.task.modelFallbackSeconds === null ? null : row.task.modelFallbackSeconds * 1000;
    const since = (w: string) => ({ worker: w, since: st.queue.waitingSince(w) ?? now });
    const plan = st.queue.plan(now, slots, fallback);
    if (!plan.pairs.length && !plan.withModel.length) return;
    this.pumping.add(taskId);
    void (async () => {
      const back: { worker: string; since: number }[] = [];
      for (const [a, b] of plan.pairs) {
        const started = await this.start(row.task, [a, b]).catch((err: unknown) => {
          this.log.error({ err: (err as Error).message }, 'crowd episode failed to start');
          return false;
        });
        if (!started) back.push({ worker: a, since: now }, { worker: b, since: now });
      }
      for (const a of plan.withModel) {
        const started = await this.start(row.task, [a]).catch((err: unknown) => {
          this.log.error({ err: (err as Error).message }, 'crowd episode failed to start');
          return false;
        });
        if (!started) back.push(since(a));
      }
      // Those who could not be cast (no free location or persona) keep their place, if still here.
      st.queue.putBack(back.filter((w) => st.links.has(w.worker)));
      this.pumping.delete(taskId);
      for (const w of st.links.keys()) {
        const p = st.queue.position(w);
        if (p) st.links.get(w)!.send({ type: 'waiting', position: p, fallbackSeconds: row.task.modelFallbackSeconds });
      }
    })();
  }

  /**
   * Cast and start one episode for one or two workers; false when no location or personas are free.
   * With a gold scene: its room and characters, its partner a script that says the scene's line first,
   * two turns (the line, the worker's answer).
   */
  private async start(task: CrowdTask, workers: string[], scene?: GoldScene): Promise<boolean> {
    const st = this.stateOf(task.id);
    if (!workers.every((w) => st.links.has(w))) {
      // Someone left while waiting: the other goes back to the queue.
      return false;
    }
    const id = `${task.id}-${Date.now().toString(36)}-${this.nextEpisode++}`;
    // A world of the pair's own (opened on demand from the task's world), or the room's world.
    const own = task.worldPerPair && this.opts.pairWorld ? await this.opts.pairWorld(pairWorldName(id)) : null;
    const host = own ?? this.host;
    const giveUp = () => {
      if (own) void own.close().catch(() => {});
      return false;
    };
    let chars;
    try {
      chars = await host.characters();
    } catch (err) {
      giveUp();
      throw err;
    }
    // After the await: a worker may have left, another task's episode may have taken a room.
    if (!workers.every((w) => st.links.has(w))) return giveUp();
    if (scene && this.seated.has(workers[0]!)) return giveUp();
    const usedRooms = new Set([...this.live].filter((e) => e.host === host).map((e) => e.location));
    const byId = new Map(chars.map((c) => [c.id, c]));
    const isFree = (p: string) => byId.has(p) && !host.driverOf(p);
    const rooms = scene ? [scene.location].filter((r) => !usedRooms.has(r)) : shuffle(task.locations.filter((r) => !usedRooms.has(r)));
    // A gold scene: the partner speaks first (seat 0), the worker answers (seat 1).
    const free = scene ? [scene.partner, scene.persona].filter(isFree) : shuffle(task.personas.filter(isFree));
    if (!rooms.length || free.length < 2) return giveUp();
    const room = rooms[0]!;
    const [a, b] = [byId.get(free[0]!)!, byId.get(free[1]!)!];
    const ep = new LiveEpisode(this, host, id, scene ? { ...task, turns: 2 } : task, room, [a.id, a.name], [b.id, b.name]);
    const workerSeats = scene ? [ep.seats[1]] : ep.seats;
    workers.forEach((w, i) => {
      const seat = workerSeats[i]!;
      seat.worker = w;
      seat.link = st.links.get(w)!;
    });
    if (scene) ep.seats[0].partner = new ScriptPartner([{ say: scene.say }], `gold:${scene.id}`);
    else if (workers.length === 1) ep.seats[1].partner = this.opts.partner();
    for (const s of ep.seats) ep.host.attach(s.character, s);
    this.live.add(ep);
    for (const w of workers) this.seated.set(w, workerSeats[workers.indexOf(w)]!);
    try {
      for (const s of ep.seats) await ep.host.admin({ op: 'teleport', actor: s.character, who: s.character, to: room }, null);
      const views = await Promise.all(ep.seats.map((s) => ep.host.agentView(s.character, { partner: ep.other(s).character })));
      const states = await Promise.all(ep.seats.map((s) => ep.host.state(s.character)));
      const v0 = views[0]!;
      const setup: EpisodeSetup = {
        setting: { name: v0.facts.setting.name, category: v0.facts.setting.category ?? '', description: v0.facts.setting.description },
        personas: ep.seats.map((s, i) => ({ id: s.character, name: s.name, persona: views[i]?.facts.self.persona ?? '' })),
        objects: {
          room: (states[0]?.objects ?? []).filter((o) => o.parent === room || !ep.seats.some((s) => s.character === o.parent)).map((o) => o.name),
          carried: Object.fromEntries(ep.seats.map((s, i) => [s.character, views[i]?.held ?? []])),
        },
      };
      this.store.addEpisode({ id, task: task.id, room, characters: ep.seats.map((s) => s.character), setup, startedAt: Date.now() });
      ep.setup = setup;
      if (scene) ep.gold = { scene, valid: answerIsEmote(scene) || !!states[1]?.validActions.includes(scene.answer.trim().toLowerCase()) };
      for (const s of ep.seats) {
        if (!s.worker) continue;
        s.unit = `${id}-${s.character}`;
        this.store.addUnit({ id: s.unit, task: task.id, episode: id, worker: s.worker, character: s.character, partner: ep.other(s).kind, ...(scene ? { gold: { ...checkGold(scene, null, true), result: 'pending' } } : {}) });
      }
    } catch (err) {
      this.live.delete(ep);
      for (const s of ep.seats) {
        ep.host.detach(s.character, s);
        if (s.worker) this.seated.delete(s.worker);
      }
      giveUp();
      throw err;
    }
    this.log.info({ task: task.id, episode: id, room, characters: ep.seats.map((s) => s.character), partner: ep.seats[1].kind }, 'crowd episode started');
    for (const s of ep.humans()) await this.sendPaired(ep, s);
    this.startTurn(ep);
    return true;
  }

  private async sendPaired(ep: LiveEpisode, seat: Seat): Promise<void> {
    const setup = ep.setup;
    if (!setup) return;
    const other = ep.other(seat);
    const persona = (id: string) => setup.personas.find((p) => p.id === id)?.persona ?? '';
    const frame: PairedFrame = {
      type: 'paired', episode: ep.id,
      you: { id: seat.character, name: seat.name, persona: persona(seat.character) },
      partner: { id: other.character, name: other.name, persona: persona(other.character), kind: other.kind },
      setting: setup.setting, turns: ep.task.turns, turnSeconds: ep.task.turnSeconds, warningSeconds: ep.task.warningSeconds,
      reward: ep.task.reward, instructions: ep.task.instructions,
    };
    seat.send(frame);
    const [look, state] = await Promise.all([ep.host.look(seat.character), ep.host.state(seat.character)]);
    seat.send({ type: 'log', who: 'system', text: look });
    // The conversation so far (a worker who reloaded the page, or came back after a drop).
    const names = new Map(setup.personas.map((p) => [p.id, p.name]));
    for (const t of this.store.turns(ep.id)) {
      const mine = t.speaker === seat.character;
      const text = `${mine ? 'You' : names.get(t.speaker) ?? t.speaker}: ${t.say ? `"${t.say}"` : ''}${t.action ? ` (${t.action})` : ''}${t.emote ? ` (${t.emote})` : ''}`;
      seat.send({ type: 'log', who: mine ? 'you' : 'partner', text, ...(!mine && t.provenance.kind !== 'human' ? { model: true } : {}) });
    }
    if (state) seat.send({ type: 'state', ...state });
  }

  // ---- turns ---------------------------------------------------------------------------------

  private sendTurn(ep: LiveEpisode): void {
    const left = Math.max(0, Math.round(ep.task.turnSeconds - (Date.now() - ep.turnStartedAt) / 1000));
    ep.seats.forEach((s, i) => s.send({ type: 'turn', yours: i === ep.current, turn: ep.turn + 1, of: ep.task.turns, seconds: left }));
  }

  private startTurn(ep: LiveEpisode): void {
    if (ep.over) return;
    if (ep.turn >= ep.task.turns) return void this.finish(ep, 'complete', 'The episode is complete.');
    ep.turnStartedAt = Date.now();
    ep.warned = false;
    this.sendTurn(ep);
    const seat = ep.up;
    if (seat.partner) void this.partnerTurn(ep, seat);
  }

  private historyFor(ep: LiveEpisode, seat: Seat): HistoryEntry[] {
    return ep.history.map((h) => ({ speaker: h.speaker === seat.character ? 'self' : 'partner', kind: h.kind, text: h.text }));
  }

  private async partnerTurn(ep: LiveEpisode, seat: Seat): Promise<void> {
    const partner = seat.partner!;
    ep.busy = true;
    try {
      const heard = ep.lastSay && ep.lastSay.from !== seat.character ? ep.lastSay : undefined;
      const plan = await partner.takeTurn({ host: ep.host, character: seat.character, partner: ep.other(seat).character, history: this.historyFor(ep, seat), ...(heard ? { heard } : {}), turn: ep.turn });
      if (ep.over || ep.up !== seat) return;
      await this.execute(ep, seat, plan.say, plan.action ?? plan.emote, partner.provenance);
    } catch (err) {
      this.log.error({ episode: ep.id, err: (err as Error).message }, 'model partner turn failed; the turn passes');
      ep.current = 1 - ep.current;
    } finally {
      ep.busy = false;
    }
    this.startTurn(ep);
  }

  /** A worker's turn from the page. */
  async workerTurn(worker: string, say: string, act: string | undefined, link: WorkerLink): Promise<void> {
    const seat = this.seated.get(worker);
    if (!seat || seat.link !== link || seat.ep.over) return link.send({ type: 'error', message: 'You are not in an episode now.' });
    const ep = seat.ep;
    if (ep.up !== seat || ep.busy) return link.send({ type: 'refused', problems: ['It is your partner\'s turn; wait for them.'] });
    const text = say.replace(/\s+/g, ' ').trim();
    const problems: string[] = [];
    if (!text) problems.push('Please say something to your partner (one line).');
    else {
      const persona = ep.setup?.personas.find((p) => p.id === seat.character)?.persona ?? '';
      problems.push(...checkLine(text, { persona, said: seat.said }, ep.task.checks));
    }
    const action = act?.trim() || undefined;
    ep.busy = true;
    try {
      if (action && !isEmote(action.toLowerCase())) {
        const state = await ep.host.state(seat.character);
        if (!state?.validActions.includes(action)) problems.push(`"${action}" is not something you can do now; pick one of the action buttons, or none.`);
      }
      if (ep.over) return;
      if (problems.length) {
        if (seat.unit) this.store.addCheck(seat.unit, { text: action ? `${text} [${action}]` : text, problems, at: Date.now() });
        return link.send({ type: 'refused', problems });
      }
      seat.timeouts = 0;
      link.send({ type: 'accepted' });
      const turn = await this.execute(ep, seat, text, action, { kind: 'human', worker });
      if (ep.gold && seat.unit) this.store.setGold(seat.unit, checkGold(ep.gold.scene, turn, ep.gold.valid));
    } finally {
      ep.busy = false;
    }
    this.startTurn(ep);
  }

  /** Run one turn in the engine (say, then the action validOnly, or the emote) and store it with its provenance. */
  private async execute(ep: LiveEpisode, seat: Seat, say: string, act: string | undefined, provenance: Provenance): Promise<{ say: string; action?: string; emote?: string }> {
    const c = seat.character;
    const turn: { say: string; action?: string; emote?: string } = { say: '' };
    let lastState: CharacterState | undefined;
    if (say.trim()) {
      const r = await ep.host.submit(c, `say ${say}`);
      if (r.ok) {
        turn.say = quoted(r.text).trim() || say;
        seat.send({ type: 'log', who: 'you', text: r.text });
        ep.history.push({ speaker: c, kind: 'say', text: turn.say });
        ep.lastSay = { from: c, text: turn.say };
        seat.said.push(turn.say);
      }
      lastState = r.states[c];
    }
    if (act) {
      const emote = act.toLowerCase();
      if (isEmote(emote)) {
        const r = await ep.host.submit(c, emote);
        if (r.ok) {
          turn.emote = emote;
          seat.send({ type: 'log', who: 'you', text: r.text });
          ep.history.push({ speaker: c, kind: 'emote', text: emote });
        }
        lastState = r.states[c] ?? lastState;
      } else {
        const r = await ep.host.submit(c, act, null, { validOnly: true });
        seat.send({ type: 'log', who: 'you', text: r.text });
        if (r.ok) {
          turn.action = r.action ?? act;
          ep.history.push({ speaker: c, kind: 'act', text: turn.action });
        }
        lastState = r.states[c] ?? lastState;
      }
    }
    if (lastState) seat.send({ type: 'state', ...lastState });
    if (ep.over) return turn;
    if (turn.say || turn.action || turn.emote) {
      this.store.addTurn({ episode: ep.id, idx: ep.turn, speaker: c, say: turn.say, ...(turn.action ? { action: turn.action } : {}), ...(turn.emote ? { emote: turn.emote } : {}), provenance, at: Date.now() });
      ep.turn++;
    }
    ep.current = 1 - ep.current;
    return turn;
  }

  private timedOut(ep: LiveEpisode, seat: Seat): void {
    seat.timeouts++;
    if (seat.unit) this.store.addCheck(seat.unit, { text: '', problems: ['turn timed out'], at: Date.now() });
    // A gold scene's one turn missed: no answer, a failure (void when the answer could not be done).
    if (ep.gold && seat.unit) this.store.setGold(seat.unit, checkGold(ep.gold.scene, null, ep.gold.valid));
    if (seat.timeouts >= 2) return void this.dropped(ep, seat, 'timed out twice');
    seat.send({ type: 'log', who: 'system', text: 'You ran out of time; the turn passes to your partner.' });
    ep.other(seat).send({ type: 'log', who: 'system', text: 'Your partner ran out of time; it is your turn.' });
    ep.current = 1 - ep.current;
    this.startTurn(ep);
  }

  /** A worker is gone (away too long, or timed out twice): replace them with a model, or end the episode, as the task says. */
  private async dropped(ep: LiveEpisode, seat: Seat, why: string): Promise<void> {
    if (ep.over || seat.partner) return;
    const other = ep.other(seat);
    this.log.info({ episode: ep.id, character: seat.character, why }, 'crowd worker dropped');
    if (other.partner) return this.finish(ep, 'ended', `worker ${why}`, false);
    if (ep.task.partnerDrop === 'end_and_credit') {
      other.send({ type: 'partner', status: 'gone', message: 'Your partner has left, so the episode ends here. You are credited for it.' });
      return this.finish(ep, 'ended', `partner ${why}`, true);
    }
    if (seat.unit) this.store.setUnitStatus(seat.unit, 'returned');
    seat.send({ type: 'closed', message: why === 'left' ? 'You were away too long; a model character took your place.' : 'You missed two turns; a model character took your place.' });
    if (seat.worker) this.seated.delete(seat.worker);
    seat.link = null;
    seat.worker = null;
    seat.unit = null;
    seat.awaySince = null;
    seat.partner = this.opts.partner();
    ep.host.refreshWatch(seat.character);
    other.send({ type: 'partner', status: 'replaced', message: 'Your partner has left; a model character (marked "model") takes their place. Carry on.' });
    if (ep.up === seat && !ep.busy) this.startTurn(ep);
  }

  /** End an episode: units of the workers still there are completed (with a code), their end form asked for. */
  async finish(ep: LiveEpisode, status: 'complete' | 'ended', reason: string, credit = true): Promise<void> {
    if (ep.over) return;
    ep.over = true;
    this.live.delete(ep);
    this.store.endEpisode(ep.id, status, reason);
    for (const s of ep.seats) {
      ep.host.detach(s.character, s);
      if (!s.worker || !s.unit) continue;
      this.seated.delete(s.worker);
      if (status === 'complete' || credit) {
        const c = code();
        this.store.setUnitStatus(s.unit, 'completed', { code: c });
        this.forms.set(s.worker, { unit: s.unit, code: c, reason });
        s.send({ type: 'end', reason });
      } else {
        this.store.setUnitStatus(s.unit, 'returned');
        s.send({ type: 'closed', message: `The episode ended: ${reason}` });
      }
    }
    this.log.info({ episode: ep.id, status, reason, turns: ep.turn }, 'crowd episode over');
    // The pair's own world: this server leaves it (its shard reclaims it when idle; its event log stays).
    if (ep.host !== this.host) void ep.host.close().catch((err: unknown) => this.log.warn({ episode: ep.id, err: (err as Error).message }, 'leaving the pair\'s world failed'));
    this.pump(ep.task.id);
  }

  /** The end form: rating, report, feedback; answers the completion code. */
  form(worker: string, form: { rating: number; report?: string; feedback?: string }, link: WorkerLink): void {
    const f = this.forms.get(worker);
    if (!f) return link.send({ type: 'error', message: 'There is no finished episode of yours to rate.' });
    this.store.endForm(f.unit, { rating: form.rating, report: form.report?.trim() || null, feedback: form.feedback?.trim() || null });
    this.forms.delete(worker);
    link.send({ type: 'done', code: f.code });
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    for (const ep of [...this.live]) {
      for (const s of ep.humans()) s.send({ type: 'closed', message: 'The server is shutting down; this episode ends here.' });
      void this.finish(ep, 'ended', 'server shut down', false);
    }
  }
}
