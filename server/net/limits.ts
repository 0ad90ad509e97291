/** Server options with their defaults, and the small pieces that enforce the limits. */
import type { SyncMode } from '../store/db.js';
import type { PartnerFactory } from '../crowd/partners.js';
import type { Bus } from '../bus/bus.js';

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
  /**
   * Websocket messages of every kind (commands, logins, pings, ...) per second per connection, and the
   * burst above it. Messages beyond are dropped, with one `rate_limited` error a second saying so; a
   * connection with `floodDisconnectAfter` messages dropped in a row is disconnected.
   */
  framesPerSecond: number;
  frameBurst: number;
  /** The same, for all the websocket connections of one address together. 0: no limit. */
  framesPerSecondPerIp: number;
  frameBurstPerIp: number;
  /**
   * Bytes per second a telnet connection may send, and the burst above it. A connection that has sent
   * more than twice the burst beyond its allowance (a sustained flood, not a paste) is disconnected.
   */
  telnetBytesPerSecond: number;
  telnetByteBurst: number;
  /** Largest telnet subnegotiation (GMCP message, ...) accepted; a longer or unclosed one is dropped at this size. */
  maxSubnegotiationBytes: number;
  /**
   * Failed logins: after this many in a row for one account name, each further attempt on it must wait
   * loginBackoffMs, then twice that, ... up to loginBackoffMaxMs (from any address, any connection).
   * The same for one address across every name, after loginFailuresPerIp. 0: off.
   */
  loginFailuresPerAccount: number;
  loginFailuresPerIp: number;
  loginBackoffMs: number;
  loginBackoffMaxMs: number;
  /** Accounts one address may register an hour. 0: no limit. */
  registrationsPerIpPerHour: number;
  /** New connections (of any kind) per second from one address, and the burst: churn costs handshakes. 0: no limit. */
  connectsPerSecondPerIp: number;
  connectBurstPerIp: number;
  /** Plain HTTP requests (pages, /api/..., health checks) per second from one address, and the burst. 0: no limit. */
  httpRequestsPerIp: number;
  httpBurstPerIp: number;
  /** Characters one address may hold at once, link-dead ones (kept for a resume) included. 0: no limit. */
  maxCharactersPerIp: number;
  /** Requests of one connection waiting for the game (commands queued, states, character lists); more are refused. */
  maxPendingRequests: number;
}

export interface ServerOptions extends LimitOptions {
  host: string;
  httpPort: number;
  telnetPort: number | null;
  /** The SQLite file: the world's store, accounts, tokens, agent keys, agent memory, crowd tasks; with `pg`, all but the world. */
  db: string;
  /**
   * Keep the world (its event log, snapshots and notes) in PostgreSQL (server/store/pg-store.ts): the connection
   * string and which world of that database. While another server holds that world, this one stands by.
   */
  pg?: { url: string; world: string };
  world?: string;
  fresh: boolean;
  sync: SyncMode;
  snapshotEvery: number;
  /**
   * Addresses of reverse proxies in front of the HTTP port (e.g. ["127.0.0.1"]). A websocket arriving
   * through one is counted, limited and logged by the client address in its X-Forwarded-For header
   * (the last address before the trusted proxies); the proxy's own connections are not limited per
   * address. Empty (default): X-Forwarded-For is ignored, since anyone can send it.
   */
  trustProxy: string[];
  /** Largest database in bytes (a quota; writes beyond fail as on a full disk). 0: none. */
  maxDbBytes: number;
  /** Account names with the admin role. */
  admins: string[];
  /** Token lifetime for registered accounts and for guests. */
  accountTokenMs: number;
  guestTokenMs: number;
  /** fastify logger: false for none, true for pino at info, or pino options. */
  logger: boolean | { level: string; stream?: { write(s: string): void } };
  /** The crowd room (server/crowd): who takes a seat no worker has (default: the bundled model), its sweep; false: no crowd routes. */
  crowd?: { partner?: PartnerFactory; tickMs?: number } | false;
  /** Share a bus with other worlds' servers (server/net/cross-world.ts): cross-world who and tell. None: this world alone, as before. */
  crossWorld?: CrossWorldOptions;
  /**
   * A portal of a cluster (issue 15): the world's game runs in a shard process (`lightmud shard`) reached
   * over the bus, not in this process; `db` keeps this portal's accounts and the rest that stays on SQLite.
   * `world`, `fresh`, `pg`, `sync` and `snapshotEvery` are the shard's business and are not used.
   */
  remote?: RemoteWorldOptions;
}

export interface RemoteWorldOptions {
  /** The bus (its opener closes it). */
  bus: Bus;
  /** The world's name on the bus, as its shard was started with (--world-id). */
  world: string;
  /** How long a request waits for the shard's answer before it is sent again, once (default 3000 ms). */
  timeoutMs?: number;
  /** This portal drives the world's model and scripted characters (one portal of a world should: server/cluster/model-claim.ts). */
  models?: boolean;
  /** When no shard serves the world, ask the on-demand shards to open it (lightmud shard --on-demand). */
  openOnDemand?: boolean;
}

export interface CrossWorldOptions {
  /** The bus (its opener closes it; the server only leaves it). */
  bus: Bus;
  /** This world's name on the bus (--world-id). */
  world: string;
  /** How long to wait for another world's answer (default 500 ms). */
  timeoutMs?: number;
  /** How often this world says it is here (default 2 s); a world silent for 30 heartbeats is forgotten. */
  heartbeatMs?: number;
  /** A portal of a cluster's world (--remote): the world's other portals share its name on the bus. */
  shared?: boolean;
  /** A player's shout carries beyond the rooms next door (to every player of every world) at most this often (default 10 s; 0: every shout; null: never). */
  shoutEveryMs?: number | null;
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
  framesPerSecond: 20,
  frameBurst: 60,
  framesPerSecondPerIp: 200,
  frameBurstPerIp: 400,
  maxPendingRequests: 32,
  maxCharactersPerIp: 5,
  connectsPerSecondPerIp: 20,
  connectBurstPerIp: 100,
  httpRequestsPerIp: 20,
  httpBurstPerIp: 60,
  loginFailuresPerAccount: 5,
  loginFailuresPerIp: 20,
  loginBackoffMs: 2000,
  loginBackoffMaxMs: 5 * 60_000,
  registrationsPerIpPerHour: 5,
  telnetBytesPerSecond: 16 * 1024,
  telnetByteBurst: 64 * 1024,
  maxSubnegotiationBytes: 4096,
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
  maxDbBytes: 0,
  trustProxy: [],
  admins: [],
  accountTokenMs: 30 * 24 * 3600_000,
  guestTokenMs: 24 * 3600_000,
  logger: true,
};

/**
 * The address that limits are counted by: an IPv4 address as it is (also when IPv4-mapped, ::ffff:a.b.c.d);
 * an IPv6 address by its /64 prefix, since one host or network is given a whole /64 and could otherwise
 * take a fresh address for every connection.
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!ip.includes(':')) return ip;
  const [head = '', tail = ''] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
  if (ip === '::1') return ip;
  return `${groups.slice(0, 4).map((g) => (g || '0').replace(/^0+(?=.)/, '').toLowerCase()).join(':')}::/64`;
}

/** A token bucket: `rate` tokens a second, at most `burst` saved up. */
export class TokenBucket {
  private tokens: number;
  private last = performance.now();

  constructor(private rate: number, private burst: number) {
    this.tokens = burst;
  }

  private refill(): void {
    const now = performance.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.rate);
    this.last = now;
  }

  take(n = 1): boolean {
    this.refill();
    if (this.tokens < n) return false;
    this.tokens -= n;
    return true;
  }

  /** Take `n` even when that goes into debt; returns the tokens left (negative: in debt). */
  spend(n: number): number {
    this.refill();
    this.tokens -= n;
    return this.tokens;
  }

  /** Saved up to the full burst: nothing to remember. */
  get full(): boolean {
    this.refill();
    return this.tokens >= this.burst;
  }
}

/** One token bucket per address, shared by all its connections; `rate` 0: no limit. */
export class AddressBuckets {
  private buckets = new Map<string, TokenBucket>();

  constructor(private rate: number, private burst: number) {}

  take(ip: string): boolean {
    if (this.rate <= 0) return true;
    let b = this.buckets.get(ip);
    if (!b) this.buckets.set(ip, (b = new TokenBucket(this.rate, Math.max(1, this.burst))));
    return b.take();
  }

  /** Forget addresses whose bucket is full again (called by the server's sweep). */
  prune(): void {
    for (const [ip, b] of this.buckets) if (b.full) this.buckets.delete(ip);
  }

  get size(): number {
    return this.buckets.size;
  }
}

/** Counts open connections, in total and per address. */
export class ConnectionCounter {
  private perIp = new Map<string, number>();
  private connects: AddressBuckets;
  total = 0;

  constructor(private limits: Pick<LimitOptions, 'maxConnections' | 'maxConnectionsPerIp' | 'connectsPerSecondPerIp' | 'connectBurstPerIp'>) {
    this.connects = new AddressBuckets(limits.connectsPerSecondPerIp, limits.connectBurstPerIp);
  }

  /** Reserve a slot; returns a refusal message when the limits are reached. */
  open(ip: string): string | null {
    if (!this.connects.take(ip)) return `Too many new connections from your address (at most ${this.limits.connectsPerSecondPerIp} a second); try again shortly.`;
    const n = this.perIp.get(ip) ?? 0;
    if (this.limits.maxConnections > 0 && this.total >= this.limits.maxConnections) return `The server is full (${this.limits.maxConnections} connections); try again later.`;
    if (this.limits.maxConnectionsPerIp > 0 && n >= this.limits.maxConnectionsPerIp) return `Too many connections from your address (the limit is ${this.limits.maxConnectionsPerIp}); try again later.`;
    this.perIp.set(ip, n + 1);
    this.total++;
    return null;
  }

  /** Forget the connect rates of quiet addresses (the server's sweep). */
  prune(): void {
    this.connects.prune();
  }

  /** Open connections from one address. */
  count(ip: string): number {
    return this.perIp.get(ip) ?? 0;
  }

  close(ip: string): void {
    const n = this.perIp.get(ip) ?? 0;
    if (n <= 1) this.perIp.delete(ip);
    else this.perIp.set(ip, n - 1);
    this.total = Math.max(0, this.total - 1);
  }
}
