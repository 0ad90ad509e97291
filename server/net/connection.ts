/**
 * What every connection does, whatever its transport: the login steps, limits (rate, length,
 * timeouts), running commands in order, the server's own commands (quit, who, @admin ...), and
 * delivering what the character perceives. server/net/websocket.ts and server/net/telnet.ts
 * subclass it with their framing and presentation.
 */
import type { CharacterState, ErrorCode, EventSummary, FrameId } from './protocol.js';
import type { CharacterInfo, SubmitResult } from '../host/types.js';
import { cleanSpeech, parse } from '../engine/index.js';
import { HostUnavailableError, type Host, type Log } from '../host/host.js';
import type { Account, AccountStore } from '../store/accounts.js';
import { TokenBucket, type AddressBuckets, type ConnectionCounter, type ServerOptions } from './limits.js';
import type { LoginResult, Portal, Session, SessionLink } from './portal.js';
import type { ServerStats } from './stats.js';
import { DRIVE_HELP, driveCommand } from '../agents/drive-command.js';
import { cleanText } from './clean-text.js';
import { describeStorageFault } from '../store/db.js';
import type { CrossWorld } from './cross-world.js';
import { whoLine } from './who-lines.js';

export interface ServerContext {
  host: Host;
  portal: Portal;
  accounts: AccountStore;
  opts: ServerOptions;
  counter: ConnectionCounter;
  /** Websocket messages per address (all its connections together). */
  addressFrames: AddressBuckets;
  log: Log;
  connections: Set<Connection>;
  stats: ServerStats;
  /** Tell every connected player something (reloads, shutdown). */
  broadcast(text: string): void;
  /** The other worlds on a shared bus (--bus): cross-world who and tell. Null: this world alone. */
  crossWorld: CrossWorld | null;
}

export type Phase = 'login' | 'choosing' | 'playing' | 'closed';

export interface ResultInfo {
  id?: FrameId;
  ok: boolean;
  seq?: number;
}

const ADMIN_HELP = [
  'Admin commands:',
  '  @reload            reload the game code (the world state and every connection are kept)',
  '  @reload world      reset the world to its world file (connections are kept)',
  '  @save              write a snapshot of the world now',
  '  @kick NAME         end the session of a character or account',
  '  @teleport WHO to WHERE  (or @tp WHERE for yourself): move a character to a room or to another character',
  'Building (admins; saved into the world, kept over restarts, written by lightmud world export):',
  '  @dig DIRECTION NAME         a new room, joined to this one by an exit DIRECTION and a way back',
  '  @describe here|OBJECT|CHARACTER = TEXT   (or @desc) set a description',
  '  @link DIRECTION ROOM        an exit from here to a room that exists (one way)',
  '  @unlink DIRECTION           remove an exit from here',
  '  @create [object] NAME [= DESCRIPTION] [with AFFORDANCES]  make an object here; affordances:',
  '                              gettable, fixed, container, surface, weapon, wearable, food, drink (or +weapon ...)',
  DRIVE_HELP,
].join('\n');

const BUILDING = new Set(['@dig', '@describe', '@desc', '@link', '@unlink', '@create']);

const PLAYER_HELP = [
  'Server commands:', '  who     who is playing', '  quit    leave (your character is saved)', '  help    the game\'s commands',
  '  @password         change your account\'s password (telnet; websocket: the "password" frame)',
  '  @delete-account   delete your account for good (telnet; websocket: the "delete_account" frame)',
].join('\n');

function duration(ms: number): string {
  if (ms >= 120_000) return `${Math.round(ms / 60_000)} minutes`;
  const s = Math.round(ms / 100) / 10;
  return `${s} second${s === 1 ? '' : 's'}`;
}

export abstract class Connection implements SessionLink {
  abstract readonly transport: 'websocket' | 'telnet';
  abstract readonly wantsState: boolean;
  phase: Phase = 'login';
  session: Session | null = null;
  /** Logged in to an account (or a guest, null) and choosing a character. */
  account: Account | null = null;
  protected loginFailures = 0;
  private bucket: TokenBucket;
  private refusedInRow = 0;
  private lastInput = Date.now();
  private readonly openedAt = Date.now();
  private queue: Promise<void> = Promise.resolve();
  /** Requests waiting for the game (queued commands, states, lists): bounded by maxPendingRequests. */
  protected pending = 0;
  /** A login step is running (KDF, database): further login frames wait their turn. */
  private busy = false;
  /** end() was called: the transport is closing. */
  protected ending = false;

  constructor(protected ctx: ServerContext, readonly ip: string) {
    this.bucket = new TokenBucket(ctx.opts.commandsPerSecond, ctx.opts.commandBurst);
    ctx.connections.add(this);
  }

  /** (A method, so TypeScript does not narrow `phase` across awaits.) */
  isClosed(): boolean {
    return this.phase === 'closed';
  }

  get idleMs(): number {
    return Date.now() - this.lastInput;
  }

  // ---- output, per transport ------------------------------------------------------------------------

  abstract sendResult(text: string, info: ResultInfo): void;
  abstract sendEvent(text: string, event: EventSummary): void;
  abstract sendSystem(text: string): void;
  abstract sendLook(text: string, state: CharacterState | null): void;
  abstract sendState(state: CharacterState, id?: FrameId): void;
  abstract sendError(code: ErrorCode, message: string, id?: FrameId): void;
  abstract sendCharacters(list: CharacterInfo[], message?: string): void;
  abstract sendWelcome(session: Session, resumed: boolean): void;
  /** The account was changed as asked (password) or deleted. */
  abstract sendAccount(change: 'password' | 'deleted', message: string, id?: FrameId): void;
  /** Say goodbye (with the reason) and close the transport. `closed()` follows. */
  protected abstract closeTransport(reason: string, code?: ErrorCode): void;

  // ---- lifetime ------------------------------------------------------------------------------------

  /** Input arrived (any input: it proves the peer is there). */
  touch(): void {
    this.lastInput = Date.now();
  }

  /** Called by the server's sweep: enforce the login and idle timeouts. */
  checkTimers(now: number): void {
    if (this.phase === 'closed') return;
    const o = this.ctx.opts;
    // An absolute deadline from the moment of connecting: input (a byte every second, say) does not extend it.
    if (this.phase !== 'playing' && o.loginTimeoutMs > 0 && now - this.openedAt > o.loginTimeoutMs) {
      this.end(`You did not log in within ${duration(o.loginTimeoutMs)}; goodbye.`, 'login_timeout');
    } else if (o.idleTimeoutMs > 0 && now - this.lastInput > o.idleTimeoutMs) {
      this.end(`Idle for ${duration(o.idleTimeoutMs)}; goodbye. Your character is saved.`, 'idle_timeout');
    }
  }

  /** Close with a message (once; input after it is ignored). */
  end(reason: string, code?: ErrorCode): void {
    if (this.phase === 'closed' || this.ending) return;
    this.ending = true;
    this.closeTransport(reason, code);
  }

  /** The transport closed (for whatever reason). Call exactly once. */
  closed(): void {
    if (this.phase === 'closed') return;
    this.phase = 'closed';
    this.ctx.connections.delete(this);
    if (this.session) this.ctx.portal.unbind(this.session, this);
    this.session = null;
  }

  // ---- logins ----------------------------------------------------------------------------------------

  /** Run a login step; one at a time per connection. */
  protected async login(step: () => Promise<LoginResult>, id?: FrameId): Promise<void> {
    if (this.phase === 'playing') return this.sendError('already_logged_in', 'You are already playing; send commands, or quit first.', id);
    if (this.busy) return this.sendError('bad_frame', 'A login is already in progress; wait for its answer.', id);
    this.busy = true;
    let result: LoginResult;
    try {
      result = await step();
    } catch (err) {
      this.busy = false;
      if (err instanceof HostUnavailableError) return this.sendError('unavailable', err.message, id);
      this.ctx.log.error({ err: (err as Error).message }, 'login failed');
      return this.sendError('internal', 'Something went wrong on the server; try again.', id);
    }
    this.busy = false;
    if (this.phase === 'closed') {
      // The connection went away while we worked: do not hold the character for nobody.
      if (result.kind === 'session' && !result.resumed) this.ctx.portal.endSession(result.session, null);
      return;
    }
    try {
      this.onLoginResult(result, id);
    } catch (err) {
      this.ctx.log.error({ err: (err as Error).message }, 'login step failed');
    }
  }

  protected onLoginResult(result: LoginResult, id?: FrameId): void {
    switch (result.kind) {
      case 'session':
        this.account = result.session.account;
        return void this.takeUp(result.session, result.resumed);
      case 'choose':
        this.account = result.account;
        this.phase = 'choosing';
        if (!result.characters.length) return this.sendError('no_such_character', 'Every character is being played; try again later.', id);
        return this.sendCharacters(result.characters, result.message);
      case 'error':
        this.sendError(result.code, result.message, id);
        if (result.code === 'auth_failed' && ++this.loginFailures >= this.ctx.opts.maxLoginFailures) this.end('Too many failed logins; goodbye.', 'auth_failed');
    }
  }

  private async takeUp(session: Session, resumed: boolean): Promise<void> {
    this.ctx.portal.bind(session, this);
    this.session = session;
    this.phase = 'playing';
    this.sendWelcome(session, resumed);
    const fault = this.ctx.host.storage;
    if (fault) this.sendSystem(`Note: the server cannot save anything right now (${describeStorageFault(fault)}). You can look around, examine things and check your inventory, but actions are refused until it can.`);
    try {
      const [look, state] = await Promise.all([this.ctx.host.look(session.character.id), this.ctx.host.state(session.character.id)]);
      if (this.session === session) this.sendLook(look, state);
    } catch (err) {
      if (err instanceof HostUnavailableError) this.sendError('unavailable', err.message);
      else this.ctx.log.error({ err: (err as Error).message }, 'look after login failed');
    }
  }

  /** Change the password of the account logged in to, or delete the account (after its password). */
  protected async changeAccount(change: { kind: 'password'; old: string; next: string } | { kind: 'delete'; password: string }, id?: FrameId): Promise<void> {
    const account = this.account;
    if (!account || this.phase === 'login') return this.sendError('not_logged_in', 'Log in to your account first (guests have no account).', id);
    if (this.busy) return this.sendError('bad_frame', 'A login or account change is already in progress; wait for its answer.', id);
    this.busy = true;
    let r;
    try {
      r = change.kind === 'password'
        ? await this.ctx.portal.changePassword(this.ip, account, change.old, change.next, this.session?.token)
        : await this.ctx.portal.deleteAccount(this.ip, account, change.password);
    } catch (err) {
      this.ctx.log.error({ err: (err as Error).message }, 'account change failed');
      return this.sendError('internal', 'Something went wrong on the server; try again.', id);
    } finally {
      this.busy = false;
    }
    if (this.isClosed()) return;
    if (!r.ok) return this.sendError(r.code, r.message, id);
    this.sendAccount(change.kind === 'password' ? 'password' : 'deleted', r.message, id);
    if (change.kind === 'delete') {
      this.session = null;
      this.account = null;
      this.end('Your account is deleted. Goodbye.');
    }
  }

  /** Choose a character after logging in (as a guest: `account` null). */
  protected choose(query: string, id?: FrameId): Promise<void> {
    if (this.phase !== 'choosing') {
      if (this.phase === 'playing') return Promise.resolve(this.sendError('already_logged_in', 'You are already playing a character.', id));
      return Promise.resolve(this.sendError('not_logged_in', 'Log in first (as a guest, or with an account).', id));
    }
    return this.login(() => this.ctx.portal.enter(this.ip, this.account, query), id);
  }

  // ---- the session's side ---------------------------------------------------------------------------

  detachedFromSession(reason: string, rechoose: boolean): void {
    this.session = null;
    if (this.phase === 'closed') return;
    if (!rechoose) return this.end(reason);
    this.phase = 'choosing';
    this.sendSystem(reason);
    void this.ctx.portal.free().then((list) => this.phase === 'choosing' && this.sendCharacters(list), () => {});
  }

  // ---- commands --------------------------------------------------------------------------------------

  /** One line of game input. Refused at once when over the limits; otherwise run after the ones before it. */
  command(raw: string, id?: FrameId): void {
    if (this.ending) return;
    // Bidi overrides, invisible and control characters never reach the game or other players.
    const text = cleanText(raw);
    if (this.phase !== 'playing' || !this.session) {
      return this.sendError('not_logged_in', this.phase === 'choosing' ? 'Choose a character first.' : 'Log in first: as a guest, or with an account.', id);
    }
    if (!this.bucket.take()) {
      this.sendError('rate_limited', `Too many commands: at most ${this.ctx.opts.commandsPerSecond} a second (bursts of ${this.ctx.opts.commandBurst}); that one was dropped.`, id);
      if (++this.refusedInRow >= this.ctx.opts.floodDisconnectAfter) this.end('Flooding: too many commands; goodbye.', 'rate_limited');
      return;
    }
    this.refusedInRow = 0;
    if (text.length > this.ctx.opts.maxCommandLength) {
      return this.sendError('too_long', `That command is ${text.length} characters long; the limit is ${this.ctx.opts.maxCommandLength}.`, id);
    }
    if (this.pending >= this.ctx.opts.maxPendingRequests) {
      return this.sendError('rate_limited', `${this.pending} of your requests are still waiting for the game (the limit is ${this.ctx.opts.maxPendingRequests}); that command was dropped.`, id);
    }
    const session = this.session;
    const t0 = performance.now();
    this.pending++;
    this.queue = this.queue
      .then(() => this.run(session, text, id, t0))
      .catch((err: unknown) => {
        this.ctx.log.error({ err: (err as Error).message }, 'command failed');
        this.sendError('internal', 'Something went wrong on the server with that command.', id);
      })
      .finally(() => this.pending--);
  }

  /** Run a request that waits for the game, unless too many already wait; false when refused (and told). */
  protected bounded<T>(work: () => Promise<T>, id?: FrameId): Promise<T> | null {
    if (this.pending >= this.ctx.opts.maxPendingRequests) {
      this.sendError('rate_limited', `${this.pending} of your requests are still waiting for the game (the limit is ${this.ctx.opts.maxPendingRequests}); that one was dropped.`, id);
      return null;
    }
    this.pending++;
    return work().finally(() => this.pending--);
  }

  private async run(session: Session, text: string, id: FrameId | undefined, t0: number): Promise<void> {
    if (this.phase === 'closed' || this.session !== session) return;
    const line = text.trim();
    const word = line.split(/\s+/, 1)[0]!.toLowerCase();
    if (word.startsWith('@') || word === 'quit' || word === 'who' || word === 'logout') return this.meta(session, line, word, id);
    try {
      const r = await this.ctx.host.submit(session.character.id, text, session.account?.name ?? null);
      if (this.isClosed()) return;
      // The engine's tell reaches characters here; one it could not deliver may be to a player of another world.
      const cross = word === 'tell' && !r.ok && this.ctx.crossWorld ? await this.tellAcross(this.ctx.crossWorld, session, line.slice(word.length).trim()) : null;
      if (this.isClosed()) return;
      // A shout the engine carried next door goes on, over the bus, to everyone further off (cross-world.ts).
      const shoutNote = r.ok && this.ctx.crossWorld ? this.shoutAcross(this.ctx.crossWorld, session, line, r) : null;
      if (cross) this.sendResult(cross.text, { id, ok: cross.ok });
      // seq 0: not in the event log (a read while the database cannot be written, or a refusal).
      else this.sendResult(shoutNote ? `${r.text}\n${shoutNote}` : r.text, r.seq ? { id, ok: r.ok, seq: r.seq } : { id, ok: r.ok });
      this.ctx.stats.command(performance.now() - t0);
      const state = r.states[session.character.id];
      if (state) this.sendState(state, id);
    } catch (err) {
      if (err instanceof HostUnavailableError) return this.sendError('unavailable', err.message, id);
      throw err;
    }
  }

  private shoutAcross(cross: CrossWorld, session: Session, line: string, r: SubmitResult): string | null {
    const intent = parse(line);
    if (intent.kind !== 'shout') return null;
    const heard = [session.character.id, ...r.deliveries.filter((d) => d.event.type === 'shout' && d.event.actor === session.character.id).map((d) => d.character)];
    return cross.shout({ id: session.character.id, name: session.character.name }, cleanSpeech(intent.text), heard);
  }

  /** A tell to another world's player (null: the line names someone of this world, and the engine's reply stands). */
  private async tellAcross(cross: CrossWorld, session: Session, rest: string): Promise<{ ok: boolean; text: string } | null> {
    const local = (await this.ctx.host.characters()).map((c) => c.name);
    return cross.tell(session.character.name, rest, local);
  }

  private reply(text: string, ok: boolean, id?: FrameId, seq?: number): void {
    this.sendResult(text, seq === undefined ? { id, ok } : { id, ok, seq });
  }

  private async replyWithState(session: Session, text: string, ok: boolean, id?: FrameId, seq?: number): Promise<void> {
    this.reply(text, ok, id, seq);
    const state = await this.ctx.host.state(session.character.id);
    if (state && this.session === session) this.sendState(state, id);
  }

  /** The server's own commands: quit, who, and @admin commands. */
  private async meta(session: Session, line: string, word: string, id?: FrameId): Promise<void> {
    const { host, portal } = this.ctx;
    const rest = line.slice(word.length).trim();
    // The role as the database holds it now: `lightmud admin revoke` takes effect at the next command.
    const admin = session.account !== null && this.ctx.accounts.roleOf(session.account.id) === 'admin';
    const who = session.account?.name ?? null;
    try {
      switch (word) {
        case 'quit':
        case 'logout':
        case '@quit':
          this.reply('Goodbye. Your character stays where you left it.', true, id);
          portal.endSession(session, null, { revoke: true });
          this.session = null;
          return this.end('quit');
        case 'who':
        case '@who': {
          if (this.ctx.crossWorld) return this.replyWithState(session, await this.ctx.crossWorld.who(), true, id);
          const list = portal.who();
          return this.replyWithState(session, [`${list.length} playing:`, ...list.map(whoLine)].join('\n'), true, id);
        }
        case '@help':
          return this.replyWithState(session, admin ? `${PLAYER_HELP}\n${ADMIN_HELP}` : PLAYER_HELP, true, id);
      }
      if (word === '@password' || word === '@delete-account') {
        const frame = word === '@password' ? '{"type":"password","old":"...","new":"..."}' : '{"type":"delete_account","password":"..."}';
        return this.replyWithState(session, `Send a ${frame} frame: passwords are never sent as commands.`, false, id);
      }
      const known = ['@reload', '@save', '@kick', '@teleport', '@tp', '@create', '@drive', '@dig', '@describe', '@desc', '@link', '@unlink'];
      if (!known.includes(word)) return this.replyWithState(session, `There is no server command "${word}". Type @help.`, false, id);
      if (!admin) {
        this.sendError('forbidden', `${word} is for admins only${BUILDING.has(word) ? ' (building is for admins: `lightmud admin grant NAME`)' : ''}.`, id);
        return;
      }
      this.ctx.log.info({ account: who, command: line }, 'admin command');
      switch (word) {
        case '@reload': {
          if (/^world$/i.test(rest)) {
            const r = await host.admin({ op: 'reloadWorld', actor: session.character.id }, who);
            if (this.session === session) await this.replyWithState(session, r.text, r.ok, id, r.seq);
            this.ctx.broadcast('The world was reloaded from its file.');
            return;
          }
          if (rest && !/^code$/i.test(rest)) return this.replyWithState(session, 'Usage: @reload (the game code) or @reload world.', false, id);
          const r = await host.reloadCode();
          this.ctx.broadcast(`The game code was reloaded (${Math.round(r.ms)} ms); carry on.`);
          return this.replyWithState(session, `Reloaded the game code in ${Math.round(r.ms)} ms; ${portal.sessions.size} sessions kept.`, true, id);
        }
        case '@save': {
          const r = await host.admin({ op: 'save', actor: session.character.id }, who);
          return this.replyWithState(session, r.text, r.ok, id, r.seq);
        }
        case '@kick': {
          const [name, ...why] = rest.split(/\s+/);
          const target = name ? portal.find(name) : null;
          if (!target) return this.replyWithState(session, name ? `Nobody called "${name}" is playing.` : 'Usage: @kick NAME [reason]', false, id);
          if (target === session) return this.replyWithState(session, 'Use quit to leave.', false, id);
          portal.endSession(target, `You were kicked by ${who ?? 'an admin'}${why.length ? `: ${why.join(' ')}` : '.'}`, { revoke: true });
          return this.replyWithState(session, `Kicked ${target.character.name}${target.account ? ` (${target.account.name})` : ''}.`, true, id);
        }
        case '@teleport':
        case '@tp': {
          const m = /^(.+?)\s+to\s+(.+)$/i.exec(rest);
          const [whoQ, toQ] = m ? [m[1]!, m[2]!] : ['me', rest];
          if (!toQ) return this.replyWithState(session, 'Usage: @teleport WHO to WHERE, or @tp WHERE.', false, id);
          const r = await host.admin({ op: 'teleport', actor: session.character.id, who: whoQ, to: toQ }, who);
          return this.replyWithState(session, r.text, r.ok, id, r.seq);
        }
        case '@create': {
          const r = await host.admin({ op: 'create', actor: session.character.id, spec: rest }, who);
          return this.replyWithState(session, r.text, r.ok, id, r.seq);
        }
        case '@dig':
        case '@describe':
        case '@desc':
        case '@link':
        case '@unlink': {
          const verb = word === '@desc' ? 'describe' : (word.slice(1) as 'dig' | 'describe' | 'link' | 'unlink');
          const r = await host.admin({ op: 'build', actor: session.character.id, verb, args: rest }, who);
          return this.replyWithState(session, r.text, r.ok, id, r.seq);
        }
        case '@drive':
          return this.replyWithState(session, await driveCommand(host, rest), true, id);
      }
    } catch (err) {
      if (err instanceof HostUnavailableError) return this.sendError('unavailable', err.message, id);
      return this.replyWithState(session, `${word} failed: ${(err as Error).message}`, false, id);
    }
  }
}
