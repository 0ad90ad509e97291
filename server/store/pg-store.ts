/**
 * The world's store in PostgreSQL (`lightmud serve --db postgres://...`, issue 15 step 1).
 *
 * One world per `world` id; several worlds can share a database. Tables:
 *   lightmud_events    (world, seq) -> one executed command, as the SQLite events table
 *   lightmud_snapshots (world, id)  -> whole-world states; the newest 3 per world are kept
 *   lightmud_meta      (world, key) -> world.source, world.title
 *   lightmud_world_owners (world) -> who took the world's lock last, and when (a record; the lock fences)
 *
 * Single writer: every write of a world goes through one connection that holds a PostgreSQL session
 * advisory lock for that world (pg_try_advisory_lock(LOCK_CLASS, hashtext(world))). A second server
 * on the same world and database cannot take the lock: it refuses (WorldLockedError) or, asked to
 * wait, stands by and takes the lock when the first one's connection ends (its backend releases the
 * lock as it dies). The connection is never re-opened: once it is lost, the store is fenced (every
 * write fails) and the game host restarts from what the database holds, taking the lock anew or not.
 *
 * Durability: write() resolves after PostgreSQL's COMMIT returns, with synchronous_commit = on on this
 * connection (the commit is flushed to PostgreSQL's WAL), and only then does the host acknowledge.
 * Reads (the newest snapshot and the commands after it, the last seq, the notes) are loaded at open
 * and kept up to date from what this writer commits, so the game host reads them synchronously.
 */
import pg from 'pg';
import type { WorldState } from '../engine/index.js';
import type { LoggedCommand, NewEvent, Snapshot } from './world-store.js';
import { DEFAULT_PG_WORLD, type GameStore, type WorldWrite } from './store.js';

/** The advisory lock's first key: 'LM'. The second is hashtext(world). Schema changes take (LOCK_CLASS + 1, 0). */
export const LOCK_CLASS = 0x4c4d;
const KEEP_SNAPSHOTS = 3;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS lightmud_meta (
  world TEXT NOT NULL,
  key   TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (world, key)
);
CREATE TABLE IF NOT EXISTS lightmud_snapshots (
  id     BIGSERIAL PRIMARY KEY,
  world  TEXT NOT NULL,
  seq    BIGINT NOT NULL,
  time   BIGINT NOT NULL,
  reason TEXT NOT NULL,
  state  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS lightmud_snapshots_world ON lightmud_snapshots (world, id);
CREATE TABLE IF NOT EXISTS lightmud_events (
  world   TEXT NOT NULL,
  seq     BIGINT NOT NULL,
  time    BIGINT NOT NULL,
  actor   TEXT NOT NULL,
  kind    TEXT NOT NULL,
  input   TEXT NOT NULL,
  ok      BOOLEAN NOT NULL,
  text    TEXT NOT NULL,
  events  TEXT NOT NULL,
  account TEXT,
  cause   TEXT,
  PRIMARY KEY (world, seq)
);
CREATE TABLE IF NOT EXISTS lightmud_world_owners (
  world TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  since BIGINT NOT NULL
);
`;

/**
 * The join and condition that find the backend holding a world's advisory lock, for the world given as the SQL
 * expression `world` (a parameter, or a column); LOCK_CLASS is parameter `classParam`.
 */
export const lockHolderSql = (world: string, classParam: string) =>
  `pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.granted AND l.classid = ${classParam} AND l.objid = hashtext(${world})::oid AND l.objsubid = 2`;

/** Another server holds the world's lock. */
export class WorldLockedError extends Error {
  readonly code = 'LIGHTMUD_WORLD_LOCKED';
  constructor(readonly world: string, readonly holder: string) {
    super(`the world "${world}" in PostgreSQL is being written by another lightmud (${holder}); only one server may write a world`);
    this.name = 'WorldLockedError';
  }
}

/** The store's connection (and with it the world's lock) is gone: nothing more is written through it. */
export class StoreLostError extends Error {
  readonly code = 'LIGHTMUD_STORE_LOST';
  constructor(readonly world: string, cause: string) {
    super(`lost the PostgreSQL connection that holds the world "${world}" (${cause}); this store writes no more`);
    this.name = 'StoreLostError';
  }
}

/**
 * SQLSTATEs that mean "cannot write now" while the connection (and the lock) stays: the game serves
 * reads and refuses actions, and tries again. Class 53 (insufficient resources: disk full, out of
 * memory), 25006 (read-only transaction), 58030 (I/O error), 57014 (statement cancelled or timed out).
 */
const STORAGE_STATES = /^(53...|25006|58030|57014)$/;

export interface PgStoreOptions {
  /** postgres://user:password@host:port/database (anything pg's connectionString takes). */
  url: string;
  /** Which world in the database (default "main"). */
  world?: string;
  /** When another server holds the world: false (default) refuses with WorldLockedError; true waits until it can take the lock. */
  wait?: boolean;
  /** Called once when the store starts waiting, with who holds the lock. */
  onWait?: (holder: string) => void;
  /**
   * How long a waiting store waits between tries of the lock (default 250 ms); a function is asked before
   * each wait (a shard that serves more worlds waits longer, so a freed world goes to the least loaded).
   */
  pollMs?: number | (() => number);
  /** Who writes the world once the lock is taken, recorded in lightmud_world_owners (default: this connection's application name). */
  owner?: string;
  /** Give up waiting (for tests and shutdown). */
  signal?: AbortSignal;
}

interface Mirror {
  snapshot: { id: number; seq: number; time: number; reason: string; state: string } | null;
  /** Commands committed after the snapshot, oldest first. */
  tail: LoggedCommand[];
  lastSeq: number;
  meta: Map<string, string>;
}

/** The address without its password, for messages. */
const redact = (url: string) => url.replace(/^(postgres(?:ql)?:\/\/[^:@/]*):[^@/]*@/i, '$1:***@');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** PostgreSQL text cannot hold NUL. */
const pgText = (s: string) => (s.includes('\u0000') ? s.replace(/\u0000/g, '\ufffd') : s);

export class PgStore implements GameStore {
  readonly kind = 'postgres' as const;
  readonly sync = false;
  private lost: StoreLostError | null = null;
  private closed = false;
  private writing = false;

  private constructor(readonly client: pg.Client, readonly world: string, private mirror: Mirror, readonly url: string) {}

  get name(): string {
    return `PostgreSQL world "${this.world}"`;
  }

  get open(): boolean {
    return !this.closed && !this.lost;
  }

  /** Connect, take the world's lock (or refuse, or wait for it), make the tables, and load what the host reads back. */
  static async open(opts: PgStoreOptions): Promise<PgStore> {
    const world = opts.world ?? DEFAULT_PG_WORLD;
    const appName = `lightmud pid ${process.pid} world ${world}`.slice(0, 63);
    const client = new pg.Client({ connectionString: opts.url, application_name: appName, keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
    let store: PgStore | null = null;
    let early: Error | null = null;
    // A connection that dies emits 'error' (and would otherwise crash the process): the store is fenced from then on.
    client.on('error', (err) => {
      if (store) store.markLost(err.message);
      else early = err;
    });
    client.on('end', () => store?.markLost('the connection ended'));
    try {
      await client.connect();
    } catch (err) {
      throw new Error(`cannot connect to PostgreSQL at ${redact(opts.url)}: ${(err as Error).message}`);
    }
    try {
      await client.query('SET synchronous_commit = on');
      let waiting = false;
      for (;;) {
        if (early) throw early;
        const r = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [LOCK_CLASS, world]);
        if (r.rows[0]!.ok) break;
        const holder = await PgStore.holder(client, world);
        if (!opts.wait) throw new WorldLockedError(world, holder);
        if (!waiting) {
          waiting = true;
          opts.onWait?.(holder);
        }
        if (opts.signal?.aborted) throw new WorldLockedError(world, holder);
        await sleep(typeof opts.pollMs === 'function' ? opts.pollMs() : opts.pollMs ?? 250);
      }
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1, 0)', [LOCK_CLASS + 1]);
      await client.query(SCHEMA);
      // Who writes the world now, for people and tools (lightmud shard --list); the lock, not this row, fences.
      await client.query(
        `INSERT INTO lightmud_world_owners (world, owner, since) VALUES ($1, $2, $3)
         ON CONFLICT (world) DO UPDATE SET owner = EXCLUDED.owner, since = EXCLUDED.since`,
        [world, opts.owner ?? appName, Date.now()],
      );
      await client.query('COMMIT');
      const mirror = await PgStore.load(client, world);
      store = new PgStore(client, world, mirror, opts.url);
      return store;
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
  }

  /** Who holds the world's lock: the backend's pid, address and application name, as pg_stat_activity says. */
  private static async holder(client: pg.Client, world: string): Promise<string> {
    const r = await client.query<{ pid: number; app: string | null; addr: string | null; since: Date | null }>(
      `SELECT a.pid, a.application_name AS app, a.client_addr::text AS addr, a.backend_start AS since
         FROM ${lockHolderSql('$2', '$1')}`,
      [LOCK_CLASS, world],
    ).catch(() => ({ rows: [] as { pid: number; app: string | null; addr: string | null; since: Date | null }[] }));
    const h = r.rows[0];
    if (!h) return 'a session that has just let go, or one this user cannot see';
    return `PostgreSQL backend ${h.pid}${h.app ? `, "${h.app}"` : ''}${h.addr ? ` from ${h.addr}` : ''}${h.since ? `, connected ${h.since.toISOString()}` : ''}`;
  }

  private static async load(client: pg.Client, world: string): Promise<Mirror> {
    const snap = await client.query<{ id: string; seq: string; time: string; reason: string; state: string }>(
      'SELECT id, seq, time, reason, state FROM lightmud_snapshots WHERE world = $1 ORDER BY id DESC LIMIT 1', [world]);
    const s = snap.rows[0];
    const snapshot = s ? { id: Number(s.id), seq: Number(s.seq), time: Number(s.time), reason: s.reason, state: s.state } : null;
    const tail = await client.query<{ seq: string; time: string; actor: string; kind: 'command' | 'admin'; input: string; ok: boolean; text: string; account: string | null; cause: string | null }>(
      'SELECT seq, time, actor, kind, input, ok, text, account, cause FROM lightmud_events WHERE world = $1 AND seq > $2 ORDER BY seq', [world, snapshot?.seq ?? 0]);
    const last = await client.query<{ seq: string }>('SELECT COALESCE(MAX(seq), 0) AS seq FROM lightmud_events WHERE world = $1', [world]);
    const meta = await client.query<{ key: string; value: string }>('SELECT key, value FROM lightmud_meta WHERE world = $1', [world]);
    return {
      snapshot,
      tail: tail.rows.map((r) => ({ ...r, seq: Number(r.seq), time: Number(r.time) })),
      lastSeq: Number(last.rows[0]!.seq),
      meta: new Map(meta.rows.map((r) => [r.key, r.value])),
    };
  }

  private markLost(why: string): void {
    if (!this.closed && !this.lost) this.lost = new StoreLostError(this.world, why);
  }

  lastSeq(): number {
    return this.mirror.lastSeq;
  }

  latestSnapshot(): Snapshot | null {
    const s = this.mirror.snapshot;
    return s ? { id: s.id, seq: s.seq, time: s.time, reason: s.reason, state: JSON.parse(s.state) as WorldState } : null;
  }

  *commandsAfter(seq: number): Generator<LoggedCommand> {
    for (const c of this.mirror.tail) if (c.seq > seq) yield c;
  }

  getMeta(key: string): string | undefined {
    return this.mirror.meta.get(key);
  }

  isStorageError(err: unknown): err is Error & { code: string } {
    const code = (err as { code?: unknown } | null)?.code;
    return err instanceof Error && typeof code === 'string' && code.startsWith('PG_');
  }

  async write(w: WorldWrite): Promise<number[]> {
    if (this.lost) throw this.lost;
    if (this.closed) throw new StoreLostError(this.world, 'the store is closed');
    if (this.writing) throw new Error('PgStore.write: a write is already in flight (the game host writes one group at a time)');
    const events = w.events ?? [];
    const first = this.mirror.lastSeq + 1;
    const seqs = events.map((_, i) => first + i);
    const snapSeq = seqs.length ? seqs[seqs.length - 1]! : this.mirror.lastSeq;
    const time = Date.now();
    // Serialised before anything is sent: a state that cannot be written fails the write with nothing written.
    const state = w.snapshot ? (typeof w.snapshot.state === 'string' ? w.snapshot.state : JSON.stringify(w.snapshot.state)) : null;
    const meta = Object.entries(w.meta ?? {});
    const c = this.client;
    let snapId = 0;
    let inTransaction = false;
    this.writing = true;
    try {
      const insertEvents = () => c.query(
        `INSERT INTO lightmud_events (world, seq, time, actor, kind, input, ok, text, events, account, cause)
         SELECT $1, * FROM unnest($2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::boolean[], $8::text[], $9::text[], $10::text[], $11::text[])`,
        [this.world, seqs, events.map((e) => e.time), events.map((e) => pgText(e.actor)), events.map((e) => e.kind), events.map((e) => pgText(e.input)), events.map((e) => e.ok),
          events.map((e) => pgText(e.text)), events.map((e) => JSON.stringify(e.events)), events.map((e) => (e.account === null ? null : pgText(e.account))), events.map((e) => (e.cause == null ? null : pgText(e.cause)))],
      );
      if (!state && !meta.length) {
        // The common case, a group of commands: one statement, one round trip, atomic by itself.
        if (events.length) await insertEvents();
      } else {
        await c.query('BEGIN');
        inTransaction = true;
        if (events.length) await insertEvents();
        if (state !== null) {
          const r = await c.query<{ id: string }>('INSERT INTO lightmud_snapshots (world, seq, time, reason, state) VALUES ($1, $2, $3, $4, $5) RETURNING id', [this.world, snapSeq, time, w.snapshot!.reason, state]);
          snapId = Number(r.rows[0]!.id);
          await c.query(`DELETE FROM lightmud_snapshots WHERE world = $1 AND id NOT IN (SELECT id FROM lightmud_snapshots WHERE world = $1 ORDER BY id DESC LIMIT ${KEEP_SNAPSHOTS})`, [this.world]);
        }
        for (const [k, v] of meta) {
          await c.query('INSERT INTO lightmud_meta (world, key, value) VALUES ($1, $2, $3) ON CONFLICT (world, key) DO UPDATE SET value = excluded.value', [this.world, k, pgText(v)]);
        }
        await c.query('COMMIT');
        inTransaction = false;
      }
    } catch (err) {
      if (inTransaction && !this.lost) await c.query('ROLLBACK').catch(() => {});
      throw this.classify(err);
    } finally {
      this.writing = false;
    }
    // Committed: what the host reads back follows.
    const m = this.mirror;
    events.forEach((e, i) => m.tail.push({ seq: seqs[i]!, time: e.time, actor: e.actor, kind: e.kind, input: e.input, ok: e.ok, text: e.text, account: e.account, cause: e.cause ?? null }));
    m.lastSeq = snapSeq;
    if (state !== null) {
      m.snapshot = { id: snapId, seq: snapSeq, time, reason: w.snapshot!.reason, state };
      m.tail = m.tail.filter((t) => t.seq > snapSeq);
    }
    for (const [k, v] of meta) m.meta.set(k, v);
    return seqs;
  }

  /** A storage fault (code PG_<SQLSTATE>) the host can wait out, or the connection lost (StoreLostError), or a bug (as is). */
  private classify(err: unknown): Error {
    const e = err as Error & { code?: string };
    if (this.lost) return this.lost;
    if (typeof e.code === 'string' && STORAGE_STATES.test(e.code)) {
      return Object.assign(new Error(e.message), { code: `PG_${e.code}` });
    }
    // No SQLSTATE (a dead socket), or a connection-level state (08: connection exception, 57P: shut down or terminated).
    if (typeof e.code !== 'string' || /^(08|57P)/.test(e.code) || /ECONN|EPIPE|terminated|not queryable/i.test(`${e.code} ${e.message}`)) {
      this.markLost(e.message);
      return this.lost ?? e;
    }
    return e;
  }

  /** Close the connection: the world's lock goes with it. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.client.end().catch(() => {});
  }
}
