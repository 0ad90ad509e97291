/**
 * The SQLite file: world snapshots, the append-only event log, accounts and session tokens, in one
 * database (better-sqlite3, WAL). Opened by the game host (world tables) and by the network side
 * (accounts), each with its own connection; WAL lets them read while the other writes.
 *
 * Durability: every command is committed before it is acknowledged. `synchronous = FULL` (the
 * default here) fsyncs the WAL on each commit, so an acknowledged action survives a power cut as
 * well as a crash; `NORMAL` skips that fsync (the write still reaches the OS before the commit
 * returns, so it survives a kill -9 of the server but not of the machine). See server/net/README.md
 * for the measured cost of each.
 */
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export type Db = Database.Database;
export type SyncMode = 'full' | 'normal';

export const DEFAULT_DB = './data/lightmud.db';

/**
 * 1: the first schema. 2: session tokens stored as their SHA-256 (hex), never in the clear.
 * 3: events.cause, who caused each logged command (provenance).
 */
const SCHEMA_VERSION = 3;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
-- Whole-world snapshots; the newest plus the events after it is the current state.
CREATE TABLE IF NOT EXISTS snapshots (
  id     INTEGER PRIMARY KEY,
  seq    INTEGER NOT NULL,         -- last event included in this state
  time   INTEGER NOT NULL,         -- ms since the epoch
  reason TEXT NOT NULL,            -- seed, periodic, shutdown, reload, admin
  state  TEXT NOT NULL             -- WorldState JSON: text, or (since 2026-11-26) a BLOB of it deflated (zlib)
);
-- Every executed command, in order. Never updated or deleted.
CREATE TABLE IF NOT EXISTS events (
  seq     INTEGER PRIMARY KEY,
  time    INTEGER NOT NULL,
  actor   TEXT NOT NULL,           -- character id
  kind    TEXT NOT NULL,           -- command (replayed on restart) or admin (followed by a snapshot)
  input   TEXT NOT NULL,           -- what was typed
  ok      INTEGER NOT NULL,
  text    TEXT NOT NULL,           -- what the actor perceived
  events  TEXT NOT NULL,           -- JSON GameEvent[]: every viewer's perception
  account TEXT,                    -- account name, null for guests and programs
  cause   TEXT                     -- who caused it: human, model, script, agent:NAME (an outside agent, its key's name, or agent:guest); null: not recorded
);
CREATE TABLE IF NOT EXISTS accounts (
  id            INTEGER PRIMARY KEY,
  name          TEXT NOT NULL UNIQUE COLLATE NOCASE,
  password      TEXT NOT NULL,     -- scrypt$N$r$p$salt$hash (base64)
  role          TEXT NOT NULL DEFAULT 'player' CHECK (role IN ('player', 'admin')),
  character     TEXT,              -- the character last played
  created_at    INTEGER NOT NULL,
  last_login_at INTEGER
);
CREATE TABLE IF NOT EXISTS tokens (
  token      TEXT PRIMARY KEY,     -- SHA-256 of the token (hex); the token itself is only ever sent to its client
  account_id INTEGER REFERENCES accounts(id) ON DELETE CASCADE,
  character  TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS tokens_expiry ON tokens (expires_at);
`;

/** `--db` names PostgreSQL (server/store/pg-store.ts), not a file. */
export const isPostgresUrl = (s: string | undefined): s is string => !!s && /^postgres(ql)?:\/\//i.test(s);

export function openDb(path: string, opts: { sync?: SyncMode; readonly?: boolean } = {}): Db {
  if (isPostgresUrl(path)) {
    // Never a file named after the address: the tools that take --db work on the SQLite file.
    throw new Error('--db names a PostgreSQL database: this works on the SQLite file (with a world in PostgreSQL, the file given to serve as --local-db, default ./data/lightmud.db); the world in PostgreSQL is read only by lightmud serve for now');
  }
  const file = path === ':memory:' ? path : resolve(path);
  if (file !== ':memory:' && !opts.readonly) mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file, opts.readonly ? { readonly: true, fileMustExist: true } : {});
  db.pragma('busy_timeout = 5000');
  if (!opts.readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${opts.sync === 'normal' ? 'NORMAL' : 'FULL'}`);
    db.pragma('foreign_keys = ON');
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      db.close();
      throw new Error(`${file} was written by a newer lightmud (schema ${version}; this one knows ${SCHEMA_VERSION})`);
    }
    db.exec(SCHEMA);
    // events.cause (provenance): older files gain the column, their rows keep null.
    const cols = db.prepare('PRAGMA table_info(events)').all() as { name: string }[];
    if (!cols.some((c) => c.name === 'cause')) db.exec('ALTER TABLE events ADD COLUMN cause TEXT');
    if (version < SCHEMA_VERSION) {
      db.transaction(() => {
        // Re-read inside the write transaction: another connection may have migrated meanwhile.
        const now = db.pragma('user_version', { simple: true }) as number;
        if (now === 1) {
          // Tokens were kept in the clear: hash them in place (they keep working).
          const rows = db.prepare('SELECT token FROM tokens').all() as { token: string }[];
          const update = db.prepare('UPDATE tokens SET token = ? WHERE token = ?');
          for (const r of rows) update.run(hashToken(r.token), r.token);
        }
        if (now < SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
      }).immediate();
    }
  }
  return db;
}

/** How a session token is stored: its SHA-256, hex. A token has 126 random bits, so no salt or slow hash is needed. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** SQLite errors that mean the database cannot be written now (disk full, read-only, I/O error, locked), not a bug. */
export function isStorageError(err: unknown): err is Error & { code: string } {
  const code = (err as { code?: unknown } | null)?.code;
  return err instanceof Error && typeof code === 'string' && /^SQLITE_(FULL|READONLY|IOERR|CANTOPEN|BUSY|LOCKED|PROTOCOL|NOLFS|PERM|AUTH)/.test(code);
}

/** What a storage fault means, for players and operators. */
export function describeStorageFault(f: { code: string }): string {
  // PostgreSQL (server/store/pg-store.ts): PG_ and the SQLSTATE.
  if (f.code === 'PG_53100') return 'its database\'s disk is full';
  if (f.code === 'PG_25006') return 'its database is read-only';
  if (f.code.startsWith('PG_')) return `its database cannot be written (PostgreSQL ${f.code.slice(3)})`;
  if (f.code === 'SQLITE_FULL') return 'its disk is full';
  if (f.code.startsWith('SQLITE_READONLY') || f.code === 'SQLITE_PERM' || f.code === 'SQLITE_CANTOPEN') return 'its database is read-only';
  if (f.code.startsWith('SQLITE_BUSY') || f.code.startsWith('SQLITE_LOCKED')) return 'its database is locked by another program';
  return `its disk fails (${f.code})`;
}

export function getMeta(db: Db, key: string): string | undefined {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
  return row?.value;
}

export function setMeta(db: Db, key: string, value: string): void {
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
}
