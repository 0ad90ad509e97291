/** The websocket transport: JSON frames of server/net/protocol.ts over one websocket. */
import type { RawData, WebSocket } from 'ws';
import { Connection, type ResultInfo, type ServerContext } from './connection.js';
import { TokenBucket } from './limits.js';
import { parseClientFrame, PROTOCOL_VERSION, type CharacterState, type ErrorCode, type EventSummary, type FrameId, type ServerFrame } from './protocol.js';
import type { CharacterInfo } from '../host/types.js';
import type { Session } from './portal.js';

export const SERVER_NAME = 'lightmud';
export const SERVER_VERSION = '0.1.0';

/** Websocket close codes used. */
const CLOSE = { normal: 1000, policy: 1008, tryAgain: 1013 } as const;

export class WsConnection extends Connection {
  readonly transport = 'websocket' as const;
  readonly wantsState = true;
  /** Answered the last ping. */
  alive = true;
  /** Messages of every kind on this connection. */
  private frames: TokenBucket;
  private framesRefusedInRow = 0;
  private lastFrameNotice = 0;

  constructor(ctx: ServerContext, ip: string, private ws: WebSocket) {
    super(ctx, ip);
    this.frames = new TokenBucket(ctx.opts.framesPerSecond, ctx.opts.frameBurst);
  }

  /** Every message costs a token of this connection and one of its address; false: dropped (and said so). */
  private admitFrame(): boolean {
    const o = this.ctx.opts;
    const mine = o.framesPerSecond <= 0 || this.frames.take();
    if (mine && this.ctx.addressFrames.take(this.ip)) {
      this.framesRefusedInRow = 0;
      return true;
    }
    if (++this.framesRefusedInRow >= o.floodDisconnectAfter) {
      this.ctx.log.warn({ ip: this.ip, dropped: this.framesRefusedInRow }, 'websocket flood; disconnecting');
      this.end(`Flooding: ${this.framesRefusedInRow} messages in a row over the limit; goodbye.`, 'rate_limited');
      return false;
    }
    const now = Date.now();
    if (now - this.lastFrameNotice >= 1000) {
      this.lastFrameNotice = now;
      this.sendError('rate_limited', mine
        ? `Too many messages from your address: at most ${o.framesPerSecondPerIp} a second (bursts of ${o.frameBurstPerIp}) for all its connections together; messages are being dropped.`
        : `Too many messages: at most ${o.framesPerSecond} a second (bursts of ${o.frameBurst}) on one connection; messages are being dropped.`);
    }
    return false;
  }

  start(): void {
    const o = this.ctx.opts;
    this.send({
      type: 'hello', protocol: PROTOCOL_VERSION, server: SERVER_NAME, version: SERVER_VERSION,
      world: { title: this.ctx.host.info.title },
      login: ['login', 'register', 'resume'],
      limits: {
        maxFrameBytes: o.maxFrameBytes, maxCommandLength: o.maxCommandLength, commandsPerSecond: o.commandsPerSecond,
        commandBurst: o.commandBurst, framesPerSecond: o.framesPerSecond, frameBurst: o.frameBurst, loginTimeoutMs: o.loginTimeoutMs, idleTimeoutMs: o.idleTimeoutMs,
      },
    });
    this.ws.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    this.ws.on('pong', () => (this.alive = true));
    this.ws.on('error', (err) => this.ctx.log.info({ ip: this.ip, err: err.message }, 'websocket error'));
    this.ws.on('close', () => this.closed());
  }

  /** Ping; close a connection that did not answer the previous ping (half-open). */
  heartbeat(): void {
    if (this.phase === 'closed') return;
    if (!this.alive) {
      this.ctx.log.info({ ip: this.ip }, 'websocket did not answer a ping; closing');
      this.ws.terminate();
      return;
    }
    this.alive = false;
    this.ws.ping();
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    if (this.phase === 'closed' || this.ending) return;
    this.touch();
    this.alive = true;
    if (!this.admitFrame()) return;
    if (isBinary) return this.sendError('bad_frame', 'Send text frames holding JSON, not binary frames.');
    const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8');
    const parsed = parseClientFrame(text);
    if (!parsed.ok) return this.sendError(parsed.code, parsed.message, parsed.id);
    const f = parsed.frame;
    const portal = this.ctx.portal;
    switch (f.type) {
      case 'login':
        if ('guest' in f) return void this.login(() => portal.guest(this.ip, f.character));
        return void this.login(() => portal.login(this.ip, f.name, f.password, f.character));
      case 'register':
        return void this.login(() => portal.register(this.ip, f.name, f.password, f.character));
      case 'resume':
        return void this.login(() => portal.resume(this.ip, f.token));
      case 'choose':
        return void this.choose(f.character);
      case 'characters':
        if (this.phase === 'login') return this.sendError('not_logged_in', 'Log in first: {"type":"login","guest":true} answers with the free characters, as does a login to an account.');
        return void this.bounded(() => portal.free())?.then((list) => this.sendCharacters(list), () => this.sendError('unavailable', 'The game is restarting; try again.'));
      case 'command':
        return this.command(f.text, f.id);
      case 'state': {
        const session = this.session;
        if (!session) return this.sendError('not_logged_in', 'Log in and choose a character first.', f.id);
        return void this.bounded(() => this.ctx.host.state(session.character.id), f.id)?.then(
          (s) => (s ? this.sendState(s, f.id) : this.sendError('no_such_character', 'Your character is nowhere.', f.id)),
          () => this.sendError('unavailable', 'The game is restarting; try again.', f.id),
        );
      }
      case 'ping':
        return this.send(f.id === undefined ? { type: 'pong', time: Date.now() } : { type: 'pong', id: f.id, time: Date.now() });
      case 'quit':
        if (this.phase === 'playing') return this.command('quit');
        return this.end('quit');
      case 'password':
        return void this.changeAccount({ kind: 'password', old: f.old, next: f.new }, f.id);
      case 'delete_account':
        return void this.changeAccount({ kind: 'delete', password: f.password }, f.id);
    }
  }

  private send(frame: ServerFrame): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    if (this.ws.bufferedAmount > this.ctx.opts.maxBufferedBytes) {
      this.ctx.log.warn({ ip: this.ip, buffered: this.ws.bufferedAmount }, 'websocket client is not reading; closing');
      this.ws.terminate();
      return;
    }
    this.cork();
    this.ws.send(JSON.stringify(frame));
  }

  private corked = false;

  /**
   * Frames sent in one turn of the event loop leave in one write: a result and its state, and an event and the
   * state that follows it from the game's next message (uncorked once the messages that arrived together are handled).
   */
  private cork(): void {
    if (this.corked) return;
    // ws keeps its net.Socket in _socket (not in its types).
    const socket = (this.ws as unknown as { _socket?: import('node:net').Socket })._socket;
    if (!socket || typeof socket.cork !== 'function') return;
    this.corked = true;
    socket.cork();
    setImmediate(() => {
      this.corked = false;
      socket.uncork();
    });
  }

  sendResult(text: string, info: ResultInfo): void {
    this.send({ type: 'observation', kind: 'result', text, ...info });
  }

  sendEvent(text: string, event: EventSummary): void {
    this.send({ type: 'observation', kind: 'event', text, event });
  }

  sendSystem(text: string): void {
    this.send({ type: 'observation', kind: 'system', text });
  }

  sendLook(text: string, state: CharacterState | null): void {
    this.send({ type: 'observation', kind: 'look', text });
    if (state) this.sendState(state);
  }

  sendState(state: CharacterState, id?: FrameId): void {
    this.send(id === undefined ? { type: 'state', ...state } : { type: 'state', id, ...state });
  }

  sendError(code: ErrorCode, message: string, id?: FrameId): void {
    this.send(id === undefined ? { type: 'error', code, message } : { type: 'error', code, message, id });
  }

  sendCharacters(list: CharacterInfo[], message?: string): void {
    if (message) this.sendSystem(message);
    this.send({ type: 'characters', characters: list.map((c) => ({ id: c.id, name: c.name, room: c.room })) });
  }

  sendAccount(change: 'password' | 'deleted', message: string, id?: FrameId): void {
    this.send(id === undefined ? { type: 'account', change, message } : { type: 'account', change, message, id });
  }

  sendWelcome(session: Session, resumed: boolean): void {
    this.send({
      type: 'welcome', character: { ...session.character }, token: session.token,
      account: session.account ? { name: session.account.name, role: session.account.role } : null, resumed,
    });
  }

  protected closeTransport(reason: string, code?: ErrorCode): void {
    if (code) this.sendError(code, reason);
    this.send({ type: 'bye', reason });
    const closeCode = code === 'too_many_connections' || code === 'unavailable' ? CLOSE.tryAgain : code ? CLOSE.policy : CLOSE.normal;
    // A close reason is at most 123 bytes.
    this.ws.close(closeCode, Buffer.from(reason).subarray(0, 120).toString('utf8').replace(/\uFFFD$/, ''));
    const kill = setTimeout(() => this.ws.terminate(), 5000);
    kill.unref();
    this.ws.once('close', () => clearTimeout(kill));
  }
}

/** Refuse a websocket before it becomes a connection (server full). */
export function refuseWebsocket(ws: WebSocket, message: string): void {
  ws.send(JSON.stringify({ type: 'error', code: 'too_many_connections', message } satisfies ServerFrame));
  ws.close(CLOSE.tryAgain, 'too many connections');
  const kill = setTimeout(() => ws.terminate(), 5000);
  kill.unref();
  ws.once('close', () => clearTimeout(kill));
}
