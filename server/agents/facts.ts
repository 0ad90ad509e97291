/**
 * What a character knows right now, as the plain facts the context formatter reads: where it is,
 * who it is, who is with it, the objects present and the ones it holds. History is supplied by
 * the caller (an episode's turns, or a live character's memory).
 */
import type { World } from '../engine/world.js';
import type { NodeId } from '../engine/types.js';
import type { ContextFacts, HistoryEntry, ObjectFact } from './context.js';

export function factsFor(world: World, self: NodeId, history: HistoryEntry[], partners?: NodeId[]): ContextFacts {
  const me = world.character(self);
  const roomId = world.roomOf(self);
  const room = roomId ? world.room(roomId) : undefined;
  if (!me || !room) throw new Error(`${self} is not a character in a room`);
  const others = partners ?? world.charactersIn(room.id).filter((c) => c.id !== self).map((c) => c.id);
  const objects: ObjectFact[] = [];
  for (const id of world.visibleFrom(self)) {
    const o = world.object(id);
    if (!o) continue;
    const holder = world.holderOf(id);
    if (holder && holder !== self) continue; // what others hold is theirs to mention
    objects.push(holder === self ? { name: o.name, description: o.description, carried: true } : { name: o.name, description: o.description });
  }
  return {
    setting: { name: room.name, description: room.description, category: room.category },
    self: { name: me.name, persona: me.persona },
    partners: others.map((id) => world.character(id)?.name ?? id),
    objects,
    history,
  };
}
