/**
 * An episode, as LIGHT collected them: two (or more) characters placed in one location with the
 * location's objects and their own, taking turns; each turn one utterance and at most one action
 * or emote. Stored one JSON object a line (JSONL).
 */
import type { NodeId } from '../engine/types.js';

export interface EpisodeTurn {
  /** Character id of the one taking the turn. */
  speaker: NodeId;
  /** What the speaker says (may be empty when the turn is only an action or emote). */
  say: string;
  /** LIGHT's canonical action text, executed by the engine ("give rake to gardener"). */
  action?: string;
  /** One of the 22 emotes. */
  emote?: string;
}

export interface Episode {
  id: string;
  /** Room id where the episode takes place. */
  room: NodeId;
  /** The characters taking part, in turn order of the first round. */
  characters: NodeId[];
  turns: EpisodeTurn[];
  /** Where it came from: "written" (the project's corpus), "model" (lightmud episodes), "human". */
  source?: string;
}

export class EpisodeFormatError extends Error {
  constructor(readonly file: string, readonly line: number, message: string) {
    super(`${file}:${line}: ${message}`);
    this.name = 'EpisodeFormatError';
  }
}

/** Parse JSONL text into episodes; every malformed line is reported with its number. */
export function parseEpisodes(text: string, file = '(episodes)'): { episodes: Episode[]; errors: EpisodeFormatError[] } {
  const episodes: Episode[] = [];
  const errors: EpisodeFormatError[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    let data: unknown;
    try {
      data = JSON.parse(line);
    } catch (err) {
      errors.push(new EpisodeFormatError(file, i + 1, `not valid JSON: ${(err as Error).message}`));
      return;
    }
    const problem = checkShape(data);
    if (problem) errors.push(new EpisodeFormatError(file, i + 1, problem));
    else episodes.push(data as Episode);
  });
  return { episodes, errors };
}

function checkShape(d: unknown): string | null {
  if (typeof d !== 'object' || d === null || Array.isArray(d)) return 'an episode must be a JSON object';
  const e = d as Record<string, unknown>;
  if (typeof e['id'] !== 'string' || !e['id']) return 'id: must be a non-empty string';
  if (typeof e['room'] !== 'string') return `episode ${e['id']}: room: must be a string`;
  if (!Array.isArray(e['characters']) || e['characters'].length < 2 || !e['characters'].every((c) => typeof c === 'string')) return `episode ${e['id']}: characters: must list at least two character ids`;
  if (!Array.isArray(e['turns']) || e['turns'].length === 0) return `episode ${e['id']}: turns: must be a non-empty array`;
  for (const [i, t] of (e['turns'] as unknown[]).entries()) {
    if (typeof t !== 'object' || t === null) return `episode ${e['id']}: turns.${i}: must be an object`;
    const turn = t as Record<string, unknown>;
    if (typeof turn['speaker'] !== 'string') return `episode ${e['id']}: turns.${i}.speaker: must be a string`;
    if (typeof turn['say'] !== 'string') return `episode ${e['id']}: turns.${i}.say: must be a string`;
    if (turn['action'] !== undefined && typeof turn['action'] !== 'string') return `episode ${e['id']}: turns.${i}.action: must be a string`;
    if (turn['emote'] !== undefined && typeof turn['emote'] !== 'string') return `episode ${e['id']}: turns.${i}.emote: must be a string`;
    if (turn['action'] !== undefined && turn['emote'] !== undefined) return `episode ${e['id']}: turns.${i}: at most one of action and emote`;
    if (!turn['say'] && turn['action'] === undefined && turn['emote'] === undefined) return `episode ${e['id']}: turns.${i}: says nothing and does nothing`;
  }
  return null;
}
