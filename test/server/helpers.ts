/**
 * Real clients for the server tests: a websocket client that awaits frames, a raw telnet client
 * that records negotiation bytes and awaits text, and a server on 127.0.0.1 with port 0 over a
 * temp SQLite file and a small world.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { LITTLE_WORLD } from '../fixtures/little-world.js';
import { startServer, type RunningServer } from '../../server/net/server.js';
import type { ServerOptions } from '../../server/net/limits.js';
import type { ClientFrame, ServerFrame, StateFrame, ObservationFrame } from '../../server/net/protocol.js';

/** A guard against hangs, not a timing assertion: a test waiting this long has failed anyway. */
const WAIT_MS = 10_000;

export function tempDir(prefix = 'lightmud-test-'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The little test world (garden, shed, road; kitty, orc, gardener, ghost, carter) as a file. */
export function writeLittleWorld(dir: string): string {
  const file = join(dir, 'little-world.json');
  writeFileSync(file, JSON.stringify(LITTLE_WORLD));
  return file;
}

export interface TestServer extends RunningServer {
  dir: string;
  db: string;
  world: string;
  wsUrl: string;
  stop(): Promise<void>;
}

export async function startTestServer(opts: Partial<ServerOptions> = {}, dir?: string): Promise<TestServer> {
  const tmp = dir ? { dir, cleanup() {} } : tempDir();
  const world = writeLittleWorld(tmp.dir);
  const db = opts.db ?? join(tmp.dir, 'test.db');
  const server = await startServer({ db, world, httpPort: 0, telnetPort: 0, host: '127.0.0.1', logger: false, linkdeadMs: 0, ...opts });
  return {
    ...server,
    dir: tmp.dir,
    db,
    world,
    wsUrl: `ws://127.0.0.1:${server.httpPort}/ws`,
    async stop() {
      await server.close();
      tmp.cleanup();
    },
  };
}

/** Register an account directly in the server's database and give it the admin role (as `lightmud admin grant` does). */
export async function makeAdmin(server: RunningServer, name: string, password: string): Promise<void> {
  await server.accounts.register(name, password);
  if (!server.accounts.setRole(name, 'admin')) throw new Error(`no account ${name}`);
}

function waiter<T>(what: string, check: () => T | undefined, subscribe: (wake: () => void) => () => void): Promise<T> {
  return new Promise((resolve, reject) => {
    let first: T | undefined;
    try {
      first = check();
    } catch (err) {
      return reject(err as Error);
    }
    if (first !== undefined) return resolve(first);
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`timed out waiting for ${what}`));
    }, WAIT_MS);
    const unsubscribe = subscribe(() => {
      let v: T | undefined;
      try {
        v = check();
      } catch (err) {
        // e.g. the connection closed while waiting: reject this wait, not the event emitter that woke it.
        clearTimeout(timer);
        unsubscribe();
        return reject(err as Error);
      }
      if (v === undefined) return;
      clearTimeout(timer);
      unsubscribe();
      resolve(v);
    });
  });
}

export class WsClient {
  readonly frames: ServerFrame[] = [];
  private cursor = 0;
  private listeners = new Set<() => void>();
  closed: { code: number; reason: string } | null = null;
  private nextId = 1;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.frames.push(JSON.parse(String(data)) as ServerFrame);
      for (const l of [...this.listeners]) l();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: String(reason) };
      for (const l of [...this.listeners]) l();
    });
    ws.on('error', () => {});
  }

  /** `from`: the local address to connect from (127.0.0.2, ... are other addresses on loopback). */
  static open(url: string, from?: string, headers?: Record<string, string>): Promise<WsClient> {
    const ws = new WebSocket(url, { ...(from ? { localAddress: from } : {}), ...(headers ? { headers } : {}) });
    const c = new WsClient(ws);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(c));
      ws.once('error', reject);
    });
  }

  private subscribe = (wake: () => void) => {
    this.listeners.add(wake);
    return () => this.listeners.delete(wake);
  };

  send(frame: ClientFrame | Record<string, unknown>): void {
    this.ws.send(JSON.stringify(frame));
  }

  raw(data: string | Buffer): void {
    this.ws.send(data);
  }

  /** The next frame (after the last one taken) that matches; frames before it are passed over. */
  next<T extends ServerFrame = ServerFrame>(match: (f: ServerFrame) => boolean, what = 'a frame'): Promise<T> {
    return waiter(what, () => {
      for (let i = this.cursor; i < this.frames.length; i++) {
        if (match(this.frames[i]!)) {
          this.cursor = i + 1;
          return this.frames[i] as T;
        }
      }
      if (this.closed) throw new Error(`connection closed (${this.closed.code} ${this.closed.reason}) while waiting for ${what}`);
      return undefined;
    }, this.subscribe);
  }

  nextOfType<K extends ServerFrame['type']>(type: K): Promise<Extract<ServerFrame, { type: K }>> {
    return this.next((f) => f.type === type, `a ${type} frame`) as Promise<Extract<ServerFrame, { type: K }>>;
  }

  /**
   * The frame answering a request by its id, wherever it is (ids are unique): commands run
   * concurrently must not pass over each other's answers, as a shared cursor would when several
   * frames arrive in one chunk. The cursor moves past it, as next() would.
   */
  private answer<T extends ServerFrame>(match: (f: ServerFrame) => boolean, what: string): Promise<T> {
    return waiter(what, () => {
      const i = this.frames.findIndex(match);
      if (i >= 0) {
        this.cursor = Math.max(this.cursor, i + 1);
        return this.frames[i] as T;
      }
      if (this.closed) throw new Error(`connection closed (${this.closed.code} ${this.closed.reason}) while waiting for ${what}`);
      return undefined;
    }, this.subscribe);
  }

  /** Any frame already received or still to come (ignores the cursor). */
  seen(match: (f: ServerFrame) => boolean, what = 'a frame'): Promise<ServerFrame> {
    return waiter(what, () => this.frames.find(match), this.subscribe);
  }

  waitClosed(): Promise<{ code: number; reason: string }> {
    return waiter('the connection to close', () => this.closed ?? undefined, this.subscribe);
  }

  /** Log in as a guest playing `character`; resolves with the first state. */
  async guest(character: string): Promise<StateFrame> {
    await this.nextOfType('hello');
    this.send({ type: 'login', guest: true, character });
    await this.nextOfType('welcome');
    return this.nextOfType('state');
  }

  /** Run a command; resolves with its result observation and the state after it. */
  async command(text: string): Promise<{ result: ObservationFrame; state: StateFrame }> {
    const id = `c${this.nextId++}`;
    this.send({ type: 'command', text, id });
    const result = await this.answer<ObservationFrame>((f) => (f.type === 'observation' && f.id === id) || (f.type === 'error' && f.id === id), `the result of "${text}"`);
    if ((result as ServerFrame).type === 'error') throw new Error(`"${text}" was refused: ${JSON.stringify(result)}`);
    const state = await this.answer<StateFrame>((f) => f.type === 'state' && f.id === id, `the state after "${text}"`);
    return { result, state };
  }

  /** The next observation of another's action containing `text`. */
  event(text: string): Promise<ObservationFrame> {
    return this.next<ObservationFrame>((f) => f.type === 'observation' && f.kind === 'event' && f.text.includes(text), `an event "${text}"`);
  }

  /** Quit (the character is freed) and wait for the server to close the connection. */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.send({ type: 'quit' });
    return this.waitClosed().then(() => {});
  }

  /** Drop the connection without quitting (the character stays held for a resume). */
  drop(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.ws.close();
    return this.waitClosed().then(() => {});
  }
}

const IAC = 255;

/** A raw telnet client: records every negotiation it receives, answers only what it is told to. */
export class TelnetClient {
  text = '';
  private cursor = 0;
  /** Every IAC command received, as [verb, option] (subnegotiations as [250, option, ...payload]). */
  readonly commands: number[][] = [];
  readonly gmcp: { pkg: string; data: unknown }[] = [];
  private listeners = new Set<() => void>();
  closed = false;
  private pending = Buffer.alloc(0);
  private ttypeAnswers = 0;

  /** `ttype`: the names to answer TTYPE with, in turn (the last repeated), as MTTS clients do; none: refuse TTYPE. */
  private constructor(readonly socket: Socket, private accept: Set<number>, private ttype: string[] = []) {
    socket.on('data', (chunk) => this.onData(chunk));
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => {});
  }

  /** `accept`: options to agree to when the server offers them (e.g. 201 for GMCP). */
  static open(port: number, accept: number[] = [], from?: string, ttype: string[] = []): Promise<TelnetClient> {
    const socket = connect(from ? { port, host: '127.0.0.1', localAddress: from } : { port, host: '127.0.0.1' });
    // Like a real telnet client: let the server echo (that is how it hides passwords) and suppress go-ahead.
    const c = new TelnetClient(socket, new Set([1, 3, ...accept]), ttype);
    return new Promise((resolve, reject) => {
      socket.once('connect', () => resolve(c));
      socket.once('error', reject);
    });
  }

  private wake(): void {
    for (const l of [...this.listeners]) l();
  }

  private onData(chunk: Buffer): void {
    let buf = Buffer.concat([this.pending, chunk]);
    this.pending = Buffer.alloc(0);
    const out: number[] = [];
    let i = 0;
    while (i < buf.length) {
      const b = buf[i]!;
      if (b !== IAC) {
        out.push(b);
        i++;
        continue;
      }
      if (i + 1 >= buf.length) break;
      const cmd = buf[i + 1]!;
      if (cmd === IAC) {
        out.push(IAC);
        i += 2;
      } else if (cmd >= 251 && cmd <= 254) {
        if (i + 2 >= buf.length) break;
        const opt = buf[i + 2]!;
        this.commands.push([cmd, opt]);
        if (cmd === 251 && this.accept.has(opt)) this.socket.write(Buffer.of(IAC, 253, opt));
        else if (cmd === 251) this.socket.write(Buffer.of(IAC, 254, opt));
        else if (cmd === 253 && opt === 24 && this.ttype.length) this.socket.write(Buffer.of(IAC, 251, 24));
        else if (cmd === 253 && opt !== 1) this.socket.write(Buffer.of(IAC, 252, opt));
        i += 3;
      } else if (cmd === 250) {
        const end = buf.indexOf(Buffer.of(IAC, 240), i + 2);
        if (end < 0) break;
        const body = buf.subarray(i + 2, end);
        this.commands.push([250, ...body]);
        if (body[0] === 24 && body[1] === 1 && this.ttype.length) {
          const name = this.ttype[Math.min(this.ttypeAnswers++, this.ttype.length - 1)]!;
          this.socket.write(Buffer.concat([Buffer.of(IAC, 250, 24, 0), Buffer.from(name, 'latin1'), Buffer.of(IAC, 240)]));
        }
        if (body[0] === 201) {
          const s = body.subarray(1).toString('utf8');
          const sp = s.indexOf(' ');
          this.gmcp.push({ pkg: sp < 0 ? s : s.slice(0, sp), data: sp < 0 ? null : JSON.parse(s.slice(sp + 1)) });
        }
        i = end + 2;
      } else {
        this.commands.push([cmd]);
        i += 2;
      }
    }
    if (i < buf.length) this.pending = buf.subarray(i);
    buf = Buffer.from(out);
    this.text += buf.toString('utf8');
    this.wake();
  }

  private subscribe = (wake: () => void) => {
    this.listeners.add(wake);
    return () => this.listeners.delete(wake);
  };

  line(text: string): void {
    this.socket.write(`${text}\r\n`);
  }

  write(data: Buffer | string): void {
    this.socket.write(data);
  }

  /** Wait for text after the last match; returns everything up to and including it. */
  waitFor(pattern: string | RegExp): Promise<string> {
    return waiter(`telnet text ${String(pattern)}`, () => {
      const rest = this.text.slice(this.cursor);
      const m = typeof pattern === 'string' ? (rest.includes(pattern) ? { index: rest.indexOf(pattern), len: pattern.length } : null) : (() => {
        const r = pattern.exec(rest);
        return r ? { index: r.index, len: r[0].length } : null;
      })();
      if (m) {
        this.cursor += m.index + m.len;
        return rest.slice(0, m.index + m.len);
      }
      if (this.closed) throw new Error(`telnet connection closed while waiting for ${String(pattern)}; got: ${JSON.stringify(rest.slice(-300))}`);
      return undefined;
    }, this.subscribe);
  }

  waitGmcp(pkg: string, match: (data: unknown) => boolean = () => true): Promise<unknown> {
    let from = 0;
    return waiter(`GMCP ${pkg}`, () => {
      for (let i = from; i < this.gmcp.length; i++) if (this.gmcp[i]!.pkg === pkg && match(this.gmcp[i]!.data)) return this.gmcp[i]!.data;
      from = this.gmcp.length;
      return undefined;
    }, this.subscribe);
  }

  waitClosed(): Promise<void> {
    return waiter('the telnet connection to close', () => (this.closed ? true : undefined), this.subscribe).then(() => {});
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.socket.end();
    return this.waitClosed();
  }

  /** Wait until the server has asked for the terminal type `n` times (each answered at once). */
  waitTtypeRequests(n: number): Promise<void> {
    return waiter(`${n} TTYPE requests`, () => (this.commands.filter((c) => c[0] === 250 && c[1] === 24 && c[2] === 1).length >= n ? true : undefined), this.subscribe).then(() => {});
  }

  /** Log in as a guest and take up `character` by name. */
  async guest(character: string): Promise<void> {
    await this.waitFor('> ');
    this.line('guest');
    await this.waitFor('Choose a character');
    this.line(character);
    await this.waitFor(/You are now/);
    await this.waitFor('> ');
  }
}
