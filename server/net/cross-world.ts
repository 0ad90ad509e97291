/**
 * Cross-world presence and talk (issue 15): several lightmud servers, each serving its own world,
 * share one bus. `who` lists the players of every world on the bus, this world first; `tell NAME ...`
 * reaches a player of another world when nobody of that name is in this one. It lives in the network
 * layer: the engine knows nothing of other worlds, and nothing here touches a world's state or store.
 *
 * Nothing that crosses the bus is durable or logged: a tell to another world is a message of the
 * moment, lost if the bus is down (the sender is told). A world that does not answer within
 * `timeoutMs` is named as not answering; nothing waits longer.
 */
import { BusNoResponderError, BusTimeoutError, BusUnavailableError, type Bus, type BusBody } from '../bus/bus.js';
import type { Log } from '../host/host.js';
import type { CrossWorldOptions } from './limits.js';
import {
  PRESENCE_SUBJECT, readPresence, readTellAnswer, readTellRequest, readWhoAnswer, tellSubject, whoSubject,
  type TellAnswer, type WhoAnswer,
} from './cross-world-messages.js';
import type { Portal } from './portal.js';
import { matchTellTarget } from './tell-target.js';
import { whoLine, type WhoLineEntry } from './who-lines.js';
import { WorldRoster } from './world-roster.js';

export type { CrossWorldOptions };

export interface CrossWorldDeps {
  portal: Portal;
  /** This world's title (the world file's). */
  title(): string;
  log: Log;
  /** Tell every player of this world something (the bus went down, or came back). */
  broadcast(text: string): void;
}

/** What `who` knows of one world. */
type WorldWho = { world: string; title: string } & ({ state: 'answered'; players: WhoLineEntry[] } | { state: 'not answering' | 'gone' });

export const BUS_DOWN_NOTICE = 'Cross-world talk is unavailable: the bus between the worlds is down. This world plays on as before.';
export const BUS_BACK_NOTICE = 'Cross-world talk is back: who and tell reach the other worlds again.';

export class CrossWorld {
  readonly bus: Bus;
  readonly world: string;
  readonly timeoutMs: number;
  private readonly heartbeatMs: number;
  private readonly roster: WorldRoster;
  private unsubscribe: (() => void)[] = [];
  private heartbeat: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(opts: CrossWorldOptions, private deps: CrossWorldDeps) {
    this.bus = opts.bus;
    this.world = opts.world;
    this.timeoutMs = opts.timeoutMs ?? 500;
    this.heartbeatMs = opts.heartbeatMs ?? 2000;
    this.roster = new WorldRoster(this.world, this.heartbeatMs * 30);
  }

  /** Join the bus: refuse if another server already serves a world of this name there; then answer and announce. */
  async start(): Promise<void> {
    if (!this.bus.up) throw new Error(`the bus (${this.bus.name}) is down`);
    try {
      const other = readWhoAnswer(await this.bus.request(whoSubject(this.world), { from: this.world }, this.timeoutMs));
      throw new Error(`a world called "${this.world}" is already on the bus (${this.bus.name})${other ? `: ${other.title}` : ''}; give this one another --world-id`);
    } catch (err) {
      if (!(err instanceof BusNoResponderError || err instanceof BusTimeoutError)) throw err;
    }
    this.unsubscribe.push(
      this.bus.subscribe(PRESENCE_SUBJECT, (body) => this.onPresence(body)),
      this.bus.serve(whoSubject(this.world), () => this.whoAnswer()),
      this.bus.serve(tellSubject(this.world), (body) => this.deliverTell(body)),
      this.bus.onStatus((up) => this.onStatus(up)),
    );
    this.announce('here');
    this.heartbeat = setInterval(() => this.announce('here'), this.heartbeatMs);
    this.heartbeat.unref();
  }

  private announce(kind: 'here' | 'gone'): void {
    this.bus.publish(PRESENCE_SUBJECT, { kind, world: this.world, title: this.deps.title() });
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
    this.deps.broadcast(up ? BUS_BACK_NOTICE : BUS_DOWN_NOTICE);
  }

  private localPlayers(): WhoLineEntry[] {
    return this.deps.portal.who().map((w) => ({ name: w.name, account: w.account, role: w.role, transport: w.transport, connected: w.connected }));
  }

  private whoAnswer(): BusBody {
    return { world: this.world, title: this.deps.title(), players: this.localPlayers() } satisfies WhoAnswer;
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

  /** Every other world's answer (or why none), in parallel, each within the timeout. */
  private async gather(): Promise<WorldWho[]> {
    return Promise.all(this.roster.others().map(async (e): Promise<WorldWho> => {
      const base = { world: e.world, title: e.title };
      if (e.state === 'gone') return { ...base, state: 'gone' };
      try {
        const a = readWhoAnswer(await this.bus.request(whoSubject(e.world), { from: this.world }, this.timeoutMs));
        if (!a) {
          this.deps.log.warn({ world: e.world }, 'a who answer of the wrong shape on the bus was dropped');
          return { ...base, state: 'not answering' };
        }
        return { world: a.world, title: a.title, state: 'answered', players: a.players };
      } catch {
        return { ...base, state: 'not answering' };
      }
    }));
  }

  /** The `who` text: this world's players, then each other world's (or why not). */
  async who(): Promise<string> {
    const here = this.localPlayers();
    const own = [`${this.deps.title()} (this world, ${this.world}): ${here.length} playing`, ...here.map(whoLine)];
    if (!this.bus.up) return [`${here.length} playing here:`, ...own, `Other worlds: unknown; cross-world talk is unavailable (the bus, ${this.bus.name}, is down).`].join('\n');
    const others = await this.gather();
    const answered = others.filter((w) => w.state === 'answered');
    const total = here.length + answered.reduce((n, w) => n + w.players.length, 0);
    const lines = [`${total} playing in ${answered.length + 1} world${answered.length ? 's' : ''}:`, ...own];
    for (const w of others) {
      if (w.state === 'answered') lines.push(`${w.title} (${w.world}): ${w.players.length} playing`, ...w.players.map(whoLine));
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
    const others = await this.gather();
    const answered = others.filter((w): w is Extract<WorldWho, { state: 'answered' }> => w.state === 'answered');
    const silent = others.filter((w) => w.state === 'not answering').map((w) => `${w.title} (${w.world})`);
    const silentNote = silent.length ? ` (${silent.join(', ')} did not answer.)` : '';
    const target = matchTellTarget(line, answered.map((w) => ({ world: w.world, names: w.players.flatMap((p) => (p.account ? [p.name, p.account] : [p.name])) })));
    if (!target) return { ok: false, text: `Nobody called "${guess}" is playing, in this world or in any other world on the bus.${silentNote}` };
    if (target.worlds.length > 1) {
      return { ok: false, text: `Someone called "${target.name}" is playing in ${target.worlds.join(' and ')}: say which, as in tell ${target.name}@${target.worlds[0]} ${target.text || 'hello'}` };
    }
    if (!target.text) return { ok: false, text: `Tell ${target.name} what?` };
    const world = answered.find((w) => w.world === target.worlds[0])!;
    let answer: TellAnswer | null;
    try {
      answer = readTellAnswer(await this.bus.request(tellSubject(world.world), { from, fromWorld: this.world, fromTitle: this.deps.title(), to: target.name, text: target.text }, this.timeoutMs));
    } catch (err) {
      if (err instanceof BusUnavailableError) return { ok: false, text: 'Cross-world talk is unavailable right now (the bus between the worlds is down); your tell was not delivered.' };
      return { ok: false, text: `${world.title} (${world.world}) did not answer; your tell to ${target.name} was not delivered.` };
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
