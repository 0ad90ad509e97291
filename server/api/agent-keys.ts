/**
 * Agent keys: what an outside program (an MCP client, a step-API loop) sends as
 * `Authorization: Bearer KEY` to act as a named agent. `lightmud agent-key create NAME` prints the
 * key once; the database keeps only its SHA-256. A key is 190 random bits (not a password a person
 * chose), so a fast hash is enough: guessing a key is as hard as guessing the hash's preimage, and
 * looking one up costs microseconds on every request, not scrypt's tens of milliseconds.
 * A revoked key stays listed (its name is kept in the event log's provenance) but opens nothing.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../store/db.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS agent_keys (
  id           INTEGER PRIMARY KEY,
  name         TEXT NOT NULL UNIQUE COLLATE NOCASE,
  hash         TEXT NOT NULL UNIQUE,     -- hex SHA-256 of the key
  prefix       TEXT NOT NULL,            -- the key's first characters, to tell keys apart in a list
  role         TEXT NOT NULL DEFAULT 'player' CHECK (role IN ('player', 'gm')),  -- gm: may also narrate, create and move (game-master tools)
  created_at   INTEGER NOT NULL,
  last_used_at INTEGER,
  revoked_at   INTEGER
);
`;

const NAME_RE = /^[A-Za-z][A-Za-z0-9_.-]{0,39}$/;
export const KEY_PREFIX = 'lmk_';

/** player: plays a character; gm: a game master, who also gets the gm_* tools. */
export type AgentRole = 'player' | 'gm';

export interface AgentKeyInfo {
  name: string;
  role: AgentRole;
  prefix: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

export class AgentKeyError extends Error {}

const hashKey = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

export class AgentKeyStore {
  /** Last-used times are written at most once a minute per key. */
  private touched = new Map<string, number>();

  constructor(readonly db: Db) {
    db.exec(SCHEMA);
  }

  /** Make a key for `name` (replacing a revoked key of that name); returns the key, shown only now. */
  create(name: string, role: AgentRole = 'player'): { name: string; key: string } {
    if (!NAME_RE.test(name)) throw new AgentKeyError('An agent name is 1 to 40 letters, digits, ".", "-" or "_", starting with a letter.');
    const key = KEY_PREFIX + randomBytes(24).toString('base64url');
    const row = this.db.prepare('SELECT revoked_at FROM agent_keys WHERE name = ?').get(name) as { revoked_at: number | null } | undefined;
    if (row && row.revoked_at === null) throw new AgentKeyError(`There is already a key named "${name}"; revoke it first, or choose another name.`);
    const now = Date.now();
    if (row) {
      this.db.prepare('UPDATE agent_keys SET hash = ?, prefix = ?, role = ?, created_at = ?, last_used_at = NULL, revoked_at = NULL WHERE name = ?').run(hashKey(key), key.slice(0, 8), role, now, name);
    } else {
      this.db.prepare('INSERT INTO agent_keys (name, hash, prefix, role, created_at) VALUES (?, ?, ?, ?, ?)').run(name, hashKey(key), key.slice(0, 8), role, now);
    }
    return { name, key };
  }

  list(): AgentKeyInfo[] {
    const rows = this.db.prepare('SELECT name, prefix, role, created_at, last_used_at, revoked_at FROM agent_keys ORDER BY name').all() as
      { name: string; prefix: string; role: AgentRole; created_at: number; last_used_at: number | null; revoked_at: number | null }[];
    return rows.map((r) => ({ name: r.name, role: r.role, prefix: r.prefix, createdAt: r.created_at, lastUsedAt: r.last_used_at, revokedAt: r.revoked_at }));
  }

  /** Returns whether a live key of that name was revoked. */
  revoke(name: string): boolean {
    return this.db.prepare('UPDATE agent_keys SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL').run(Date.now(), name).changes > 0;
  }

  /** The agent's name and role for a live key, else null. */
  verify(key: string): { name: string; role: AgentRole } | null {
    if (!key.startsWith(KEY_PREFIX) || key.length > 100) return null;
    const row = this.db.prepare('SELECT name, role FROM agent_keys WHERE hash = ? AND revoked_at IS NULL').get(hashKey(key)) as { name: string; role: AgentRole } | undefined;
    if (!row) return null;
    const now = Date.now();
    if (now - (this.touched.get(row.name) ?? 0) > 60_000) {
      this.touched.set(row.name, now);
      this.db.prepare('UPDATE agent_keys SET last_used_at = ? WHERE name = ?').run(now, row.name);
    }
    return row;
  }
}
