/** Test helpers: a TelnetConnection server on 127.0.0.1 and a raw byte client that inflates MCCP2. */
import { createServer, connect, type Server, type Socket } from 'node:net';
import zlib from 'node:zlib';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { TelnetConnection, type TelnetOptions } from '../../server/net/telnet/connection.js';
import { TelnetParser, type TelnetEvent } from '../../server/net/telnet/parser.js';

export const IAC = 255;
export const DONT = 254;
export const DO = 253;
export const WONT = 252;
export const WILL = 251;
export const SB = 250;
export const SE = 240;
export const GA = 249;
export const EOR = 239;

/** Build bytes from numbers, strings (UTF-8) and buffers. */
export function bytes(...parts: Array<number | string | Buffer>): Buffer {
  return Buffer.concat(
    parts.map((p) => (typeof p === 'number' ? Buffer.of(p) : typeof p === 'string' ? Buffer.from(p, 'utf8') : p)),
  );
}

export function sb(option: number, ...payload: Array<number | string | Buffer>): Buffer {
  return bytes(IAC, SB, option, ...payload, IAC, SE);
}

export interface TestServer {
  port: number;
  /** Resolves with the next connection's TelnetConnection (already started). */
  nextConnection(): Promise<TelnetConnection>;
  close(): Promise<void>;
}

/** A server that wraps each socket in a TelnetConnection and starts it (after `setup`, if given). */
export async function startServer(
  opts: TelnetOptions = {},
  setup?: (conn: TelnetConnection) => void,
): Promise<TestServer> {
  const waiting: Array<(c: TelnetConnection) => void> = [];
  const ready: TelnetConnection[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const conn = new TelnetConnection(socket, opts);
    setup?.(conn);
    conn.start();
    const w = waiting.shift();
    if (w) w(conn);
    else ready.push(conn);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    nextConnection: () =>
      new Promise((resolve) => {
        const c = ready.shift();
        if (c) resolve(c);
        else waiting.push(resolve);
      }),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const MCCP2_START = Buffer.of(IAC, SB, 86, IAC, SE);

/**
 * A raw TCP client: records every byte the server sends, inflating after IAC SB MCCP2 IAC SE, and parses the
 * (decompressed) stream into telnet events with an independent look at the bytes.
 */
export class RawClient {
  readonly socket: Socket;
  /** All bytes received, decompressed. */
  received = Buffer.alloc(0);
  /** Raw bytes as they arrived on the wire (compressed part included). */
  wireBytes = 0;
  readonly events: TelnetEvent[] = [];
  compressed = false;
  /** Set when the compression stream ended (complete, unless compressionError is set). */
  compressionEnded = false;
  /** A zlib error while inflating (such as a stream cut short). */
  compressionError: Error | null = null;
  ended = false;
  private readonly parser = new TelnetParser({ maxSubnegotiation: 1 << 24 });
  private inflate: zlib.Inflate | null = null;
  private pendingPlain = Buffer.alloc(0);
  private inflateInput: Buffer[] = [];
  private waiters: Array<() => void> = [];

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.wireBytes += chunk.length;
      this.onWire(chunk);
    });
    socket.on('end', () => {
      // Let the inflater see the end of input: it then reports a stream cut short as an error.
      if (this.inflate) this.inflate.end();
      this.ended = true;
      this.wake();
    });
    socket.on('close', () => {
      this.ended = true;
      this.wake();
    });
    socket.on('error', () => undefined);
  }

  static async connect(port: number): Promise<RawClient> {
    const socket = connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    return new RawClient(socket);
  }

  write(data: Buffer | string): void {
    this.socket.write(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
  }

  /** Wait until `pred` holds (checked on every arrival); rejects after `ms` with what was received. */
  async waitFor(pred: () => boolean, what = 'condition', ms = 5000): Promise<void> {
    if (pred()) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== check);
        reject(new Error(`timed out waiting for ${what}; received ${JSON.stringify(this.text())}`));
      }, ms);
      const check = (): void => {
        if (pred()) {
          clearTimeout(timer);
          this.waiters = this.waiters.filter((w) => w !== check);
          resolve();
        }
      };
      this.waiters.push(check);
    });
  }

  /** The data (non-IAC) part of everything received, as text. */
  text(): string {
    return Buffer.concat(this.events.flatMap((e) => (e.type === 'data' ? [e.data] : []))).toString('utf8');
  }

  negotiations(): string[] {
    const names: Record<number, string> = { [WILL]: 'WILL', [WONT]: 'WONT', [DO]: 'DO', [DONT]: 'DONT' };
    return this.events.flatMap((e) => (e.type === 'negotiate' ? [`${names[e.verb]} ${e.option}`] : []));
  }

  subs(option: number): Buffer[] {
    return this.events.flatMap((e) => (e.type === 'sub' && e.option === option ? [e.data] : []));
  }

  commands(): number[] {
    return this.events.flatMap((e) => (e.type === 'command' ? [e.command] : []));
  }

  async close(): Promise<void> {
    if (this.socket.destroyed) return;
    await new Promise<void>((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.destroy();
    });
  }

  private onWire(chunk: Buffer): void {
    if (this.inflate) {
      this.inflateInput.push(chunk);
      this.inflate.write(chunk);
      return;
    }
    const all = Buffer.concat([this.pendingPlain, chunk]);
    const at = all.indexOf(MCCP2_START);
    if (at < 0) {
      // Keep a possible partial marker at the end for the next chunk.
      let keep = 0;
      for (let k = Math.min(4, all.length); k > 0; k--) {
        if (all.subarray(all.length - k).equals(MCCP2_START.subarray(0, k))) {
          keep = k;
          break;
        }
      }
      this.pendingPlain = Buffer.from(all.subarray(all.length - keep));
      this.onPlain(all.subarray(0, all.length - keep));
      return;
    }
    this.pendingPlain = Buffer.alloc(0);
    this.onPlain(all.subarray(0, at + MCCP2_START.length));
    this.compressed = true;
    const inflate = zlib.createInflate();
    inflate.on('data', (d: Buffer) => this.onPlain(d));
    inflate.on('end', () => {
      // Bytes after the end of the zlib stream are plain telnet again (as a real client reads them).
      const rest = Buffer.concat(this.inflateInput).subarray(inflate.bytesWritten);
      this.inflateInput = [];
      this.compressionEnded = true;
      this.inflate = null;
      this.wake();
      if (rest.length > 0) this.onWire(rest);
    });
    inflate.on('error', (err) => {
      this.compressionError = err;
      this.wake();
    });
    this.inflate = inflate;
    this.wake();
    const rest = all.subarray(at + MCCP2_START.length);
    this.inflateInput = [Buffer.from(rest)];
    if (rest.length > 0) inflate.write(rest);
  }

  private onPlain(data: Buffer): void {
    if (data.length === 0) return;
    this.received = Buffer.concat([this.received, data]);
    this.parser.feed(data, (ev) => this.events.push(ev.type === 'data' ? { type: 'data', data: Buffer.from(ev.data) } : ev));
    this.wake();
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }
}

/** Wait for an event on an emitter, with a time limit so a failing test reports instead of hanging. */
export function once<T extends unknown[]>(
  emitter: { once(event: string, fn: (...args: T) => void): unknown },
  event: string,
  ms = 5000,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for '${event}'`)), ms);
    emitter.once(event, (...args: T) => {
      clearTimeout(timer);
      resolve(args);
    });
  });
}

export interface ClientFixture {
  client: string;
  source: string;
  chunks: Array<{ hex: string; note?: string; ms?: number }>;
  expect: {
    lines: string[];
    terminalTypes: string[];
    mtts: number | null;
    width: number;
    height: number;
    supportsGmcp: boolean;
    supportsMsdp: boolean;
    usesEor: boolean;
    compressing: boolean;
    charset: string | null;
    clientName: string | null;
    gmcpSupports: string[];
    ttypeRequests: number;
  };
}

export function loadFixture(name: string): ClientFixture {
  const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'telnet');
  return JSON.parse(readFileSync(join(dir, name), 'utf8')) as ClientFixture;
}
