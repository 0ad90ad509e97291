/** Server options with their defaults, and the small pieces that enforce the limits. */
import type { SyncMode } from '../store/db.js';
import type { PartnerFactory } from '../crowd/partners.js';

export interface LimitOptions {
  /** Largest websocket message; a larger one closes that connection with code 1009. */
  maxFrameBytes: number;
  /** Longest telnet line; a longer one is refused (see the telnet layer). */
  maxLineBytes: number;
  /** Longest command text. */
  maxCommandLength: number;
  /** Sustained commands per second per connection, and the burst above it. Commands beyond are refused with rate_limited. */
  commandsPerSecond: number;
  commandBurst: number;
  /** A connection refused this many commands in a row (still flooding) is disconnected. */
  floodDisconnectAfter: number;
  /** Connections in total, and from one IP address; more are refused at connect. 0: no limit. */
  maxConnections: number;
  maxConnectionsPerIp: number;
  /** Time to log in and choose a character. */
  loginTimeoutMs: number;
  /** Close a connection after this long without input (0: never). */
  idleTimeoutMs: number;
  /** Websocket ping interval; a connection that has not answered the previous ping is closed (half-open sockets). */
  heartbeatMs: number;
  /** Close a connection whose unsent output exceeds this (a client that stopped reading). */
  maxBufferedBytes: number;
  /** How long a character stays reserved for its session after the connection drops, for `resume`. */
  linkdeadMs: number;
  /** Wrong passwords allowed per connection before it is closed. */
  maxLoginFailures: number;
}

export interface ServerOptions extends LimitOptions {
  host: string;
  httpPort: number;
  telnetPort: number | null;
  db: string;
  world?: string;
  fresh: boolean;
  sync: SyncMode;
  snapshotEvery: number;
  /** Account names with the admin role. */
  admins: string[];
  /** Token lifetime for registered accounts and for guests. */
  accountTokenMs: number;
  guestTokenMs: number;
  /** fastify logger: false for none, true for pino at info, or pino options. */
  logger: boolean | { level: string };
  /** The crowd room (server/crowd): who takes a seat no worker has (default: the bundled model), its sweep; false: no crowd routes. */
  crowd?: { partner?: PartnerFactory; tickMs?: number } | false;
}

export const DEFAULT_LIMITS: LimitOptions = {
  maxFrameBytes: 8 * 1024,
  maxLineBytes: 4 * 1024,
  maxCommandLength: 1000,
  commandsPerSecond: 8,
  commandBurst: 20,
  floodDisconnectAfter: 100,
  maxConnections: 2000,
  maxConnectionsPerIp: 50,
  loginTimeoutMs: 120_000,
  idleTimeoutMs: 60 * 60_000,
  heartbeatMs: 30_000,
  maxBufferedBytes: 1024 * 1024,
  linkdeadMs: 5 * 60_000,
  maxLoginFailures: 3,
};

export const DEFAULT_OPTIONS: ServerOptions = {
  ...DEFAULT_LIMITS,
  host: '0.0.0.0',
  httpPort: 3000,
  telnetPort: 4000,
  db: './data/lightmud.db',
  fresh: false,
  sync: 'full',
  snapshotEvery: 5000,
  admins: [],
  accountTokenMs: 30 * 24 * 3600_000,
  guestTokenMs: 24 * 3600_000,
  logger: true,
};

/** A token bucket: `rate` tokens a second, at most `burst` saved up. */
export class TokenBucket {
  private tokens: number;
  private last = performance.now();

  constructor(private rate: number, private burst: number) {
    this.tokens = burst;
  }

  take(): boolean {
    const now = performance.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.rate);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/** Counts open connections, in total and per address. */
export class ConnectionCounter {
  private perIp = new Map<string, number>();
  total = 0;

  constructor(private limits: Pick<LimitOptions, 'maxConnections' | 'maxConnectionsPerIp'>) {}

  /** Reserve a slot; returns a refusal message when the limits are reached. */
  open(ip: string): string | null {
    const n = this.perIp.get(ip) ?? 0;
    if (this.limits.maxConnections > 0 && this.total >= this.limits.maxConnections) return `The server is full (${this.limits.maxConnections} connections); try again later.`;
    if (this.limits.maxConnectionsPerIp > 0 && n >= this.limits.maxConnectionsPerIp) return `Too many connections from your address (the limit is ${this.limits.maxConnectionsPerIp}); try again later.`;
    this.perIp.set(ip, n + 1);
    this.total++;
    return null;
  }

  close(ip: string): void {
    const n = this.perIp.get(ip) ?? 0;
    if (n <= 1) this.perIp.delete(ip);
    else this.perIp.set(ip, n - 1);
    this.total = Math.max(0, this.total - 1);
  }
}
