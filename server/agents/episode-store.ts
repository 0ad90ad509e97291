/**
 * Model-played episodes in SQLite: one row per episode (its JSON), in a table of its own beside
 * the server's (the same database file works, or any other).
 */
import { openDb, type Db } from '../store/db.js';
import type { ModelEpisode } from './episodes.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS model_episodes (
  run         TEXT NOT NULL,        -- one lightmud episodes invocation
  id          TEXT NOT NULL,        -- the episode's id (the same seed gives the same ids)
  seed        INTEGER NOT NULL,
  room        TEXT NOT NULL,
  characters  TEXT NOT NULL,        -- JSON array of character ids
  turns       INTEGER NOT NULL,
  model       TEXT NOT NULL,        -- model directory
  episode     TEXT NOT NULL,        -- the whole episode, JSON (as written to the JSONL file)
  created_at  INTEGER NOT NULL,
  PRIMARY KEY (run, id)
);
`;

export class EpisodeStore {
  private insert;
  private pending: ModelEpisode[] = [];

  private constructor(readonly db: Db, readonly run: string, readonly model: string, private owned: boolean) {
    db.exec(SCHEMA);
    this.insert = db.prepare('INSERT OR REPLACE INTO model_episodes (id, run, seed, room, characters, turns, model, episode, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
  }

  static open(path: string, run: string, model: string): EpisodeStore {
    return new EpisodeStore(openDb(path, { sync: 'normal' }), run, model, true);
  }

  static on(db: Db, run: string, model: string): EpisodeStore {
    return new EpisodeStore(db, run, model, false);
  }

  /** Queue an episode; written with the next flush (one transaction per flush). */
  add(ep: ModelEpisode): void {
    this.pending.push(ep);
    if (this.pending.length >= 64) this.flush();
  }

  flush(): void {
    const batch = this.pending.splice(0);
    if (!batch.length) return;
    const now = Date.now();
    this.db.transaction(() => {
      for (const ep of batch) this.insert.run(ep.id, this.run, ep.seed, ep.room, JSON.stringify(ep.characters), ep.turns.length, this.model, JSON.stringify(ep), now);
    })();
  }

  count(run = this.run): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM model_episodes WHERE run = ?').get(run) as { n: number }).n;
  }

  episodes(run = this.run): ModelEpisode[] {
    return (this.db.prepare('SELECT episode FROM model_episodes WHERE run = ? ORDER BY id').all(run) as { episode: string }[]).map((r) => JSON.parse(r.episode) as ModelEpisode);
  }

  close(): void {
    this.flush();
    if (this.owned) this.db.close();
  }
}
