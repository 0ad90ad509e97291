/**
 * LIGHT's episode setup: a copy of the world in which the chosen characters stand in the chosen
 * room, with the room's objects and their own; the room's other occupants step out, so only the
 * episode's characters can be spoken to or acted upon.
 */
import type { NodeId } from '../engine/types.js';
import type { World } from '../engine/world.js';

export function stageEpisode(world: World, room: NodeId, characters: NodeId[]): World {
  const w = world.clone();
  if (!w.room(room)) throw new Error(`"${room}" is not a room`);
  for (const c of characters) if (!w.character(c)) throw new Error(`"${c}" is not a character`);
  for (const other of w.charactersIn(room)) if (!characters.includes(other.id)) w.unplace(other.id);
  for (const c of characters) w.move(c, room, 'in');
  return w;
}
