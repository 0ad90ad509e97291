/**
 * A telnet connection for MUD clients on a TCP socket: option negotiation (ECHO, SGA, TTYPE/MTTS, EOR, NAWS,
 * CHARSET, MSDP, MSSP, MCCP2, GMCP), input as sanitised UTF-8 lines with length and rate limits, and output
 * with CR LF line ends, word wrap, optional colour, IAC escaping, prompt marking and MCCP2 compression.
 *
 * Events: 'line' (text), 'naws' ({width, height}), 'ttype' (the first name), 'terminal' (each new TTYPE answer), 'gmcp' (pkg, data), 'msdp' (variable, value),
 * 'error' ({code, message}), 'close' (). 'error' is only emitted when someone listens for it, so an
 * unlistened protocol complaint never throws; the connection stays open after every 'error' except
 * 'output_overflow' and 'socket'.
 */
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import zlib from 'node:zlib';
import {
  AO,
  AYT,
  BRK,
  CHARSET_ACCEPTED,
  CHARSET_REJECTED,
  CHARSET_TTABLE_IS,
  CHARSET_TTABLE_REJECTED,
  DO,
  DONT,
  EC,
  EL,
  EOR_CMD,
  GA,
  IAC,
  IP,
  OPT,
  TTYPE_SEND,
  WILL,
  WONT,
  type Verb,
} from './constants.js';
import {
  charsetRequest,
  decodeGmcp,
  decodeMsdp,
  encodeGmcp,
  encodeMsdp,
  encodeMssp,
  escapeIac,
  msspText,
  negotiation,
  parseCharset,
  parseNaws,
  parseTtypeIs,
  subnegotiation,
  type MsdpValue,
} from './encode.js';
import { Negotiation, type NegotiationResult } from './negotiation.js';
import { TelnetParser, type TelnetEvent } from './parser.js';
import { LineAssembler, decodeLine, formatOutput } from './text.js';

export interface TelnetOptions {
  /** Default 4096 bytes; a longer input line is discarded, 'error' {code:'line_too_long'} emitted, connection kept. */
  maxLineLength?: number;
  /** Default 20 (token bucket, burst 40); excess lines dropped, 'error' {code:'rate_limited'} emitted once per burst. */
  maxLinesPerSecond?: number;
  /** Lines allowed at once before the rate applies (default twice maxLinesPerSecond). */
  lineBurst?: number;
  /** MSSP variables (NAME, PLAYERS, UPTIME, ...) when a client asks. Without it MSSP is not offered. */
  mssp?: () => Record<string, string | string[]>;
  /** Default true; ANSI colour codes stripped from output when false. */
  colour?: boolean;
  /** Default 30 min; a connection that sends nothing for this long is closed. 0 disables. */
  idleTimeoutMs?: number;
  /** Default true: offer MCCP2 compression. */
  compression?: boolean;
  /** Default true: offer MSDP ('msdp' events in, sendMsdp out). */
  msdp?: boolean;
  /** Default 4 MiB: output a client does not read beyond this closes the connection ('output_overflow'). */
  maxOutputBuffer?: number;
  /** Default 65536: largest subnegotiation (GMCP message, ...) accepted from the client. */
  maxSubnegotiation?: number;
  /** Message written before closing an idle connection. */
  idleMessage?: string;
}

export interface TelnetError {
  code:
    | 'line_too_long'
    | 'rate_limited'
    | 'bad_subnegotiation'
    | 'subnegotiation_too_long'
    | 'bad_gmcp'
    | 'idle_timeout'
    | 'output_overflow'
    | 'socket';
  message: string;
}

export interface TelnetConnectionEvents {
  line: [text: string];
  naws: [size: { width: number; height: number }];
  ttype: [name: string];
  /** Every new TTYPE answer (client name, terminal type, "MTTS n"), as they come. */
  terminal: [name: string];
  gmcp: [pkg: string, data: unknown];
  msdp: [variable: string, value: MsdpValue];
  error: [err: TelnetError];
  close: [];
}

/** The smallest width output is wrapped to, whatever NAWS says. */
const MIN_WRAP = 20;
/** The largest width output is wrapped to. */
const MAX_WRAP = 500;
const DEFAULT_WIDTH = 80;
const DEFAULT_HEIGHT = 24;
/** How many TTYPE answers are asked for at most (name, terminal, MTTS, and one to see the cycle end). */
const MAX_TTYPE_ROUNDS = 4;

/** Options the server performs when the client asks (IAC DO x answered with IAC WILL x). */
function localOptions(opts: TelnetOptions): Set<number> {
  const s = new Set<number>([OPT.SGA, OPT.EOR, OPT.GMCP]);
  if (opts.msdp !== false) s.add(OPT.MSDP);
  if (opts.mssp) s.add(OPT.MSSP);
  if (opts.compression !== false) s.add(OPT.MCCP2);
  return s;
}

/** Options the client may perform (IAC WILL x answered with IAC DO x). */
const REMOTE_OPTIONS = new Set<number>([OPT.TTYPE, OPT.NAWS, OPT.CHARSET]);

export class TelnetConnection extends EventEmitter<TelnetConnectionEvents> {
  private _width = DEFAULT_WIDTH;
  private _height = DEFAULT_HEIGHT;
  private _terminalType: string | null = null;
  private _mtts: number | null = null;
  private _clientName: string | null = null;
  private _clientVersion: string | null = null;
  private _charset: string | null = null;
  private _colour: boolean;
  private _echoHidden = false;
  /** Every distinct TTYPE answer in order (MTTS: client name, terminal type, "MTTS n"). */
  readonly terminalTypes: string[] = [];
  /** GMCP packages the client asked for with Core.Supports.Set/Add, lower-cased, e.g. "room", "char". */
  readonly gmcpSupports = new Set<string>();

  private readonly socket: Socket;
  private readonly opts: TelnetOptions;
  private readonly parser: TelnetParser;
  private readonly neg: Negotiation;
  private readonly lines: LineAssembler;
  private readonly echoAnswers: Verb[] = [];
  private echoRefused = false;
  private ttypeRounds = 0;
  private ttypeAwaiting = false;
  private started = false;
  private closing = false;
  private isClosed = false;
  private atLineStart = true;
  private deflate: zlib.Deflate | null = null;
  private deflateFlushScheduled = false;
  /** Raw output held while a finished compression stream drains. */
  private heldOutput: Buffer[] | null = null;
  private tokens: number;
  private lastRefill = performance.now();
  private rateLimitedReported = false;
  private idleTimer: NodeJS.Timeout | null = null;
  private killTimer: NodeJS.Timeout | null = null;
  private readonly maxLinesPerSecond: number;
  private readonly burst: number;
  private readonly maxOutputBuffer: number;

  constructor(socket: Socket, opts: TelnetOptions = {}) {
    super();
    this.socket = socket;
    this.opts = opts;
    this._colour = opts.colour ?? true;
    this.maxLinesPerSecond = opts.maxLinesPerSecond ?? 20;
    this.burst = opts.lineBurst ?? this.maxLinesPerSecond * 2;
    this.tokens = this.burst;
    this.maxOutputBuffer = opts.maxOutputBuffer ?? 4 * 1024 * 1024;
    this.parser = new TelnetParser({ maxSubnegotiation: opts.maxSubnegotiation ?? 65536 });
    const local = localOptions(opts);
    this.neg = new Negotiation({
      acceptUs: (o) => local.has(o),
      acceptHim: (o) => REMOTE_OPTIONS.has(o),
    });
    this.lines = new LineAssembler(
      opts.maxLineLength ?? 4096,
      (bytes) => this.onLine(bytes),
      () =>
        this.fail({
          code: 'line_too_long',
          message: `input line longer than ${opts.maxLineLength ?? 4096} bytes discarded`,
        }),
    );
    socket.on('error', (err: Error) => {
      this.fail({ code: 'socket', message: err.message });
      socket.destroy();
    });
    socket.on('close', () => this.onSocketClose());
  }

  /** Output wrap width, from NAWS (default 80). */
  get width(): number {
    return this._width;
  }

  /** Window height from NAWS (default 24). */
  get height(): number {
    return this._height;
  }

  /** The first TTYPE answer (the client's name, e.g. "MUDLET"), or null. */
  get terminalType(): string | null {
    return this._terminalType;
  }

  /** The MTTS capability bits, when the client sent them (1 ANSI, 4 UTF-8, 8 256 colours, 256 truecolour, ...). */
  get mtts(): number | null {
    return this._mtts;
  }

  /** From GMCP Core.Hello, when sent. */
  get clientName(): string | null {
    return this._clientName;
  }

  get clientVersion(): string | null {
    return this._clientVersion;
  }

  /** The character set the client accepted through CHARSET, or null. Output is UTF-8 regardless. */
  get charset(): string | null {
    return this._charset;
  }

  /** Whether ANSI colour is written. */
  get colour(): boolean {
    return this._colour;
  }

  /** True while the client has been asked not to echo (password entry). */
  get echoHidden(): boolean {
    return this._echoHidden;
  }

  /** True once GMCP is agreed (the client answered IAC WILL GMCP with IAC DO GMCP). */
  get supportsGmcp(): boolean {
    return this.neg.isEnabled('us', OPT.GMCP);
  }

  /** True once MSDP is agreed. */
  get supportsMsdp(): boolean {
    return this.neg.isEnabled('us', OPT.MSDP);
  }

  /** True while output is MCCP2-compressed. */
  get compressing(): boolean {
    return this.deflate !== null;
  }

  /** True when prompts end with IAC EOR (the client agreed to EOR); otherwise IAC GA unless SGA is on. */
  get usesEor(): boolean {
    return this.neg.isEnabled('us', OPT.EOR);
  }

  get closed(): boolean {
    return this.isClosed;
  }

  get remoteAddress(): string | undefined {
    return this.socket.remoteAddress;
  }

  /** Send the opening negotiation and begin reading. */
  start(): void {
    if (this.started || this.isClosed) return;
    this.started = true;
    this.socket.setNoDelay(true);
    this.socket.setKeepAlive(true, 60_000);
    const offers: NegotiationResult[] = [
      this.neg.enable('him', OPT.TTYPE),
      this.neg.enable('him', OPT.NAWS),
      this.neg.enable('him', OPT.CHARSET),
      this.neg.enable('us', OPT.EOR),
      this.neg.enable('us', OPT.GMCP),
    ];
    if (this.opts.msdp !== false) offers.push(this.neg.enable('us', OPT.MSDP));
    if (this.opts.mssp) offers.push(this.neg.enable('us', OPT.MSSP));
    if (this.opts.compression !== false) offers.push(this.neg.enable('us', OPT.MCCP2));
    const bytes: Buffer[] = [];
    for (const r of offers) for (const s of r.send) bytes.push(negotiation(s.verb, s.option));
    this.writeRaw(Buffer.concat(bytes));
    this.armIdle();
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('end', () => {
      const partial = this.lines.takePartial();
      if (partial) this.onLine(partial);
    });
  }

  /**
   * Write text as a message: a line break is added at the end if missing, and before it if the client's
   * cursor is still on a prompt line (after a prompt it did not answer, or a password it did not echo);
   * send('') then only ends that line; LF becomes CR LF, lines are wrapped to the width, colour is stripped if off, and
   * IAC bytes are escaped.
   */
  send(text: string): void {
    if (this.isClosed || this.closing) return;
    let t = formatOutput(text, { width: this.wrapWidth(), colour: this._colour });
    if (t === '' && !this.atLineStart) t = '\r\n'; // an empty message just ends the prompt's line
    else {
      if (!t.endsWith('\r\n')) t += '\r\n';
      if (!this.atLineStart) t = '\r\n' + t;
    }
    this.atLineStart = true;
    this.writeRaw(escapeIac(Buffer.from(t, 'utf8')));
  }

  /** Write a prompt and mark it: IAC EOR if the client agreed to EOR, else IAC GA unless SGA suppresses it. */
  prompt(text: string): void {
    if (this.isClosed || this.closing) return;
    let t = formatOutput(text, { width: this.wrapWidth(), colour: this._colour });
    if (!this.atLineStart && t.length > 0) t = '\r\n' + t;
    const body = escapeIac(Buffer.from(t, 'utf8'));
    let mark: Buffer | null = null;
    if (this.neg.isEnabled('us', OPT.EOR)) mark = Buffer.of(IAC, EOR_CMD);
    else if (!this.neg.isEnabled('us', OPT.SGA)) mark = Buffer.of(IAC, GA);
    this.writeRaw(mark ? Buffer.concat([body, mark]) : body);
    if (t.length > 0) this.atLineStart = t.endsWith('\r\n');
  }

  /** hidden=true: IAC WILL ECHO, so the client stops echoing (password entry); false: IAC WONT ECHO. */
  setEcho(hidden: boolean): void {
    if (this.isClosed || this.closing || hidden === this._echoHidden) return;
    this._echoHidden = hidden;
    const verb: Verb = hidden ? WILL : WONT;
    // Answers expected in order. Some clients (MUSHclient) never answer ECHO, so the list is capped.
    this.echoAnswers.push(verb);
    if (this.echoAnswers.length > 8) this.echoAnswers.shift();
    this.writeRaw(negotiation(verb, OPT.ECHO));
  }

  /** Send a GMCP message, if GMCP was agreed: IAC SB GMCP "Room.Info {json}" IAC SE. Returns whether it was sent. */
  sendGmcp(pkg: string, data?: unknown): boolean {
    const payload = encodeGmcp(pkg, data); // throws on a bad package name or data JSON cannot hold
    if (this.isClosed || this.closing || !this.supportsGmcp) return false;
    this.writeRaw(subnegotiation(OPT.GMCP, payload));
    return true;
  }

  /** Send an MSDP variable, if MSDP was agreed. Returns whether it was sent. */
  sendMsdp(variable: string, value: MsdpValue): boolean {
    if (this.isClosed || this.closing || !this.supportsMsdp) return false;
    this.writeRaw(subnegotiation(OPT.MSDP, encodeMsdp(variable, value)));
    return true;
  }

  setColour(on: boolean): void {
    this._colour = on;
  }

  /** Write the reason (if any) as a last line, finish the compression stream properly, and end the socket. */
  close(reason?: string): void {
    if (this.isClosed || this.closing) return;
    if (reason !== undefined && reason !== '') this.send(reason);
    this.closing = true;
    this.clearIdle();
    // A peer that never closes its side must not keep the socket: destroy it after a grace period.
    this.killTimer = setTimeout(() => this.socket.destroy(), 5000);
    this.killTimer.unref();
    this.endCompression(() => this.socket.end());
  }

  // ---- input ----

  private onData(chunk: Buffer): void {
    if (this.isClosed || this.closing) return;
    this.armIdle();
    this.parser.feed(chunk, (ev) => this.onEvent(ev));
  }

  private onEvent(ev: TelnetEvent): void {
    if (this.isClosed || this.closing) return;
    switch (ev.type) {
      case 'data':
        this.lines.feed(ev.data);
        return;
      case 'command':
        this.onCommand(ev.command);
        return;
      case 'negotiate':
        this.onNegotiate(ev.verb, ev.option);
        return;
      case 'sub':
        this.onSub(ev.option, ev.data);
        return;
      case 'error':
        this.fail({ code: ev.code, message: ev.message });
        return;
    }
  }

  private onCommand(cmd: number): void {
    switch (cmd) {
      case AYT:
        this.writeRaw(Buffer.from('\r\n[Yes]\r\n'));
        this.atLineStart = true;
        return;
      case EC:
        this.lines.eraseChar();
        return;
      case EL:
      case IP:
      case BRK:
      case AO:
        this.lines.eraseLine();
        return;
      default:
        return; // NOP, GA, EOR, DM, SE: nothing to do
    }
  }

  private onNegotiate(verb: Verb, option: number): void {
    if (option === OPT.ECHO && (verb === DO || verb === DONT)) {
      this.onEchoAnswer(verb);
      return;
    }
    this.apply(this.neg.receive(verb, option));
  }

  /** DO/DONT ECHO: answers to our WILL/WONT are matched in order; anything else is a request. */
  private onEchoAnswer(verb: Verb): void {
    const asked = this.echoAnswers.shift();
    if (asked !== undefined) {
      // The client refused to let us echo: it keeps echoing itself (nothing more to do).
      if (asked === WILL && verb === DONT && this.echoAnswers.length === 0) this._echoHidden = false;
      return;
    }
    if (verb === DO) {
      // The client asks us to echo its input: we do not (we only hide passwords); refuse once.
      if (!this._echoHidden && !this.echoRefused) {
        this.echoRefused = true;
        this.writeRaw(negotiation(WONT, OPT.ECHO));
      }
    } else if (this._echoHidden) {
      this._echoHidden = false;
      this.writeRaw(negotiation(WONT, OPT.ECHO));
    }
  }

  private apply(r: NegotiationResult): void {
    if (r.send.length > 0) this.writeRaw(Buffer.concat(r.send.map((s) => negotiation(s.verb, s.option))));
    for (const c of r.changes) {
      if (c.side === 'him' && c.enabled && c.option === OPT.TTYPE) this.requestTtype();
      else if (c.side === 'him' && c.enabled && c.option === OPT.CHARSET) {
        this.writeRaw(subnegotiation(OPT.CHARSET, charsetRequest(['UTF-8'])));
      } else if (c.side === 'us' && c.option === OPT.MSSP && c.enabled) this.sendMssp();
      else if (c.side === 'us' && c.option === OPT.MCCP2) {
        if (c.enabled) this.startCompression();
        else this.endCompression();
      }
    }
  }

  private onSub(option: number, data: Buffer): void {
    switch (option) {
      case OPT.NAWS: {
        if (!this.neg.isEnabled('him', OPT.NAWS)) return;
        const size = parseNaws(data);
        if (!size) return;
        const width = size.width > 0 ? size.width : this._width;
        const height = size.height > 0 ? size.height : this._height;
        if (width === this._width && height === this._height && this.nawsSeen) return;
        this.nawsSeen = true;
        this._width = width;
        this._height = height;
        this.emit('naws', { width, height });
        return;
      }
      case OPT.TTYPE: {
        if (!this.neg.isEnabled('him', OPT.TTYPE)) return;
        const name = parseTtypeIs(data);
        const awaited = this.ttypeAwaiting;
        this.ttypeAwaiting = false;
        if (!name) return;
        const repeat = this.terminalTypes[this.terminalTypes.length - 1] === name;
        const fresh = !repeat && !this.terminalTypes.includes(name);
        if (fresh) this.terminalTypes.push(name);
        const mtts = /^MTTS\s+(\d+)$/i.exec(name);
        if (mtts) this._mtts = Number(mtts[1]);
        if (fresh) this.emit('terminal', name);
        if (this._terminalType === null) {
          this._terminalType = name;
          this.emit('ttype', name);
        }
        // Ask again until the answer repeats (the end of the client's list) or enough were given.
        if (awaited && !repeat && !this.terminalTypes.slice(0, -1).includes(name) && this.ttypeRounds < MAX_TTYPE_ROUNDS) {
          this.requestTtype();
        }
        return;
      }
      case OPT.GMCP: {
        if (!this.supportsGmcp) return;
        const msg = decodeGmcp(data);
        if (!msg.ok) {
          this.fail({ code: 'bad_gmcp', message: msg.message });
          return;
        }
        this.onGmcp(msg.pkg, msg.data);
        this.emit('gmcp', msg.pkg, msg.data);
        return;
      }
      case OPT.MSDP: {
        if (!this.supportsMsdp) return;
        for (const { variable, value } of decodeMsdp(data)) this.emit('msdp', variable, value);
        return;
      }
      case OPT.CHARSET: {
        const msg = parseCharset(data);
        if (!msg) return;
        if (msg.kind === 'accepted') this._charset = msg.charset;
        else if (msg.kind === 'rejected') {
          this._charset = null;
          this.notUtf8 = true;
        }
        else if (msg.kind === 'request') {
          const utf = msg.charsets.find((c) => /^utf-?8$/i.test(c));
          if (utf) {
            this._charset = utf;
            this.writeRaw(subnegotiation(OPT.CHARSET, Buffer.concat([Buffer.of(CHARSET_ACCEPTED), Buffer.from(utf, 'latin1')])));
          } else {
            this.writeRaw(subnegotiation(OPT.CHARSET, Buffer.of(CHARSET_REJECTED)));
          }
        } else if (msg.code === CHARSET_TTABLE_IS) {
          this.writeRaw(subnegotiation(OPT.CHARSET, Buffer.of(CHARSET_TTABLE_REJECTED)));
        }
        return;
      }
      default:
        return; // subnegotiations for options not agreed are ignored
    }
  }

  private nawsSeen = false;
  /** The client rejected UTF-8 in CHARSET: input that is not valid UTF-8 is read as Latin-1. */
  private notUtf8 = false;

  private onGmcp(pkg: string, data: unknown): void {
    const name = pkg.toLowerCase();
    if (name === 'core.hello' && data && typeof data === 'object') {
      const d = data as Record<string, unknown>;
      if (typeof d.client === 'string') this._clientName = d.client.slice(0, 64);
      if (typeof d.version === 'string') this._clientVersion = d.version.slice(0, 64);
    } else if ((name === 'core.supports.set' || name === 'core.supports.add') && Array.isArray(data)) {
      if (name === 'core.supports.set') this.gmcpSupports.clear();
      for (const item of data.slice(0, 256)) {
        if (typeof item === 'string') this.gmcpSupports.add(item.split(/\s+/)[0]!.toLowerCase());
      }
    } else if (name === 'core.supports.remove' && Array.isArray(data)) {
      for (const item of data) if (typeof item === 'string') this.gmcpSupports.delete(item.split(/\s+/)[0]!.toLowerCase());
    } else if (name === 'core.ping') {
      this.sendGmcp('Core.Ping');
    }
  }

  private onLine(bytes: Buffer): void {
    if (this.isClosed || this.closing) return;
    // After a line the client's cursor is on a fresh line, unless it was not echoing (password entry).
    if (!this._echoHidden) this.atLineStart = true;
    else this.atLineStart = false;
    if (!this.takeToken()) return;
    const text = decodeLine(bytes, this.notUtf8);
    if (text === 'MSSP-REQUEST' && this.opts.mssp) {
      // The plain-text form of MSSP, for crawlers that do not negotiate.
      this.send(msspText(this.msspVars()));
      return;
    }
    this.emit('line', text);
  }

  private takeToken(): boolean {
    const now = performance.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.lastRefill) / 1000) * this.maxLinesPerSecond);
    this.lastRefill = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      this.rateLimitedReported = false;
      return true;
    }
    if (!this.rateLimitedReported) {
      this.rateLimitedReported = true;
      this.fail({
        code: 'rate_limited',
        message: `more than ${this.maxLinesPerSecond} lines a second (burst ${this.burst}); lines dropped`,
      });
    }
    return false;
  }

  private requestTtype(): void {
    this.ttypeRounds++;
    this.ttypeAwaiting = true;
    this.writeRaw(subnegotiation(OPT.TTYPE, Buffer.of(TTYPE_SEND)));
  }

  private msspVars(): Record<string, string | string[]> {
    try {
      return this.opts.mssp?.() ?? {};
    } catch {
      return {};
    }
  }

  private sendMssp(): void {
    this.writeRaw(subnegotiation(OPT.MSSP, encodeMssp(this.msspVars())));
  }

  // ---- output ----

  private wrapWidth(): number {
    return Math.max(MIN_WRAP, Math.min(MAX_WRAP, this._width));
  }

  private writeRaw(buf: Buffer): void {
    if (this.isClosed || buf.length === 0 || !this.socket.writable) return;
    if (this.deflate) {
      this.deflate.write(buf);
      if (!this.deflateFlushScheduled) {
        // One flush per turn of the event loop: writes made together share a compressed block.
        this.deflateFlushScheduled = true;
        queueMicrotask(() => {
          this.deflateFlushScheduled = false;
          if (this.deflate && !this.deflate.destroyed) this.deflate.flush(zlib.constants.Z_SYNC_FLUSH);
        });
      }
    } else if (this.heldOutput) {
      this.heldOutput.push(buf);
    } else {
      this.socket.write(buf);
    }
    const backlog = this.socket.writableLength + (this.deflate?.writableLength ?? 0);
    if (backlog > this.maxOutputBuffer) {
      this.fail({ code: 'output_overflow', message: `client is not reading; ${backlog} bytes of output queued` });
      this.socket.destroy();
    }
  }

  private startCompression(): void {
    if (this.deflate || this.heldOutput) return;
    // IAC SB MCCP2 IAC SE goes out uncompressed; everything after it is one zlib stream.
    this.writeRaw(subnegotiation(OPT.MCCP2));
    const deflate = zlib.createDeflate({ level: 6 });
    deflate.on('data', (chunk: Buffer) => {
      if (this.socket.writable) this.socket.write(chunk);
    });
    deflate.on('error', (err) => {
      this.fail({ code: 'socket', message: `compression failed: ${err.message}` });
      this.socket.destroy();
    });
    this.deflate = deflate;
  }

  /** Finish the compression stream (Z_FINISH), then carry on uncompressed; `then` runs once it is written. */
  private endCompression(then?: () => void): void {
    const deflate = this.deflate;
    if (!deflate) {
      if (this.heldOutput) {
        // A previous stream is still draining: run after it.
        const prev = this.afterDrain;
        this.afterDrain = () => {
          prev?.();
          then?.();
        };
      } else then?.();
      return;
    }
    this.deflate = null;
    this.heldOutput = [];
    this.afterDrain = then ?? null;
    deflate.on('end', () => {
      const held = this.heldOutput ?? [];
      this.heldOutput = null;
      for (const b of held) if (this.socket.writable) this.socket.write(b);
      const after = this.afterDrain;
      this.afterDrain = null;
      after?.();
    });
    deflate.end();
  }

  private afterDrain: (() => void) | null = null;

  // ---- lifecycle ----

  private armIdle(): void {
    const ms = this.opts.idleTimeoutMs ?? 30 * 60 * 1000;
    if (ms <= 0) return;
    if (this.idleTimer) {
      this.idleTimer.refresh();
      return;
    }
    this.idleTimer = setTimeout(() => {
      this.fail({ code: 'idle_timeout', message: `nothing received for ${ms} ms` });
      this.close(this.opts.idleMessage ?? 'Idle too long; disconnecting.');
    }, ms);
    this.idleTimer.unref();
  }

  private clearIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  private fail(err: TelnetError): void {
    if (this.listenerCount('error') > 0) this.emit('error', err);
  }

  private onSocketClose(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.clearIdle();
    if (this.killTimer) clearTimeout(this.killTimer);
    if (this.deflate) this.deflate.destroy();
    this.deflate = null;
    this.heldOutput = null;
    this.emit('close');
  }
}
