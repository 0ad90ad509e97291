/**
 * The bus over a NATS server (`--bus nats://HOST:PORT`), with the `nats` client. Core NATS only:
 * no JetStream, nothing stored (see bus.ts). While the server is away the client reconnects for ever,
 * `up` is false, publishes are dropped and requests fail at once with BusUnavailableError; the
 * subscriptions come back by themselves on reconnect.
 */
import { connect, ErrorCode, Events, type NatsConnection, type NatsError } from 'nats';
import { BusMessageError, BusNoResponderError, BusTimeoutError, BusUnavailableError, type Bus, type BusBody, type BusLog } from './bus.js';
import { answerBody, decode, encode, encodeError } from './envelope.js';
import { limitedLog } from './limited-log.js';

export interface NatsBusOptions {
  log: BusLog;
  /** The connection's name, as the NATS server shows it (e.g. lightmud world NAME). */
  clientName?: string;
  /** Wait between reconnect attempts (default 500 ms). */
  reconnectWaitMs?: number;
  /** Give up the first connection after this long (default 2 s). */
  connectTimeoutMs?: number;
}

const text = new TextDecoder();
const bytes = new TextEncoder();

export class NatsBus implements Bus {
  readonly kind = 'nats' as const;
  private isUp = true;
  private listeners = new Set<(up: boolean) => void>();

  private constructor(private nc: NatsConnection, readonly name: string, private log: BusLog) {
    void this.watch();
  }

  /** Connect, or throw an Error that says which server could not be reached and why. */
  static async connect(url: string, opts: NatsBusOptions): Promise<NatsBus> {
    let nc: NatsConnection;
    try {
      nc = await connect({
        servers: url, name: opts.clientName ?? 'lightmud', reconnect: true, maxReconnectAttempts: -1,
        reconnectTimeWait: opts.reconnectWaitMs ?? 500, timeout: opts.connectTimeoutMs ?? 2000, pingInterval: 10_000,
      });
    } catch (err) {
      throw new Error(`cannot reach the NATS server at ${url}: ${(err as Error).message}`);
    }
    return new NatsBus(nc, url, limitedLog(opts.log));
  }

  get up(): boolean {
    return this.isUp && !this.nc.isClosed();
  }

  private async watch(): Promise<void> {
    for await (const s of this.nc.status()) {
      if (s.type === Events.Disconnect) this.setUp(false);
      else if (s.type === Events.Reconnect) this.setUp(true);
    }
  }

  private setUp(up: boolean): void {
    if (up === this.isUp) return;
    this.isUp = up;
    this.log.info({ bus: this.name }, up ? 'the bus is back' : 'the bus is down: cross-world messages are lost until it is back');
    for (const l of this.listeners) l(up);
  }

  publish(subject: string, body: BusBody): void {
    if (!this.up) return;
    this.nc.publish(subject, bytes.encode(encode(body)));
  }

  subscribe(subject: string, handler: (body: BusBody, subject: string) => void): () => void {
    const sub = this.nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err) return this.log.warn({ subject, err: err.message }, 'a bus subscription failed');
        let env;
        try {
          env = decode(text.decode(msg.data));
        } catch (e) {
          return this.log.warn({ subject: msg.subject, err: (e as Error).message }, 'a bad message on the bus was dropped');
        }
        if ('error' in env) return this.log.warn({ subject: msg.subject, err: env.error }, 'an error envelope published on the bus was dropped');
        try {
          handler(env.body, msg.subject);
        } catch (e) {
          this.log.warn({ subject: msg.subject, err: (e as Error).message }, 'a bus message handler failed');
        }
      },
    });
    return () => sub.unsubscribe();
  }

  serve(subject: string, handler: (body: BusBody) => BusBody | Promise<BusBody>, opts: { queue?: string } = {}): () => void {
    const sub = this.nc.subscribe(subject, {
      ...(opts.queue ? { queue: opts.queue } : {}),
      callback: (err, msg) => {
        if (err) return this.log.warn({ subject, err: err.message }, 'a bus subscription failed');
        let env;
        try {
          env = decode(text.decode(msg.data));
          if ('error' in env) throw new BusMessageError('a request carried an error envelope');
        } catch (e) {
          // Dropped: the requester hears nothing and times out.
          return this.log.warn({ subject: msg.subject, err: (e as Error).message }, 'a bad request on the bus was dropped');
        }
        const body = env.body;
        void (async () => {
          let reply: string;
          try {
            reply = encode(await handler(body));
          } catch (e) {
            reply = encodeError((e as Error).message);
          }
          if (msg.reply && this.up) msg.respond(bytes.encode(reply));
        })();
      },
    });
    return () => sub.unsubscribe();
  }

  async request(subject: string, body: BusBody, timeoutMs: number): Promise<BusBody> {
    if (!this.up) throw new BusUnavailableError(this.name);
    let reply;
    try {
      reply = await this.nc.request(subject, bytes.encode(encode(body)), { timeout: timeoutMs });
    } catch (err) {
      const code = (err as NatsError).code;
      if (code === ErrorCode.NoResponders) throw new BusNoResponderError(subject);
      if (code === ErrorCode.Timeout) throw new BusTimeoutError(subject, timeoutMs);
      if (!this.up) throw new BusUnavailableError(this.name);
      throw err;
    }
    return answerBody(text.decode(reply.data), subject, this.log);
  }

  onStatus(listener: (up: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
    if (!this.nc.isClosed()) await this.nc.close();
  }
}
