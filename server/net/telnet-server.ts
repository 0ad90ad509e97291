/**
 * The telnet transport: a login menu, then play, over server/net/telnet's TelnetConnection
 * (negotiation, line assembly, GMCP, MSSP, MCCP2). After each command or event: the text, a prompt,
 * and GMCP Room.Info / Room.Players / Char.Status / Char.Actions when the client agreed to GMCP.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { TelnetConnection, type TelnetError } from './telnet/index.js';
import { Connection, type ResultInfo, type ServerContext } from './connection.js';
import type { CharacterState, ErrorCode, EventSummary } from './protocol.js';
import type { CharacterInfo } from '../host/types.js';
import type { Session } from './portal.js';
import { addressKey, TokenBucket } from './limits.js';
import { SERVER_NAME, SERVER_VERSION } from './websocket.js';
import { clientShowsColour, colourGameText, EXITS, RESET, ROOM_NAME, SPEECH, TELNET_HELP } from './telnet-colour.js';

/** How many free characters the menu lists; the rest are reachable by name. */
const LIST_MAX = 40;

type Step =
  | { kind: 'menu' }
  | { kind: 'password'; name: string }
  | { kind: 'new-password'; name: string }
  | { kind: 'confirm-password'; name: string; password: string }
  | { kind: 'choosing'; choices: CharacterInfo[] }
  | { kind: 'playing' }
  /** Account changes while playing (@password, @delete-account): the passwords, with echo off. */
  | { kind: 'change-old' }
  | { kind: 'change-new'; old: string }
  | { kind: 'change-confirm'; old: string; next: string }
  | { kind: 'delete-password' };

export class TelnetSession extends Connection {
  readonly transport = 'telnet' as const;
  private step: Step = { kind: 'menu' };
  private promptScheduled = false;
  private lastRoom: string | null = null;
  /** Bytes received, against --telnet-byte-rate. */
  private bytes: TokenBucket;
  /** Protocol errors by code: each code is logged once per connection, the counts when it closes. */
  private errorCounts = new Map<string, number>();
  /** The player's `color on|off`, which wins over what the client's terminal type says; null: not chosen. */
  private colourChoice: boolean | null = null;
  /** `prompt off`: no "> " while playing. */
  private promptOn = true;
  /** `help` commands typed whose results have not come back: the telnet commands go after each. */
  private helpPending = 0;

  constructor(ctx: ServerContext, ip: string, private conn: TelnetConnection, private socket: Socket) {
    super(ctx, ip);
    this.bytes = new TokenBucket(ctx.opts.telnetBytesPerSecond, ctx.opts.telnetByteBurst);
  }

  /** Runs before the telnet layer parses a chunk: a sustained flood is cut off before it costs more. */
  private countBytes(n: number): void {
    const o = this.ctx.opts;
    if (o.telnetBytesPerSecond <= 0 || this.ending || this.isClosed()) return;
    if (this.bytes.spend(n) >= -o.telnetByteBurst) return;
    this.ctx.log.warn({ ip: this.ip, rate: o.telnetBytesPerSecond, burst: o.telnetByteBurst }, 'telnet flood; disconnecting');
    this.socket.pause();
    this.end(`Flooding: more than ${o.telnetBytesPerSecond} bytes a second (bursts of ${o.telnetByteBurst}); goodbye.`);
  }

  /** GMCP clients get Room.Info / Char.Status from states; plain telnet needs none (decided when the character is taken up). */
  get wantsState(): boolean {
    return this.conn.supportsGmcp;
  }

  start(): void {
    this.conn.on('line', (line) => this.onLine(line));
    this.conn.on('error', (err) => this.onTelnetError(err));
    this.conn.on('terminal', () => {
      if (this.colourChoice === null) this.conn.setColour(clientShowsColour(this.conn.terminalTypes, this.conn.mtts));
    });
    this.conn.on('close', () => {
      this.closed();
      const counts = Object.fromEntries(this.errorCounts);
      if ([...this.errorCounts.values()].some((n) => n > 1)) this.ctx.log.info({ ip: this.ip, errors: counts }, 'telnet protocol errors of a closed connection');
    });
    this.conn.start();
    // Before the telnet layer's own listener (added by start()), so a flood is cut off before it is parsed.
    this.socket.prependListener('data', (chunk: Buffer) => this.countBytes(chunk.length));
    const title = this.ctx.host.info.title;
    this.schedulePrompt();
    this.conn.send(
      [
        '',
        `Welcome to ${title} (${SERVER_NAME} ${SERVER_VERSION}).`,
        '',
        '  guest            play one of the characters of this world as a guest',
        '  login NAME       log in to your account',
        '  register NAME    make an account',
        '  resume TOKEN     take up your character again after a disconnect',
        '  quit',
      ].join('\n'),
    );
  }

  private promptText(): string {
    switch (this.step.kind) {
      case 'password':
      case 'new-password':
        return 'Password: ';
      case 'confirm-password':
        return 'Repeat the password: ';
      case 'change-old':
        return 'Current password: ';
      case 'change-new':
        return 'New password: ';
      case 'change-confirm':
        return 'Repeat the new password: ';
      case 'delete-password':
        return 'Your password, to delete the account for good (empty line: keep it): ';
      case 'choosing':
        return 'Choose a character (number or name): ';
      default:
        return '> ';
    }
  }

  /** One prompt after a batch of output; the batch and its prompt leave in one write. */
  private schedulePrompt(): void {
    if (this.promptScheduled) return;
    this.promptScheduled = true;
    this.socket.cork();
    setImmediate(() => {
      this.promptScheduled = false;
      if (this.phase !== 'closed' && (this.promptOn || this.step.kind !== 'playing')) this.conn.prompt(this.promptText());
      this.socket.uncork();
    });
  }

  private onTelnetError(err: TelnetError): void {
    switch (err.code) {
      case 'line_too_long':
        return this.say(`That line was too long (the limit is ${this.ctx.opts.maxLineBytes} bytes); it was ignored.`);
      case 'rate_limited':
        return this.say('You are sending lines too fast; some were dropped.');
      default: {
        // Logged once per code and connection: a flood of broken subnegotiations must not flood the log.
        const n = (this.errorCounts.get(err.code) ?? 0) + 1;
        this.errorCounts.set(err.code, n);
        if (n === 1) this.ctx.log.info({ ip: this.ip, code: err.code, message: err.message }, 'telnet (further errors of this kind from this connection are counted, not logged)');
      }
    }
  }

  private onLine(raw: string): void {
    if (this.phase === 'closed' || this.ending) return;
    this.touch();
    const step = this.step;
    if (step.kind === 'password' || step.kind === 'new-password' || step.kind === 'confirm-password') return this.onPassword(step, raw);
    if (step.kind === 'change-old' || step.kind === 'change-new' || step.kind === 'change-confirm' || step.kind === 'delete-password') return this.onAccountPassword(step, raw);
    const line = raw.trim();
    if (step.kind === 'playing') {
      if (!line) return this.schedulePrompt();
      const word = line.toLowerCase();
      if (word === '@password' || word === '@delete-account') {
        if (!this.account) return this.say('Guests have no account to change.');
        this.step = word === '@password' ? { kind: 'change-old' } : { kind: 'delete-password' };
        this.conn.setEcho(true);
        return this.schedulePrompt();
      }
      const [first = '', ...args] = word.split(/\s+/);
      if (first === 'color' || first === 'colour' || first === 'prompt') return this.option(first, args.join(' '));
      if (word === 'help') this.helpPending++;
      else if (word === 'help color' || word === 'help colour' || word === 'help prompt' || word === 'help telnet') return this.say(TELNET_HELP);
      return this.command(line);
    }
    if (!line) return this.schedulePrompt();
    const [word = '', ...rest] = line.split(/\s+/);
    const arg = rest.join(' ');
    const verb = word.toLowerCase();
    if (verb === 'quit') return this.end('Goodbye.');
    if (step.kind === 'choosing') {
      if (verb === 'list') return void this.ctx.portal.free().then((l) => this.sendCharacters(l), () => this.sendError('unavailable', 'The game is restarting; try again.'));
      const n = /^\d+$/.test(line) ? Number(line) : NaN;
      if (Number.isInteger(n)) {
        const pick = step.choices[n - 1];
        if (!pick) return this.sendError('no_such_character', `Pick a number from 1 to ${Math.min(step.choices.length, LIST_MAX)}, or type a name.`);
        return void this.choose(pick.id);
      }
      return void this.choose(line);
    }
    switch (verb) {
      case 'guest':
        return void this.login(() => this.ctx.portal.guest(this.ip, arg || undefined));
      case 'login':
      case 'connect':
        if (!arg) return this.say('Usage: login NAME');
        this.step = { kind: 'password', name: rest[0]! };
        this.conn.setEcho(true);
        return this.schedulePrompt();
      case 'register':
      case 'create':
        if (!arg) return this.say('Usage: register NAME');
        this.step = { kind: 'new-password', name: rest[0]! };
        this.conn.setEcho(true);
        return this.schedulePrompt();
      case 'resume':
        if (!arg) return this.say('Usage: resume TOKEN');
        return void this.login(() => this.ctx.portal.resume(this.ip, arg));
      default:
        return this.say('Type guest, login NAME, register NAME, resume TOKEN or quit.');
    }
  }

  /** `color on|off` and `prompt on|off`: this connection's options. */
  private option(name: 'color' | 'colour' | 'prompt', value: string): void {
    if (value !== '' && value !== 'on' && value !== 'off') return this.say(`Usage: ${name} on|off`);
    if (name === 'prompt') {
      if (value) this.promptOn = value === 'on';
      return this.say(value ? `Prompt ${value}.` : `The prompt is ${this.promptOn ? 'on' : 'off'}; type prompt on or prompt off.`);
    }
    if (!value) {
      const why = this.colourChoice !== null ? 'as you chose' : this.conn.colour ? 'your client says it shows colour' : 'your client did not say it shows colour';
      return this.say(`Colour is ${this.conn.colour ? 'on' : 'off'} (${why}); type ${name} on or ${name} off.`);
    }
    this.colourChoice = value === 'on';
    this.conn.setColour(this.colourChoice);
    this.say(this.colourChoice ? `Colour on: ${ROOM_NAME}room names${RESET}, ${EXITS}exits${RESET} and ${SPEECH}"speech"${RESET}.` : 'Colour off.');
  }

  private onPassword(step: Extract<Step, { name: string }>, password: string): void {
    if (step.kind === 'new-password') {
      this.step = { kind: 'confirm-password', name: step.name, password };
      return this.say('');
    }
    this.conn.setEcho(false);
    this.conn.send('');
    this.step = { kind: 'menu' };
    if (step.kind === 'confirm-password') {
      if (password !== step.password) return this.say('The passwords differ; try register again.');
      return void this.login(() => this.ctx.portal.register(this.ip, step.name, password));
    }
    return void this.login(() => this.ctx.portal.login(this.ip, step.name, password));
  }

  private onAccountPassword(step: Extract<Step, { kind: 'change-old' | 'change-new' | 'change-confirm' | 'delete-password' }>, password: string): void {
    if (step.kind === 'change-old') {
      this.step = { kind: 'change-new', old: password };
      return this.say('');
    }
    if (step.kind === 'change-new') {
      this.step = { kind: 'change-confirm', old: step.old, next: password };
      return this.say('');
    }
    this.conn.setEcho(false);
    this.conn.send('');
    this.step = { kind: 'playing' };
    if (step.kind === 'change-confirm') {
      if (password !== step.next) return this.say('The new passwords differ; nothing changed.');
      return void this.changeAccount({ kind: 'password', old: step.old, next: step.next });
    }
    if (!password) return this.say('Nothing deleted.');
    return void this.changeAccount({ kind: 'delete', password });
  }

  sendAccount(_change: 'password' | 'deleted', message: string): void {
    this.say(message);
  }

  private say(text: string): void {
    this.schedulePrompt();
    this.conn.send(text);
  }

  // ---- output ----------------------------------------------------------------------------------------

  sendResult(text: string, _info: ResultInfo): void {
    if (this.helpPending > 0 && text.startsWith('Commands:')) {
      this.helpPending--;
      return this.say(`${text}\n${TELNET_HELP}`);
    }
    this.say(colourGameText(text));
  }

  sendEvent(text: string, _event: EventSummary): void {
    this.say(colourGameText(text));
  }

  sendSystem(text: string): void {
    this.say(text);
  }

  sendLook(text: string, state: CharacterState | null): void {
    this.say(colourGameText(text));
    if (state) this.sendState(state);
  }

  /** GMCP only: the text already went out. */
  sendState(state: CharacterState): void {
    if (!this.conn.supportsGmcp) return;
    this.schedulePrompt();
    if (state.room.id !== this.lastRoom) {
      this.lastRoom = state.room.id;
      this.conn.sendGmcp('Room.Info', {
        num: state.room.id, name: state.room.name, area: state.room.category, environment: state.room.category,
        exits: Object.fromEntries(state.room.exits.map((e) => [e.label, e.to])),
      });
    }
    this.conn.sendGmcp('Room.Players', state.people.map((p) => ({ name: p.id, fullname: p.name, player: p.player })));
    const names = (xs: { name: string }[]) => xs.map((x) => x.name);
    this.conn.sendGmcp('Char.Status', {
      name: state.character.name, id: state.character.id, room: state.room.name,
      account: this.session?.account?.name ?? null, role: this.session?.role ?? 'player',
      carrying: names(state.character.carrying), wearing: names(state.character.wearing), wielding: names(state.character.wielding),
    });
    this.conn.sendGmcp('Char.Actions', { valid: state.validActions });
  }

  sendError(_code: ErrorCode, message: string): void {
    this.say(message);
  }

  sendCharacters(list: CharacterInfo[], message?: string): void {
    this.step = { kind: 'choosing', choices: list.slice(0, LIST_MAX) };
    const lines = message ? [message] : [];
    if (!list.length) lines.push('Every character is being played; try later, or type quit.');
    else {
      lines.push(`Characters free to play (${list.length}):`);
      const width = String(Math.min(list.length, LIST_MAX)).length;
      list.slice(0, LIST_MAX).forEach((c, i) => lines.push(`  ${String(i + 1).padStart(width)}. ${c.name}  (in ${c.room})`));
      if (list.length > LIST_MAX) lines.push(`  ... and ${list.length - LIST_MAX} more: type a name.`);
    }
    this.say(lines.join('\n'));
  }

  sendWelcome(session: Session, resumed: boolean): void {
    this.step = { kind: 'playing' };
    this.lastRoom = null;
    const who = /^\p{Lu}/u.test(session.character.name) ? session.character.name : `the ${session.character.name}`; // "the street urchin", "Maud"
    const lines = [resumed ? `You take up ${who} again.` : `You are now ${who}.`];
    if (!session.account) lines.push(`To resume after a disconnect, type: resume ${session.token}`);
    lines.push('Type help for commands, who for who is playing, quit to leave.');
    // No prompt yet: what the character sees follows at once.
    this.conn.send(lines.join('\n'));
  }

  protected closeTransport(reason: string): void {
    this.conn.close(reason === 'quit' ? undefined : reason);
  }
}

export interface TelnetListener {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/** Start the telnet listener. */
export function listenTelnet(ctx: ServerContext, host: string, port: number, mssp: () => Record<string, string | string[]>): Promise<TelnetListener> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    const ip = addressKey(socket.remoteAddress ?? 'unknown');
    const refusal = ctx.counter.open(ip);
    if (refusal) {
      socket.on('error', () => {});
      socket.end(`${refusal}\r\n`);
      setTimeout(() => socket.destroy(), 2000).unref();
      return;
    }
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      ctx.counter.close(ip);
    });
    const o = ctx.opts;
    const conn = new TelnetConnection(socket, {
      maxLineLength: o.maxLineBytes,
      maxLinesPerSecond: Math.max(20, o.commandsPerSecond * 2),
      lineBurst: Math.max(40, o.commandBurst * 2),
      mssp,
      idleTimeoutMs: 0, // the server's sweep enforces login and idle timeouts on every transport
      maxOutputBuffer: o.maxBufferedBytes,
      maxSubnegotiation: o.maxSubnegotiationBytes,
      colour: false, // until the client's terminal type says it shows colour, or the player types color on
    });
    new TelnetSession(ctx, ip, conn, socket).start();
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const addr = server.address();
      resolve({
        server,
        port: typeof addr === 'object' && addr ? addr.port : port,
        // Stop accepting; give open sockets (already told to close) two seconds to finish writing.
        close: () =>
          new Promise<void>((res) => {
            server.close(() => {
              clearTimeout(force);
              res();
            });
            const force = setTimeout(() => {
              for (const s of sockets) s.destroy();
            }, 2000);
          }),
      });
    });
  });
}
