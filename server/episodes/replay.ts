/**
 * Replay an episode in the engine: every action must execute exactly as written, every emote must
 * be one of the 22, every speaker must take part. Used to check the written corpus and to verify
 * episodes that models played.
 */
import { EMOTES } from '../engine/emotes.js';
import { execute } from '../engine/game.js';
import type { World } from '../engine/world.js';
import type { Episode } from './episode.js';
import { stageEpisode } from './stage.js';

export interface ReplayProblem {
  episode: string;
  turn: number;
  message: string;
}

export function replayEpisode(world: World, ep: Episode): ReplayProblem[] {
  const problems: ReplayProblem[] = [];
  let w: World;
  try {
    w = stageEpisode(world, ep.room, ep.characters);
  } catch (err) {
    return [{ episode: ep.id, turn: -1, message: (err as Error).message }];
  }
  ep.turns.forEach((t, i) => {
    if (!ep.characters.includes(t.speaker)) {
      problems.push({ episode: ep.id, turn: i, message: `speaker "${t.speaker}" is not one of the episode's characters` });
      return;
    }
    if (t.say) {
      const out = execute(w, t.speaker, `say ${t.say}`);
      if (!out.ok) problems.push({ episode: ep.id, turn: i, message: `say failed: ${out.text}` });
    }
    if (t.action !== undefined) {
      const out = execute(w, t.speaker, t.action);
      if (!out.ok) problems.push({ episode: ep.id, turn: i, message: `action "${t.action}" failed: ${out.text}` });
      else if (out.action !== t.action) problems.push({ episode: ep.id, turn: i, message: `"${t.action}" is not canonical; the engine executed "${out.action ?? out.text}"` });
    }
    if (t.emote !== undefined && !(EMOTES as readonly string[]).includes(t.emote)) {
      problems.push({ episode: ep.id, turn: i, message: `"${t.emote}" is not one of the 22 emotes` });
    }
  });
  return problems;
}
