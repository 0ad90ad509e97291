/** Plain data exchanged between the game host (in its worker thread) and the network side. */
import type { SyncMode } from '../store/db.js';
import type { CharacterState, EventSummary } from '../net/protocol.js';
import type { ViewOptions as AgentViewOptions } from '../agents/view.js';

export interface HostConfig {
  /** SQLite file: the world's store unless `pg` is set (and the file for what stays on SQLite: agent memory, accounts...). */
  db: string;
  /**
   * Keep the world in PostgreSQL instead (PgStore): the connection string, which world of the database, and
   * whether to wait (stand by) while another server holds that world's lock rather than refuse at once.
   */
  pg?: { url: string; world: string; wait?: boolean };
  /** World file or directory given by the user; when absent, the saved world, else the bundled one. */
  world?: string;
  /** Discard the saved world state and start from the world file (accounts are kept). */
  fresh?: boolean;
  seed?: number;
  /** SQLite: checkpoint the write-ahead log on a thread of its own, not on the committing one (server/store/wal-checkpointer.ts). */
  checkpointThread?: boolean;
  sync?: SyncMode;
  /** Commands between whole-world snapshots (the log holds every command in between). */
  snapshotEvery?: number;
  /**
   * Largest database, in bytes (SQLite max_page_count on the game's connection; 0 or absent: none).
   * Writes beyond fail as on a full disk: a quota, and how the tests make a disk full.
   */
  maxDbBytes?: number;
  /** While the database cannot be written, how often a command that writes is tried for real (default 5000 ms). */
  storageRetryMs?: number;
}

/** The database cannot be written (disk full, read-only, I/O error): the game serves reads and refuses actions. */
export interface StorageFault {
  /** SQLite's code, e.g. SQLITE_FULL, SQLITE_READONLY, SQLITE_IOERR_WRITE; or PG_ and PostgreSQL's SQLSTATE, e.g. PG_53100 (disk full), PG_25006 (read-only). */
  code: string;
  message: string;
  /** ms since the epoch. */
  since: number;
}

export interface OpenInfo {
  title: string;
  source: string;
  /** How the state was obtained. */
  restored: 'seeded' | 'snapshot';
  /** Commands replayed from the log after the snapshot, and how many of them gave another reply than was logged. */
  replayed: number;
  diverged: number;
  seq: number;
  counts: WorldCounts;
  /** The worker thread's id (a reload or a restart gives a new one). */
  thread?: number;
  /** Set when the database could not be written at start-up (the state was restored, but not saved). */
  storage?: StorageFault | null;
}

export interface WorldCounts {
  rooms: number;
  characters: number;
  objects: number;
}

/** One character's perception of an event caused by someone else. */
export interface Delivery {
  character: string;
  text: string;
  event: EventSummary;
}

export interface SubmitResult {
  /** Log sequence number of this command (committed before the result is returned). */
  seq: number;
  ok: boolean;
  text: string;
  failed?: string;
  action?: string;
  deliveries: Delivery[];
  /**
   * Fresh states of watched characters: the actor's (right after its command), and, on the last
   * command of a group committed together, those of everyone who perceived something in the group.
   */
  states: Record<string, CharacterState>;
  /** Whether the database can be written, as this command found it (null: it can). */
  storage?: StorageFault | null;
  /** Characters that died in this command (their nodes are gone): whoever drove them is released. */
  died?: string[];
}

export interface CharacterInfo {
  id: string;
  name: string;
  room: string;
  roomId: string;
  /** Who the world file says drives it (idle, human, model, scripted). */
  policy?: string;
  /** Its persona: who it is, in its own words. */
  persona?: string;
}

export interface WorldSummary {
  title: string;
  counts: WorldCounts;
  rooms: { id: string; name: string; category: string; exits: { label: string; to: string }[]; characters: number; objects: number }[];
}

/** Outcome of an admin operation: a reply for the admin plus what others perceived. */
export interface AdminResult {
  ok: boolean;
  text: string;
  seq?: number;
  deliveries: Delivery[];
  states: Record<string, CharacterState>;
  /** Characters that no longer exist (after a world reload). */
  removed?: string[];
  /** Characters whose surroundings changed completely (teleported, world reloaded): send them a fresh look. */
  relocated?: string[];
  /** Whether the database can be written, as this operation found it. */
  storage?: StorageFault | null;
}

export type AdminOp =
  | { op: 'teleport'; actor: string; who: string; to: string }
  | { op: 'create'; actor: string; spec: string }
  /** Room building (server/host/build.ts): @dig, @describe, @link, @unlink; `args` as typed after the command. */
  | { op: 'build'; actor: string; verb: 'dig' | 'describe' | 'link' | 'unlink'; args: string }
  | { op: 'reloadWorld'; actor: string }
  | { op: 'save'; actor: string }
  /** A game master's words: everyone in the actor's room perceives `text` as it is. */
  | { op: 'narrate'; actor: string; text: string };

// ---- worker messages -----------------------------------------------------------------------------

export type HostRequest =
  | { op: 'open'; config: HostConfig; watch: string[] }
  | { op: 'submit'; actor: string; text: string; account: string | null; /** Who caused it (provenance, logged with the command). */ cause?: string | null; /** Refuse (without executing) unless `text` is one of the actor's valid actions now. */ validOnly?: boolean }
  | { op: 'agentView'; actor: string; opts: AgentViewOptions }
  | { op: 'state'; actor: string }
  | { op: 'look'; actor: string }
  | { op: 'characters' }
  | { op: 'summary' }
  | { op: 'watch'; actor: string; on: boolean }
  | { op: 'admin'; admin: AdminOp; account: string | null; cause?: string | null }
  | { op: 'close' }
  /** Whether the world's store can still be written through (a shard asks it now and then): a store whose connection, and with it the world's lock, is gone ends the game service (exit 1). */
  | { op: 'health' }
  | { op: 'crash' };

export type WorkerMessage =
  | { type: 'loaded' }
  /** Something the network side should log (the worker has no logger): e.g. standing by for a world's lock. */
  | { type: 'log'; level: 'info' | 'warn' | 'error'; msg: string; data?: Record<string, unknown> }
  | { type: 'reply'; id: number; ok: true; result: unknown }
  /** The answers to a batch of commands, committed together: results[i] answers ids[i]. */
  | { type: 'replies'; ids: number[]; results: unknown[] }
  /** Fresh states of characters that perceived a change of the world in commands already answered. */
  | { type: 'states'; states: Record<string, CharacterState> }
  | { type: 'reply'; id: number; ok: false; error: string; stack?: string; fatal?: boolean; /** The error's code, when it has one (LIGHTMUD_WORLD_LOCKED, ...). */ code?: string };
