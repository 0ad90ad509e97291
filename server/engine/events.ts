/**
 * Events: what happened, and how each viewer saw it. An event is plain data: the engine decides
 * at the moment it happens who perceives it and with what words (`seen`), so delivery needs no
 * rules and a log replays exactly what each character was told.
 */
import type { World } from './world.js';
import type { NodeId } from './types.js';

export interface GameEvent {
  /** 'get', 'give', 'say', 'emote', 'go', ... */
  type: string;
  actor: NodeId;
  /** Where it happened (for `go`, the room left). */
  room: NodeId;
  target?: NodeId;
  object?: NodeId;
  container?: NodeId;
  /** Spoken words, or the emote's name. */
  text?: string;
  /** LIGHT's canonical text of a graph action ("give shovel to orc"); absent for speech and moves. */
  action?: string;
  /**
   * The action was attempted and came to nothing by chance (a thief caught in the act): the graph
   * is unchanged. Its `action` is still the canonical text that was carried out.
   */
  failed?: true;
  /** For a hit that harmed: the health points its target lost. */
  damage?: number;
  /** viewer id -> what that character perceived. The actor's own view is under the actor's id. */
  seen: Record<NodeId, string>;
}

export interface Views {
  actor: string;
  /** What the target character perceives, if the event has one. */
  target?: string;
  /** What everyone else in the room perceives. */
  others: string;
}

/** Build the per-viewer map for an event seen by the actor, an optional target and the room. */
export function seenInRoom(world: World, room: NodeId, actor: NodeId, views: Views, target?: NodeId): Record<NodeId, string> {
  const seen: Record<NodeId, string> = {};
  for (const c of world.charactersIn(room)) {
    if (c.id === actor) continue;
    seen[c.id] = c.id === target && views.target !== undefined ? views.target : views.others;
  }
  if (target && views.target !== undefined && world.character(target)) seen[target] = views.target;
  seen[actor] = views.actor;
  return seen;
}

/** What `viewer` perceived of an event, or null if it was not there to see it. */
export function perceive(event: GameEvent, viewer: NodeId): string | null {
  return event.seen[viewer] ?? null;
}
