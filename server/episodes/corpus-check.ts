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

export function checkCorpus(world: World, episodes: Episode[], opts: { minTurns?: number; maxLineReuse?: number } = {}): CorpusReport {
  const minTurns = opts.minTurns ?? 8;
  const maxLineReuse = opts.maxLineReuse ?? 3;
  const problems: ReplayProblem[] = [];
  const ids = new Map<string, number>();
  const lineUse = new Map<string, Set<string>>();
  const fingerprints = new Map<string, string>();
  let turns = 0;
  let withAction = 0;
  let withEmote = 0;
  for (const ep of episodes) {
    ids.set(ep.id, (ids.get(ep.id) ?? 0) + 1);
    if (ep.turns.length < minTurns) problems.push({ episode: ep.id, turn: -1, message: `${ep.turns.length} turns; at least ${minTurns} needed` });
    problems.push(...replayEpisode(world, ep));
    turns += ep.turns.length;
    for (const t of ep.turns) {
      if (t.action) withAction++;
      if (t.emote) withEmote++;
      const key = normalise(t.say);
      if (key.split(' ').length >= 4) {
        if (!lineUse.has(key)) lineUse.set(key, new Set());
        lineUse.get(key)!.add(ep.id);
      }
    }
    const fp = ep.turns.map((t) => normalise(t.say)).join('|');
    const twin = fingerprints.get(fp);
    if (twin) problems.push({ episode: ep.id, turn: -1, message: `same dialogue as episode ${twin}` });
    else fingerprints.set(fp, ep.id);
  }
  for (const [id, n] of ids) if (n > 1) problems.push({ episode: id, turn: -1, message: `id used by ${n} episodes` });
  for (const [line, eps] of lineUse) {
    if (eps.size > maxLineReuse) problems.push({ episode: [...eps][0]!, turn: -1, message: `the line "${line.slice(0, 60)}" appears in ${eps.size} episodes (${[...eps].slice(0, 5).join(', ')}); write it afresh` });
  }
  return { episodes: episodes.length, turns, withAction, withEmote, rooms: new Set(episodes.map((e) => e.room)).size, problems };
}
