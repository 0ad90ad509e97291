/**
 * What the game host needs from durable storage (issue 15, step 1): the world's committed actions
 * (the event log), its snapshots, and two notes about the world (its source file and title). The
 * host reads them back at start-up (and after a failed write, to go back to what is saved), and
 * writes each group of commands as one all-or-nothing write; the periodic snapshot is a write of
 * its own after the group it follows (admin operations write their event and snapshot together).
 *
 * Two implementations:
 * - SqliteStore (here): the SQLite file, the default. Writes are synchronous and durable when
 *   write() returns; the worker's group commit is exactly what it was before this interface.
 * - PgStore (pg-store.ts): PostgreSQL, `--db postgres://...`. write() returns a promise that
 *   resolves once PostgreSQL has committed; the host acknowledges nothing before. Reads are served
 *   from what the store loaded at open plus what it has committed since (it is the world's only
 *   writer, fenced by an advisory lock), so they stay synchronous.
 *
 * Accounts, tokens, agent keys, agent memory and crowd tasks are not behind this interface yet:
 * they stay in the SQLite file either way.
 */
import type { WorldState } from '../engine/index.js';
import { getMeta, isPostgresUrl, isStorageError, setMeta, type Db } from './db.js';
import { WorldStore, type LoggedCommand, type NewEvent, type Snapshot } from './world-store.js';
import type { WalCheckpointer } from './wal-checkpointer.js';

/** One all-or-nothing write: events (numbered in order), then a snapshot at the last event (or the last seq), then notes. */
export interface WorldWrite {
  events?: NewEvent[];
  /** The world's state, or its JSON text (World.serialize(): no copy of a large world). */
  snapshot?: { state: WorldState | string; reason: string };
  meta?: Record<string, string>;
}

export interface GameStore {
  readonly kind: 'sqlite' | 'postgres';
  /** What to call it in messages: the SQLite file, or the PostgreSQL world. */
  readonly name: string;
  /** True when write() and close() finish before they return (SQLite); false when they return promises (PostgreSQL). */
  readonly sync: boolean;
  lastSeq(): number;
  latestSnapshot(): Snapshot | null;
  /** Commands logged after `seq`, oldest first. */
  commandsAfter(seq: number): Iterable<LoggedCommand>;
  getMeta(key: string): string | undefined;
  /** Durable when it returns (sync) or resolves; returns the events' sequence numbers. Throws (or rejects) with nothing written. */
  write(w: WorldWrite): number[] | Promise<number[]>;
  /** An error that means the store cannot be written now (disk full, read-only...), not a bug: the game serves reads and refuses actions. */
  isStorageError(err: unknown): err is Error & { code: string };
  close(): void | Promise<void>;
  /** Whether the store is open (not closed, not lost). */
  readonly open: boolean;
}

/** The SQLite file as a GameStore: the same statements and transactions as before the interface. */
export class SqliteStore implements GameStore {
  readonly kind = 'sqlite' as const;
  readonly sync = true;
  readonly log: WorldStore;

  constructor(readonly db: Db, private readonly checkpointer: WalCheckpointer | null = null) {
    this.log = new WorldStore(db);
  }

  get name(): string {
    return this.db.name;
  }

  get open(): boolean {
    return this.db.open;
  }

  lastSeq(): number {
    return this.log.lastSeq();
  }

  latestSnapshot(): Snapshot | null {
    return this.log.latestSnapshot();
  }

  commandsAfter(seq: number): Iterable<LoggedCommand> {
    return this.log.commandsAfter(seq);
  }

  getMeta(key: string): string | undefined {
    return getMeta(this.db, key);
  }

  write(w: WorldWrite): number[] {
    const { events, snapshot, meta } = w;
    // A lone note or a lone event needs no explicit transaction (one statement is one).
    if (!events?.length && !snapshot && meta) {
      for (const [k, v] of Object.entries(meta)) setMeta(this.db, k, v);
      return [];
    }
    return this.log.transaction(() => {
      const seqs: number[] = [];
      if (events) for (const e of events) seqs.push(this.log.append(e));
      if (snapshot) this.log.snapshot(seqs.length ? seqs[seqs.length - 1]! : this.log.lastSeq(), snapshot.state, snapshot.reason);
      if (meta) for (const [k, v] of Object.entries(meta)) setMeta(this.db, k, v);
      return seqs;
    });
  }

  isStorageError(err: unknown): err is Error & { code: string } {
    return isStorageError(err);
  }

  close(): void {
    this.checkpointer?.close();
    if (this.db.open) this.db.close();
  }
}

/** The world of a PostgreSQL database a server writes when --world-id is not given. */
export const DEFAULT_PG_WORLD = 'main';

export { isPostgresUrl };
