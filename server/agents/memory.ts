/**
 * A model character's memory: its recent events (what it heard, saw done and did), used as the
 * history lines of its context, and kept in SQLite so it survives a restart.
 *
 * Table `agent_memory` (created here, in the server's database file or any other): one row per
 * event. Writes are queued and committed together (one transaction per flush, at most every
 * `flushMs`), so 200 talking characters cost the network thread a few small transactions a second.
 */
import { openDb, type Db } from '../store/db.js';
import type { HistoryEntry } from './context.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS agent_memory (
  id        INTEGER PRIMARY KEY,
  character TEXT NOT NULL,          -- whose memory
  time      INTEGER NOT NULL,       -- ms since the epoch
  speaker   TEXT NOT NULL,          -- self or partner
  who       TEXT,                   -- the other character's id, for partner lines
  kind      TEXT NOT NULL,          -- say, act or emote
  text      TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS agent_memory_character ON agent_memory (character, id);
`;

/** Entries written in one transaction by the timer's flush. */
const SLICE = 200;

export interface MemoryEntry extends HistoryEntry {
  /** The other character, for partner lines. */
  who?: string;
  time: number;
}

export interface MemoryOptions {
  /** Entries kept per character (in memory and on disk). Default 40. */
  keep?: number;
  flushMs?: number;
}

export class AgentMemory {
  private recent = new Map<string, MemoryEntry[]>();
  private queue: { character: string; e: MemoryEntry }[] = [];
  private timer: NodeJS.Timeout | null = null;
  private insert;
  private load;
  private prune;
  private clearStmt;
  readonly keep: number;
  private readonly flushMs: number;
  private closed = false;

  private constructor(readonly db: Db | null, private owned: boolean, opts: MemoryOptions) {
    this.keep = opts.keep ?? 40;
    this.flushMs = opts.flushMs ?? 250;
    if (db) {
      db.exec(SCHEMA);
      this.insert = db.prepare('INSERT INTO agent_memory (character, time, speaker, who, kind, text) VALUES (?, ?, ?, ?, ?, ?)');
      this.load = db.prepare('SELECT time, speaker, who, kind, text FROM agent_memory WHERE character = ? ORDER BY id DESC LIMIT ?');
      // Rows older than the keep-th newest (none when there are fewer): the same rows as "not among
      // the newest keep", found by one index probe instead of a list tested row by row (5x faster).
      this.prune = db.prepare('DELETE FROM agent_memory WHERE character = ? AND id < (SELECT id FROM agent_memory WHERE character = ? ORDER BY id DESC LIMIT 1 OFFSET ?)');
      this.clearStmt = db.prepare('DELETE FROM agent_memory WHERE character = ?');
    }
  }

  /** Memory kept in the SQLite file `path` (its own connection, synchronous = NORMAL). */
  static open(path: string, opts: MemoryOptions = {}): AgentMemory {
    return new AgentMemory(openDb(path, { sync: 'normal' }), true, opts);
  }

  /** Memory that is not persisted (tests, episodes). */
  static inMemory(opts: MemoryOptions = {}): AgentMemory {
    return new AgentMemory(null, false, opts);
  }

  /** The character's recent entries, oldest first (loaded from the database the first time). */
  entries(character: string): MemoryEntry[] {
    let list = this.recent.get(character);
    if (!list) {
      list = [];
      if (this.load) {
        const rows = this.load.all(character, this.keep) as { time: number; speaker: string; who: string | null; kind: string; text: string }[];
        for (const r of rows.reverse()) {
          const e: MemoryEntry = { time: r.time, speaker: r.speaker === 'self' ? 'self' : 'partner', kind: r.kind as MemoryEntry['kind'], text: r.text };
          if (r.who) e.who = r.who;
          list.push(e);
        }
      }
      this.recent.set(character, list);
    }
    return list;
  }

  history(character: string): HistoryEntry[] {
    return this.entries(character).map(({ speaker, kind, text }) => ({ speaker, kind, text }));
  }

  add(character: string, entry: Omit<MemoryEntry, 'time'> & { time?: number }): void {
    const e: MemoryEntry = { ...entry, time: entry.time ?? Date.now() };
    const list = this.entries(character);
    list.push(e);
    if (list.length > this.keep) list.splice(0, list.length - this.keep);
    if (!this.db || this.closed) return;
    this.queue.push({ character, e });
    if (!this.timer) {
      this.timer = setTimeout(() => this.flushSlice(), this.flushMs);
      this.timer.unref();
    }
  }

  /** Forget a character's memory (in memory and on disk). */
  clear(character: string): void {
    this.recent.set(character, []);
    this.queue = this.queue.filter((q) => q.character !== character);
    this.clearStmt?.run(character);
  }

  /** Write every queued entry now (one transaction) and trim each character's rows to `keep`. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.write(this.queue.splice(0));
  }

  /**
   * The timer's flush: at most SLICE entries a transaction, the rest after the event loop has run
   * (a room of listeners queues hundreds of entries a flush; one transaction of them all held the
   * thread for 10-20 ms, and a reply to a player waited behind it).
   */
  private flushSlice(): void {
    this.timer = null;
    this.write(this.queue.splice(0, SLICE));
    if (this.queue.length && !this.closed) {
      this.timer = setTimeout(() => this.flushSlice(), 0);
      this.timer.unref();
    }
  }

  private write(batch: { character: string; e: MemoryEntry }[]): void {
    if (!batch.length || !this.db || !this.db.open) return;
    const touched = new Set<string>();
    this.db.transaction(() => {
      for (const { character, e } of batch) {
        this.insert!.run(character, e.time, e.speaker, e.who ?? null, e.kind, e.text);
        touched.add(character);
      }
      for (const c of touched) {
        if (this.keep > 0) this.prune!.run(c, c, this.keep - 1);
        else this.clearStmt!.run(c);
      }
    })();
  }

  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    if (this.owned && this.db?.open) this.db.close();
  }
}
