/**
 * Crowdsourcing records in the server's SQLite file (tables crowd_*): tasks, workers (only a salted
 * hash of the platform's worker id is kept), units (one worker's part in one episode, with Mephisto's
 * states), episodes and every turn with its provenance.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../store/db.js';
import type { GoldResult } from './gold.js';
import type { CrowdTask } from './task.js';
import type { UnitStatus } from './units.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS crowd_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS crowd_tasks (
  id         TEXT PRIMARY KEY,
  spec       TEXT NOT NULL,               -- CrowdTask JSON
  status     TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'paused', 'closed')),
  created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS crowd_episodes (
  id         TEXT PRIMARY KEY,
  task       TEXT NOT NULL REFERENCES crowd_tasks(id),
  room       TEXT NOT NULL,
  characters TEXT NOT NULL,               -- JSON ids, in turn order
  setup      TEXT NOT NULL,               -- JSON: setting, personas, objects at the start
  status     TEXT NOT NULL,               -- live, complete, ended
  end_reason TEXT,
  started_at INTEGER NOT NULL,
  ended_at   INTEGER
);
CREATE TABLE IF NOT EXISTS crowd_turns (
  episode    TEXT NOT NULL REFERENCES crowd_episodes(id),
  idx        INTEGER NOT NULL,
  speaker    TEXT NOT NULL,
  say        TEXT NOT NULL,
  action     TEXT,
  emote      TEXT,
  provenance TEXT NOT NULL,               -- JSON Provenance
  at         INTEGER NOT NULL,
  PRIMARY KEY (episode, idx)
);
CREATE TABLE IF NOT EXISTS crowd_units (
  id           TEXT PRIMARY KEY,
  task         TEXT NOT NULL REFERENCES crowd_tasks(id),
  episode      TEXT NOT NULL REFERENCES crowd_episodes(id),
  worker       TEXT NOT NULL,             -- pseudonym: salted SHA-256 of the platform id
  character    TEXT NOT NULL,
  partner      TEXT NOT NULL,             -- human, model, script
  status       TEXT NOT NULL,             -- UnitStatus
  code         TEXT,                      -- completion code
  rating       INTEGER,
  report       TEXT,
  feedback     TEXT,
  checks       TEXT NOT NULL DEFAULT '[]',-- JSON: refused lines and why
  review       TEXT,                      -- reviewer's feedback to the worker
  bonus        REAL,
  created_at   INTEGER NOT NULL,
  completed_at INTEGER,
  reviewed_at  INTEGER,
  gold         TEXT                       -- JSON GoldResult: a gold unit's check (null: an ordinary unit)
);
CREATE INDEX IF NOT EXISTS crowd_units_worker ON crowd_units (task, worker);
-- Workers blocked from a task ('*': every task) and the allow lists of tasks that have one (pseudonyms only).
CREATE TABLE IF NOT EXISTS crowd_worker_lists (
  task   TEXT NOT NULL,
  worker TEXT NOT NULL,
  kind   TEXT NOT NULL CHECK (kind IN ('block', 'allow')),
  reason TEXT,
  at     INTEGER NOT NULL,
  PRIMARY KEY (task, worker, kind)
);
-- Onboarding answers: one per worker and task.
CREATE TABLE IF NOT EXISTS crowd_onboarding (
  task   TEXT NOT NULL,
  worker TEXT NOT NULL,
  passed INTEGER NOT NULL,
  at     INTEGER NOT NULL,
  PRIMARY KEY (task, worker)
);
`;

export type Provenance =
  | { kind: 'human'; worker: string }
  | { kind: 'model'; model: string; version: string }
  | { kind: 'script'; script: string };

export interface TaskRow {
  id: string;
  task: CrowdTask;
  status: 'open' | 'paused' | 'closed';
  createdAt: number;
}

export interface EpisodeSetup {
  setting: { name: string; category: string; description: string };
  personas: { id: string; name: string; persona: string }[];
  objects: { room: string[]; carried: Record<string, string[]> };
}

export interface EpisodeRow {
  id: string;
  task: string;
  room: string;
  characters: string[];
  setup: EpisodeSetup;
  status: 'live' | 'complete' | 'ended';
  endReason: string | null;
  startedAt: number;
  endedAt: number | null;
}

export interface TurnRow {
  episode: string;
  idx: number;
  speaker: string;
  say: string;
  action?: string;
  emote?: string;
  provenance: Provenance;
  at: number;
}

export interface CheckRecord {
  text: string;
  problems: string[];
  at: number;
}

export interface UnitRow {
  id: string;
  task: string;
  episode: string;
  worker: string;
  character: string;
  partner: 'human' | 'model' | 'script';
  status: UnitStatus;
  code: string | null;
  rating: number | null;
  report: string | null;
  feedback: string | null;
  checks: CheckRecord[];
  review: string | null;
  bonus: number | null;
  createdAt: number;
  completedAt: number | null;
  reviewedAt: number | null;
  /** A gold unit's scene and result; null for an ordinary unit. */
  gold: GoldResult | null;
}

type Raw = Record<string, unknown>;

const toUnit = (r: Raw): UnitRow => ({
  id: r.id as string, task: r.task as string, episode: r.episode as string, worker: r.worker as string, character: r.character as string,
  partner: r.partner as UnitRow['partner'], status: r.status as UnitStatus, code: (r.code as string) ?? null, rating: (r.rating as number) ?? null,
  report: (r.report as string) ?? null, feedback: (r.feedback as string) ?? null, checks: JSON.parse(r.checks as string) as CheckRecord[],
  review: (r.review as string) ?? null, bonus: (r.bonus as number) ?? null, createdAt: r.created_at as number,
  completedAt: (r.completed_at as number) ?? null, reviewedAt: (r.reviewed_at as number) ?? null,
  gold: r.gold == null ? null : (JSON.parse(r.gold as string) as GoldResult),
});

const toEpisode = (r: Raw): EpisodeRow => ({
  id: r.id as string, task: r.task as string, room: r.room as string, characters: JSON.parse(r.characters as string) as string[],
  setup: JSON.parse(r.setup as string) as EpisodeSetup, status: r.status as EpisodeRow['status'], endReason: (r.end_reason as string) ?? null,
  startedAt: r.started_at as number, endedAt: (r.ended_at as number) ?? null,
});

const toTurn = (r: Raw): TurnRow => {
  const t: TurnRow = { episode: r.episode as string, idx: r.idx as number, speaker: r.speaker as string, say: r.say as string, provenance: JSON.parse(r.provenance as string) as Provenance, at: r.at as number };
  if (r.action != null) t.action = r.action as string;
  if (r.emote != null) t.emote = r.emote as string;
  return t;
};

export class CrowdStore {
  private salt: string;

  constructor(readonly db: Db) {
    db.exec(SCHEMA);
    // Databases made before gold units: add the column.
    if (!(db.prepare('PRAGMA table_info(crowd_units)').all() as { name: string }[]).some((c) => c.name === 'gold')) db.exec('ALTER TABLE crowd_units ADD COLUMN gold TEXT');
    const row = db.prepare("SELECT value FROM crowd_meta WHERE key = 'salt'").get() as { value: string } | undefined;
    if (row) this.salt = row.value;
    else {
      this.salt = randomBytes(16).toString('hex');
      db.prepare("INSERT OR IGNORE INTO crowd_meta (key, value) VALUES ('salt', ?)").run(this.salt);
      this.salt = (db.prepare("SELECT value FROM crowd_meta WHERE key = 'salt'").get() as { value: string }).value;
    }
  }

  /** The pseudonym of a platform worker id: the platform id itself is never stored. */
  pseudonym(platformId: string): string {
    return 'w-' + createHash('sha256').update(this.salt).update('\0').update(platformId).digest('hex').slice(0, 20);
  }

  // ---- tasks ----

  /** Store a task; its allow list (platform ids) is kept as pseudonyms, apart from the task. */
  createTask(task: CrowdTask): void {
    if (this.task(task.id)) throw new Error(`a task "${task.id}" exists already (close it, or give the new one another id)`);
    const { allowWorkers, ...spec } = task;
    this.db.transaction(() => {
      this.db.prepare('INSERT INTO crowd_tasks (id, spec, status, created_at) VALUES (?, ?, ?, ?)').run(task.id, JSON.stringify(spec), 'open', Date.now());
      for (const w of allowWorkers ?? []) this.listWorker('allow', task.id, this.pseudonym(w));
    })();
  }

  /** A platform id, or a pseudonym as shown on the review page (w- and 20 hex digits), as a pseudonym. */
  workerRef(idOrPseudonym: string): string {
    return /^w-[0-9a-f]{20}$/.test(idOrPseudonym) ? idOrPseudonym : this.pseudonym(idOrPseudonym);
  }

  listWorker(kind: 'block' | 'allow', task: string, worker: string, reason: string | null = null): void {
    this.db.prepare('INSERT OR REPLACE INTO crowd_worker_lists (task, worker, kind, reason, at) VALUES (?, ?, ?, ?, ?)').run(task, worker, kind, reason, Date.now());
  }

  unlistWorker(kind: 'block' | 'allow', task: string, worker: string): boolean {
    return this.db.prepare('DELETE FROM crowd_worker_lists WHERE task = ? AND worker = ? AND kind = ?').run(task, worker, kind).changes > 0;
  }

  /** Blocked from this task, or from every task. */
  isBlocked(task: string, worker: string): boolean {
    return !!this.db.prepare("SELECT 1 FROM crowd_worker_lists WHERE kind = 'block' AND worker = ? AND task IN (?, '*')").get(worker, task);
  }

  /** A task with an allow list admits only the workers on it. */
  isAllowed(task: string, worker: string): boolean {
    const any = this.db.prepare("SELECT 1 FROM crowd_worker_lists WHERE kind = 'allow' AND task = ? LIMIT 1").get(task);
    return !any || !!this.db.prepare("SELECT 1 FROM crowd_worker_lists WHERE kind = 'allow' AND task = ? AND worker = ?").get(task, worker);
  }

  /** Whether the worker passed the task's onboarding (null: not taken). */
  onboarded(task: string, worker: string): boolean | null {
    const r = this.db.prepare('SELECT passed FROM crowd_onboarding WHERE task = ? AND worker = ?').get(task, worker) as { passed: number } | undefined;
    return r ? r.passed === 1 : null;
  }

  setOnboarded(task: string, worker: string, passed: boolean): void {
    this.db.prepare('INSERT OR IGNORE INTO crowd_onboarding (task, worker, passed, at) VALUES (?, ?, ?, ?)').run(task, worker, passed ? 1 : 0, Date.now());
  }

  blocked(): { task: string; worker: string; reason: string | null; at: number }[] {
    return this.db.prepare("SELECT task, worker, reason, at FROM crowd_worker_lists WHERE kind = 'block' ORDER BY at").all() as { task: string; worker: string; reason: string | null; at: number }[];
  }

  task(id: string): TaskRow | null {
    const r = this.db.prepare('SELECT * FROM crowd_tasks WHERE id = ?').get(id) as Raw | undefined;
    return r ? { id: r.id as string, task: JSON.parse(r.spec as string) as CrowdTask, status: r.status as TaskRow['status'], createdAt: r.created_at as number } : null;
  }

  tasks(): TaskRow[] {
    return (this.db.prepare('SELECT id FROM crowd_tasks ORDER BY created_at').all() as { id: string }[]).map((r) => this.task(r.id)!);
  }

  setTaskStatus(id: string, status: TaskRow['status']): boolean {
    return this.db.prepare('UPDATE crowd_tasks SET status = ? WHERE id = ?').run(status, id).changes > 0;
  }

  // ---- episodes and turns ----

  addEpisode(e: Omit<EpisodeRow, 'endReason' | 'endedAt' | 'status'>): void {
    this.db.prepare('INSERT INTO crowd_episodes (id, task, room, characters, setup, status, started_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(e.id, e.task, e.room, JSON.stringify(e.characters), JSON.stringify(e.setup), 'live', e.startedAt);
  }

  endEpisode(id: string, status: 'complete' | 'ended', reason: string): void {
    this.db.prepare("UPDATE crowd_episodes SET status = ?, end_reason = ?, ended_at = ? WHERE id = ? AND status = 'live'").run(status, reason, Date.now(), id);
  }

  /** Episodes left live by a server that stopped: ended, their assigned units returned. */
  endStale(): number {
    const n = this.db.prepare("UPDATE crowd_episodes SET status = 'ended', end_reason = 'server stopped', ended_at = ? WHERE status = 'live'").run(Date.now()).changes;
    this.db.prepare("UPDATE crowd_units SET status = 'returned' WHERE status = 'assigned'").run();
    return n;
  }

  episode(id: string): EpisodeRow | null {
    const r = this.db.prepare('SELECT * FROM crowd_episodes WHERE id = ?').get(id) as Raw | undefined;
    return r ? toEpisode(r) : null;
  }

  episodes(task: string): EpisodeRow[] {
    return (this.db.prepare('SELECT * FROM crowd_episodes WHERE task = ? ORDER BY started_at, id').all(task) as Raw[]).map(toEpisode);
  }

  addTurn(t: TurnRow): void {
    this.db.prepare('INSERT INTO crowd_turns (episode, idx, speaker, say, action, emote, provenance, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(t.episode, t.idx, t.speaker, t.say, t.action ?? null, t.emote ?? null, JSON.stringify(t.provenance), t.at);
  }

  turns(episode: string): TurnRow[] {
    return (this.db.prepare('SELECT * FROM crowd_turns WHERE episode = ? ORDER BY idx').all(episode) as Raw[]).map(toTurn);
  }

  // ---- units ----

  addUnit(u: Pick<UnitRow, 'id' | 'task' | 'episode' | 'worker' | 'character' | 'partner'> & { gold?: GoldResult }): void {
    this.db.prepare("INSERT INTO crowd_units (id, task, episode, worker, character, partner, status, created_at, gold) VALUES (?, ?, ?, ?, ?, ?, 'assigned', ?, ?)")
      .run(u.id, u.task, u.episode, u.worker, u.character, u.partner, Date.now(), u.gold ? JSON.stringify(u.gold) : null);
  }

  /** Record a gold unit's check. */
  setGold(id: string, gold: GoldResult): void {
    this.db.prepare('UPDATE crowd_units SET gold = ? WHERE id = ?').run(JSON.stringify(gold), id);
  }

  unit(id: string): UnitRow | null {
    const r = this.db.prepare('SELECT * FROM crowd_units WHERE id = ?').get(id) as Raw | undefined;
    return r ? toUnit(r) : null;
  }

  units(task: string): UnitRow[] {
    return (this.db.prepare('SELECT * FROM crowd_units WHERE task = ? ORDER BY created_at, id').all(task) as Raw[]).map(toUnit);
  }

  unitsOf(task: string, worker: string): UnitRow[] {
    return (this.db.prepare('SELECT * FROM crowd_units WHERE task = ? AND worker = ? ORDER BY created_at').all(task, worker) as Raw[]).map(toUnit);
  }

  setUnitStatus(id: string, status: UnitStatus, extra: { code?: string; review?: string | null; bonus?: number | null } = {}): void {
    const now = Date.now();
    if (status === 'completed') this.db.prepare('UPDATE crowd_units SET status = ?, code = ?, completed_at = ? WHERE id = ?').run(status, extra.code ?? null, now, id);
    else if (status === 'approved' || status === 'soft_rejected' || status === 'rejected') {
      this.db.prepare('UPDATE crowd_units SET status = ?, review = ?, bonus = ?, reviewed_at = ? WHERE id = ?').run(status, extra.review ?? null, extra.bonus ?? null, now, id);
    } else this.db.prepare('UPDATE crowd_units SET status = ? WHERE id = ?').run(status, id);
  }

  addCheck(id: string, check: CheckRecord): void {
    const u = this.unit(id);
    if (!u) return;
    this.db.prepare('UPDATE crowd_units SET checks = ? WHERE id = ?').run(JSON.stringify([...u.checks, check]), id);
  }

  endForm(id: string, form: { rating: number; report: string | null; feedback: string | null }): void {
    this.db.prepare('UPDATE crowd_units SET rating = ?, report = ?, feedback = ? WHERE id = ?').run(form.rating, form.report, form.feedback, id);
  }
}
