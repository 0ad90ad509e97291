/**
 * Cross-world presence and talk (issue 15): several lightmud servers, each serving its own world,
 * share one bus. `who` lists the players of every world on the bus, this world first; `tell NAME ...`
 * reaches a player of another world when nobody of that name is in this one. It lives in the network
 * layer: the engine knows nothing of other worlds, and nothing here touches a world's state or store.
 *
 * A world of a cluster has several servers, its portals (lightmud serve --remote, `shared`): each says
 * it is here with its portal id and answers for its own players on its portal's subjects; `who` merges
 * a world's portals (this world's fellow portals into "this world"), and a tell goes to the portal
 * that has the player.
 *
 * A player's shout is heard in the rooms next door by the engine, as always; on the bus it carries further:
 * every server tells its players who did not hear it (this world's far rooms, and every other world),
 * naming the shouter where they are in another world. One player's shouts go beyond the rooms nearby at
 * most once every `shoutEveryMs`. Model characters' shouts stay in their world.
 *
 * Nothing that crosses the bus is durable or logged: a tell to another world is a message of the
 * moment, lost if the bus is down (the sender is told). A world that does not answer within
 * `timeoutMs` is named as not answering; nothing waits longer.
 */
import { BusNoResponderError, BusTimeoutError, BusUnavailableError, type Bus, type BusBody } from '../bus/bus.js';
import type { Log } from '../host/host.js';
import type { CrossWorldOptions } from './limits.js';
import { randomBytes } from 'node:crypto';
import {
  PRESENCE_SUBJECT, SHOUT_SUBJECT, portalTellSubject, portalWhoSubject, readPresence, readShout, readTellAnswer, readTellRequest, readWhoAnswer, tellSubject, whoSubject,
  type TellAnswer, type WhoAnswer,
} from './cross-world-messages.js';
import type { Portal } from './portal.js';
import { matchTellTarget } from './tell-target.js';
import { whoLine, type WhoLineEntry } from './who-lines.js';
import { WorldRoster, type RosterEntry } from './world-roster.js';

export type { CrossWorldOptions };

export interface CrossWorldDeps {
  portal: Portal;
  /** This world's title (the world file's). */
  title(): string;
  log: Log;
  /** Tell every player of this world something (the bus went down, or came back). */
  broadcast(text: string): void;
}

/** What `who` heard from one server (a world, or one portal of a cluster's world). */
type ServerWho = { entry: RosterEntry } & ({ state: 'answered'; players: WhoLineEntry[]; title: string } | { state: 'not answering' | 'gone' });
/** What `who` knows of one other world: its servers' answers together. */
type WorldWho = { world: string; title: string; servers: ServerWho[] } & ({ state: 'answered'; players: WhoLineEntry[]; silent: number } | { state: 'not answering' | 'gone' });

export const BUS_DOWN_NOTICE = 'Cross-world talk is unavailable: the bus between the worlds is down. This world plays on as before.';
export const BUS_BACK_NOTICE = 'Cross-world talk is back: who and tell reach the other worlds again.';

export class CrossWorld {
  readonly bus: Bus;
  readonly world: string;
  readonly timeoutMs: number;
  /** One of several portals of a cluster's world (lightmud serve --remote). */
  readonly shared: boolean;
  /** This server's id among its world's servers (one subject token). */
  readonly portalId: string;
  private readonly heartbeatMs: number;
  /** Null: shouts stay in their world. */
  private readonly shoutEveryMs: number | null;
  /** When each player (character id) last shouted beyond the rooms nearby. */
  private readonly lastShout = new Map<string, number>();
  private readonly roster: WorldRoster;
  private unsubscribe: (() => void)[] = [];
  private heartbeat: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(opts: CrossWorldOptions, private deps: CrossWorldDeps) {
    this.bus = opts.bus;
    this.world = opts.world;
    this.timeoutMs = opts.timeoutMs ?? 500;
    this.heartbeatMs = opts.heartbeatMs ?? 2000;
    this.shared = opts.shared === true;
    this.shoutEveryMs = opts.shoutEveryMs === undefined ? 10_000 : opts.shoutEveryMs;
    this.portalId = `p${randomBytes(6).toString('hex')}`;
    this.roster = new WorldRoster({ world: this.world, portal: this.portalId }, this.heartbeatMs * 30);
  }

  /** Join the bus: refuse if another server already serves a world of this name there; then answer and announce. */
  async start(): Promise<void> {
    if (!this.bus.up) throw new Error(`the bus (${this.bus.name}) is down`);
    try {
      const other = readWhoAnswer(await this.bus.request(whoSubject(this.world), { from: this.world }, this.timeoutMs));
      // Portals of one cluster world (each --remote) share its name; nothing else does.
      if (!(this.shared && other?.shared)) {
        const why = this.shared ? ' (a server that runs that world itself, not a portal of its shard)' : other?.shared ? ' (as a world of a cluster, with portals)' : '';
        throw new Error(`a world called "${this.world}" is already on the bus (${this.bus.name})${other ? `: ${other.title}` : ''}${why}; give this one another --world-id`);
      }
    } catch (err) {
      if (!(err instanceof BusNoResponderError || err instanceof BusTimeoutError)) throw err;
    }
    this.unsubscribe.push(
      this.bus.subscribe(PRESENCE_SUBJECT, (body) => this.onPresence(body)),
      this.bus.subscribe(SHOUT_SUBJECT, (body) => this.onShout(body)),
      this.bus.serve(whoSubject(this.world), () => this.whoAnswer()),
      this.bus.serve(portalWhoSubject(this.world, this.portalId), () => this.whoAnswer()),
      this.bus.serve(portalTellSubject(this.world, this.portalId), (body) => this.deliverTell(body)),
      // A world's own tell subject only where one server has every player of the world.
      ...(this.shared ? [] : [this.bus.serve(tellSubject(this.world), (body) => this.deliverTell(body))]),
      this.bus.onStatus((up) => this.onStatus(up)),
    );
    this.announce('here');
    this.heartbeat = setInterval(() => this.announce('here'), this.heartbeatMs);
    this.heartbeat.unref();
  }

  private announce(kind: 'here' | 'gone'): void {
    this.bus.publish(PRESENCE_SUBJECT, { kind, world: this.world, title: this.deps.title(), portal: this.portalId, shared: this.shared });
  }

  private onPresence(body: BusBody): void {
    const p = readPresence(body);
    if (!p) return this.deps.log.warn({ body: JSON.stringify(body).slice(0, 200) }, 'a presence message of the wrong shape on the bus was dropped');
    // A world new to us may not know us yet: say we are here (once per newcomer, not per heartbeat).
    if (this.roster.heard(p) && !this.closed) this.announce('here');
  }

  private onStatus(up: boolean): void {
    if (this.closed) return;
    if (up) this.announce('here');
    this.deps.log.warn({ bus: this.bus.name, up }, up ? 'cross-world talk is back' : 'cross-world talk is unavailable: the bus is down');
    // A portal's world is on the bus too: its players are told by each command that the world is unavailable.
    if (!this.shared) this.deps.broadcast(up ? BUS_BACK_NOTICE : BUS_DOWN_NOTICE);
  }

  private localPlayers(): WhoLineEntry[] {
    return this.deps.portal.who().map((w) => ({ name: w.name, account: w.account, role: w.role, transport: w.transport, connected: w.connected }));
  }

  private whoAnswer(): BusBody {
    return { world: this.world, title: this.deps.title(), players: this.localPlayers(), portal: this.portalId, shared: this.shared } satisfies WhoAnswer;
  }

  private deliverTell(body: BusBody): BusBody {
    const t = readTellRequest(body);
    if (!t) {
      this.deps.log.warn({ body: JSON.stringify(body).slice(0, 200) }, 'a tell of the wrong shape on the bus was dropped');
      return { delivered: false, reason: 'the tell could not be read' } satisfies TellAnswer;
    }
    const q = t.to.toLowerCase();
    const session = [...this.deps.portal.sessions].find((s) => s.character.name.toLowerCase() === q || s.account?.name.toLowerCase() === q);
    if (!session) return { delivered: false, reason: 'not playing' } satisfies TellAnswer;
    if (!session.link) return { delivered: false, name: session.character.name, reason: 'link-dead' } satisfies TellAnswer;
    session.link.sendSystem(`${t.from} (in ${t.fromTitle}) tells you: "${t.text}"`);
    return { delivered: true, name: session.character.name } satisfies TellAnswer;
  }

  private onShout(body: BusBody): void {
    const shout = readShout(body);
    if (!shout) return this.deps.log.warn({ body: JSON.stringify(body).slice(0, 200) }, 'a shout of the wrong shape on the bus was dropped');
    const here = shout.fromWorld === this.world;
    const heard = here ? new Set(shout.heard) : null;
    const text = here ? `Someone shouts far away, "${shout.text}"` : `${shout.from} shouts from another world (${shout.fromTitle}), "${shout.text}"`;
    for (const s of this.deps.portal.sessions) if (s.link && !heard?.has(s.character.id)) s.link.sendSystem(text);
  }

  /**
   * A player's shout, which the engine has carried to the rooms next door (`heard`: the characters who heard it
   * there, the shouter included), carried on to everyone else on the bus. Returns a note for the shouter when it
   * went no further, or null.
   */
  shout(player: { id: string; name: string }, text: string, heard: string[], now = Date.now()): string | null {
    if (this.shoutEveryMs === null || this.closed) return null;
    if (!this.bus.up) return '(Only the rooms nearby heard you: cross-world talk is unavailable right now, so nobody further off did.)';
    const last = this.lastShout.get(player.id);
    if (last !== undefined && now - last < this.shoutEveryMs) {
      const wait = Math.ceil((this.shoutEveryMs - (now - last)) / 1000);
      return `(Only the rooms nearby heard you: a shout carries further once every ${Math.round(this.shoutEveryMs / 1000)} s; ${wait} s to go.)`;
    }
    this.lastShout.set(player.id, now);
    if (this.lastShout.size > 10_000) for (const [id, t] of this.lastShout) if (now - t >= this.shoutEveryMs) this.lastShout.delete(id);
    this.bus.publish(SHOUT_SUBJECT, { from: player.name, fromWorld: this.world, fromTitle: this.deps.title(), text, heard });
    return null;
  }

  /** Every other server's answer (or why none), in parallel, each within the timeout. */
  private async ask(): Promise<ServerWho[]> {
    return Promise.all(this.roster.others().map(async (entry): Promise<ServerWho> => {
      if (entry.state === 'gone') return { entry, state: 'gone' };
      const subject = entry.portal ? portalWhoSubject(entry.world, entry.portal) : whoSubject(entry.world);
      try {
        const a = readWhoAnswer(await this.bus.request(subject, { from: this.world }, this.timeoutMs));
        if (!a || a.world !== entry.world) {
          this.deps.log.warn({ world: entry.world }, 'a who answer of the wrong shape on the bus was dropped');
          return { entry, state: 'not answering' };
        }
        return { entry, state: 'answered', title: a.title, players: a.players };
      } catch {
        return { entry, state: 'not answering' };
      }
    }));
  }

  /** The servers' answers, this world's fellow portals apart and the other worlds each with its servers together. */
  private async gather(): Promise<{ fellows: ServerWho[]; others: WorldWho[] }> {
    const heard = await this.ask();
    const byWorld = new Map<string, ServerWho[]>();
    for (const h of heard) if (h.entry.world !== this.world) byWorld.set(h.entry.world, [...(byWorld.get(h.entry.world) ?? []), h]);
    const others = [...byWorld].map(([world, servers]): WorldWho => {
      const answered = servers.filter((x): x is Extract<ServerWho, { state: 'answered' }> => x.state === 'answered');
      const title = answered[0]?.title ?? servers[0]!.entry.title;
      if (answered.length) {
        const silent = servers.filter((x) => x.state === 'not answering').length;
        return { world, title, servers, state: 'answered', players: answered.flatMap((x) => x.players), silent };
      }
      return { world, title, servers, state: servers.every((x) => x.state === 'gone') ? 'gone' : 'not answering' };
    });
    return { fellows: heard.filter((h) => h.entry.world === this.world), others };
  }

  /** The `who` text: this world's players (on every one of its portals), then each other world's (or why not). */
  async who(): Promise<string> {
    const mine = this.localPlayers();
    if (!this.bus.up) {
      const own = [`${this.deps.title()} (this world, ${this.world}): ${mine.length} playing${this.shared ? ' on this portal' : ''}`, ...mine.map(whoLine)];
      return [`${mine.length} playing here:`, ...own, `Other ${this.shared ? 'portals and worlds' : 'worlds'}: unknown; cross-world talk is unavailable (the bus, ${this.bus.name}, is down).`].join('\n');
    }
    const { fellows, others } = await this.gather();
    const here = [...mine, ...fellows.flatMap((f) => (f.state === 'answered' ? f.players : []))];
    const silentFellows = fellows.filter((f) => f.state === 'not answering').length;
    const answered = others.filter((w) => w.state === 'answered');
    const total = here.length + answered.reduce((n, w) => n + w.players.length, 0);
    const portalNote = (silent: number) => (silent ? ` (${silent} of its portals did not answer)` : '');
    const lines = [
      `${total} playing in ${answered.length + 1} world${answered.length ? 's' : ''}:`,
      `${this.deps.title()} (this world, ${this.world}): ${here.length} playing${portalNote(silentFellows)}`,
      ...here.map(whoLine),
    ];
    for (const w of others) {
      if (w.state === 'answered') lines.push(`${w.title} (${w.world}): ${w.players.length} playing${portalNote(w.silent)}`, ...w.players.map(whoLine));
      else if (w.state === 'gone') lines.push(`${w.title} (${w.world}): gone (its server stopped)`);
      else lines.push(`${w.title} (${w.world}): not answering`);
    }
    return lines.join('\n');
  }

  /**
   * A tell this world's engine could not deliver (nobody of that name here): find the player in another world and
   * deliver it there. `line` is what follows "tell"; `localNames` are this world's characters. Null when the line
   * names someone of this world: the engine's own reply stands.
   */
  async tell(from: string, line: string, localNames: string[]): Promise<{ ok: boolean; text: string } | null> {
    // "tell" alone, or a name of this world: the engine's own answer ("Tell whom what?", "... is not here").
    if (!line.trim() || matchTellTarget(line, [{ world: this.world, names: localNames }])) return null;
    const guess = /^(\S+?)[:,]?(?:\s|$)/.exec(line)?.[1] ?? line;
    if (!this.bus.up) {
      return { ok: false, text: `Nobody called "${guess}" is here, and cross-world talk is unavailable right now (the bus between the worlds is down), so the other worlds cannot be asked.` };
    }
    const { others } = await this.gather();
    const answered = others.filter((w): w is Extract<WorldWho, { state: 'answered' }> => w.state === 'answered');
    const silent = others.filter((w) => w.state === 'not answering').map((w) => `${w.title} (${w.world})`);
    const silentNote = silent.length ? ` (${silent.join(', ')} did not answer.)` : '';
    const namesOf = (players: WhoLineEntry[]) => players.flatMap((p) => (p.account ? [p.name, p.account] : [p.name]));
    const target = matchTellTarget(line, answered.map((w) => ({ world: w.world, names: namesOf(w.players) })));
    if (!target) return { ok: false, text: `Nobody called "${guess}" is playing, in this world or in any other world on the bus.${silentNote}` };
    if (target.worlds.length > 1) {
      return { ok: false, text: `Someone called "${target.name}" is playing in ${target.worlds.join(' and ')}: say which, as in tell ${target.name}@${target.worlds[0]} ${target.text || 'hello'}` };
    }
    if (!target.text) return { ok: false, text: `Tell ${target.name} what?` };
    const world = answered.find((w) => w.world === target.worlds[0])!;
    // The server that listed the player (a cluster world: the portal the player is on).
    const q = target.name.toLowerCase();
    const holders = world.servers.filter((x): x is Extract<ServerWho, { state: 'answered' }> => x.state === 'answered' && namesOf(x.players).some((n) => n.toLowerCase() === q));
    let answer: TellAnswer | null = null;
    for (const server of holders) {
      const subject = server.entry.portal ? portalTellSubject(world.world, server.entry.portal) : tellSubject(world.world);
      try {
        answer = readTellAnswer(await this.bus.request(subject, { from, fromWorld: this.world, fromTitle: this.deps.title(), to: target.name, text: target.text }, this.timeoutMs));
      } catch (err) {
        if (err instanceof BusUnavailableError) return { ok: false, text: 'Cross-world talk is unavailable right now (the bus between the worlds is down); your tell was not delivered.' };
        return { ok: false, text: `${world.title} (${world.world}) did not answer; your tell to ${target.name} was not delivered.` };
      }
      if (!answer || answer.delivered) break;
    }
    if (!answer) return { ok: false, text: `${world.title} (${world.world}) gave an answer that could not be read; your tell may not have been delivered.` };
    if (!answer.delivered) {
      const why = answer.reason === 'link-dead' ? 'has lost their connection' : 'is no longer playing';
      return { ok: false, text: `${answer.name ?? target.name} ${why} in ${world.title}; your tell was not delivered.` };
    }
    return { ok: true, text: `You tell ${answer.name ?? target.name} (in ${world.title}): "${target.text}"` };
  }

  /** Say this world is gone and leave the bus (the bus itself is its owner's to close). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.bus.up) this.announce('gone');
    for (const u of this.unsubscribe) u();
    this.unsubscribe = [];
  }
}
