/**
 * Who drives each character, as an admin last set it with `@drive` (AgentManager.setPolicy), kept
 * in SQLite so that it survives a restart: on start, a saved choice wins over the world file's
 * `policy` (and `AgentsOptions.drive` over both).
 *
 * Table `agent_drive` (created here, in the server's database file): one row per character.
 */
import type { Db } from '../store/db.js';

export type DriveKind = 'model' | 'scripted' | 'idle';

export interface SavedDrive {
  kind: DriveKind;
  /** The script file, for a scripted character started with one. */
  script?: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS agent_drive (
  character TEXT PRIMARY KEY,
  kind      TEXT NOT NULL,          -- model, scripted or idle
  script    TEXT,                   -- the script file, when given
  time      INTEGER NOT NULL        -- ms since the epoch
);
`;

const KINDS = new Set<string>(['model', 'scripted', 'idle']);

export class DriveStore {
  private readonly put;
  private readonly list;

  constructor(db: Db) {
    db.exec(SCHEMA);
    this.put = db.prepare('INSERT INTO agent_drive (character, kind, script, time) VALUES (?, ?, ?, ?) ON CONFLICT (character) DO UPDATE SET kind = excluded.kind, script = excluded.script, time = excluded.time');
    this.list = db.prepare('SELECT character, kind, script FROM agent_drive');
  }

  save(character: string, kind: DriveKind, script?: string): void {
    this.put.run(character, kind, script ?? null, Date.now());
  }

  /** Every saved choice (rows with a kind this version does not know are skipped). */
  all(): Map<string, SavedDrive> {
    const out = new Map<string, SavedDrive>();
    for (const r of this.list.all() as { character: string; kind: string; script: string | null }[]) {
      if (KINDS.has(r.kind)) out.set(r.character, { kind: r.kind as DriveKind, ...(r.script ? { script: r.script } : {}) });
    }
    return out;
  }
}
