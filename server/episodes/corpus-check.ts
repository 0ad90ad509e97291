/**
 * Checks of a written episode corpus: every episode replays in the engine, has enough turns,
 * and is not a copy of another (ids, whole episodes, or lines reused across many episodes).
 */
import type { World } from '../engine/world.js';
import type { Episode } from './episode.js';
import { replayEpisode, type ReplayProblem } from './replay.js';

export interface CorpusReport {
  episodes: number;
  turns: number;
  withAction: number;
  withEmote: number;
  rooms: number;
  problems: ReplayProblem[];
}

const normalise = (s: string) => s.toLowerCase().replace(/[^a-z0-9 ]+/g, '').replace(/\s+/g, ' ').trim();

/** The checks, one episode at a time (a caller that must yield between episodes can); report() once all are added. */
export class CorpusCheck {
  private readonly minTurns: number;
  private readonly maxLineReuse: number;
  private readonly problems: ReplayProblem[] = [];
  private readonly ids = new Map<string, number>();
  private readonly lineUse = new Map<string, Set<string>>();
  private readonly fingerprints = new Map<string, string>();
  private readonly rooms = new Set<string>();
  private episodes = 0;
  private turns = 0;
  private withAction = 0;
  private withEmote = 0;

  constructor(private readonly world: World, opts: { minTurns?: number; maxLineReuse?: number } = {}) {
    this.minTurns = opts.minTurns ?? 8;
    this.maxLineReuse = opts.maxLineReuse ?? 3;
  }

  add(ep: Episode): void {
    this.episodes++;
    this.rooms.add(ep.room);
    this.ids.set(ep.id, (this.ids.get(ep.id) ?? 0) + 1);
    if (ep.turns.length < this.minTurns) this.problems.push({ episode: ep.id, turn: -1, message: `${ep.turns.length} turns; at least ${this.minTurns} needed` });
    this.problems.push(...replayEpisode(this.world, ep));
    this.turns += ep.turns.length;
    for (const t of ep.turns) {
      if (t.action) this.withAction++;
      if (t.emote) this.withEmote++;
      const key = normalise(t.say);
      if (key.split(' ').length >= 4) {
        if (!this.lineUse.has(key)) this.lineUse.set(key, new Set());
        this.lineUse.get(key)!.add(ep.id);
      }
    }
    const fp = ep.turns.map((t) => normalise(t.say)).join('|');
    const twin = this.fingerprints.get(fp);
    if (twin) this.problems.push({ episode: ep.id, turn: -1, message: `same dialogue as episode ${twin}` });
    else this.fingerprints.set(fp, ep.id);
  }

  report(): CorpusReport {
    const problems = [...this.problems];
    for (const [id, n] of this.ids) if (n > 1) problems.push({ episode: id, turn: -1, message: `id used by ${n} episodes` });
    for (const [line, eps] of this.lineUse) {
      if (eps.size > this.maxLineReuse) problems.push({ episode: [...eps][0]!, turn: -1, message: `the line "${line.slice(0, 60)}" appears in ${eps.size} episodes (${[...eps].slice(0, 5).join(', ')}); write it afresh` });
    }
    return { episodes: this.episodes, turns: this.turns, withAction: this.withAction, withEmote: this.withEmote, rooms: this.rooms.size, problems };
  }
}

export function checkCorpus(world: World, episodes: Episode[], opts: { minTurns?: number; maxLineReuse?: number } = {}): CorpusReport {
  const check = new CorpusCheck(world, opts);
  for (const ep of episodes) check.add(ep);
  return check.report();
}
