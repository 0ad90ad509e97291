/**
 * Checks of a built world beyond its schema: every room reachable from every other, and the
 * writing conventions of the bundled world (3-5 sentence personas, descriptions present).
 * Pure: takes a WorldState, returns findings.
 */
import { sentenceCount } from './world-file.js';
import type { NodeId, RoomNode, WorldState } from './types.js';

function reach(state: WorldState, from: NodeId, reverse: boolean): Set<NodeId> {
  const rooms = Object.values(state.nodes).filter((n): n is RoomNode => n.kind === 'room');
  const edges = new Map<NodeId, NodeId[]>();
  for (const r of rooms) {
    for (const e of r.exits) {
      const [a, b] = reverse ? [e.to, r.id] : [r.id, e.to];
      if (!edges.has(a)) edges.set(a, []);
      edges.get(a)!.push(b);
    }
  }
  const seen = new Set<NodeId>([from]);
  const queue = [from];
  while (queue.length) {
    for (const next of edges.get(queue.shift()!) ?? []) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return seen;
}

/** Rooms that cannot be reached from the first room, or from which the first room cannot be reached. */
export function unreachableRooms(state: WorldState): NodeId[] {
  const rooms = Object.values(state.nodes).filter((n) => n.kind === 'room').map((n) => n.id);
  if (rooms.length === 0) return [];
  const fwd = reach(state, rooms[0]!, false);
  const back = reach(state, rooms[0]!, true);
  return rooms.filter((id) => !fwd.has(id) || !back.has(id));
}

export interface LintFinding { entity: string; message: string }

/** The bundled world's writing conventions. Imported LIGHT maps are not held to them. */
export function lintWorld(state: WorldState): LintFinding[] {
  const out: LintFinding[] = [];
  for (const id of unreachableRooms(state)) out.push({ entity: `room ${id}`, message: 'not reachable both ways from the rest of the map' });
  for (const n of Object.values(state.nodes)) {
    if (n.kind === 'character') {
      const s = sentenceCount(n.persona);
      if (s < 3 || s > 5) out.push({ entity: `character ${n.id}`, message: `persona has ${s} sentences; write 3-5` });
      if (!/\b(I|I'm|I've|my|me)\b/.test(n.persona)) out.push({ entity: `character ${n.id}`, message: 'persona should be first person' });
      if (!/\b(you|your|You|Your)\b/.test(n.description)) out.push({ entity: `character ${n.id}`, message: 'description should address the viewer (second person)' });
    }
    if (n.kind === 'object' && n.weapon && n.food) out.push({ entity: `object ${n.id}`, message: 'a weapon that is also food?' });
  }
  return out;
}
