/**
 * A live world written back as a lightmud world file (world-data/FORMAT.md), for `lightmud world
 * export`: rooms in their order, characters and objects in the order they were placed, so the file
 * loads back as the same graph (each node's fields, where everything is, and the order things are
 * listed in a room or a container). Pure: no I/O.
 *
 * What the format has no field for is left out and said in `notes`: whom a character follows or
 * blocks (it ends on a reload anyway), the seeded generator's state, the counter for new ids, and
 * anything that is nowhere (unplaced).
 */
import { buildWorldState, type WorldFile, type WorldFileProblem } from '../engine/world-file.js';
import type { CharacterSpec, ObjectSpec, RoomSpec } from '../engine/world-file.js';
import type { NodeId, WorldState } from '../engine/types.js';

export interface WorldFileExport {
  file: WorldFile;
  /** What was left out, one line each. */
  notes: string[];
  /** Problems the written file has (it does not load): empty when it loads. */
  problems: WorldFileProblem[];
}

const LOCATION = { in: 'in', on: 'on', carried: 'carriedBy', worn: 'wornBy', wielded: 'wieldedBy' } as const;

export function toWorldFile(state: WorldState, opts: { start?: NodeId | null; file?: string } = {}): WorldFileExport {
  const notes: string[] = [];
  const rooms: RoomSpec[] = [];
  const characters: CharacterSpec[] = [];
  const objects: ObjectSpec[] = [];
  for (const n of Object.values(state.nodes)) {
    if (n.kind === 'room') rooms.push({ id: n.id, name: n.name, category: n.category, description: n.description, backstory: n.backstory, exits: n.exits.map((e) => ({ label: e.label, to: e.to })) });
    else if (!state.placement[n.id]) notes.push(`${n.kind} ${n.id} is nowhere (unplaced): left out`);
  }
  // Placement order is the order things are listed in their room, container or holder.
  for (const [id, p] of Object.entries(state.placement)) {
    const n = state.nodes[id];
    if (!n || n.kind === 'room') continue;
    if (n.kind === 'character') {
      const c: CharacterSpec = { id: n.id, name: n.name, prefix: n.prefix, persona: n.persona, description: n.description, room: p.parent };
      if (n.policy !== 'idle') c.policy = n.policy;
      if (n.capacity !== undefined) c.capacity = n.capacity;
      if (n.dexterity !== undefined) c.dexterity = n.dexterity;
      if (n.pacifist) c.pacifist = true;
      if (n.health !== undefined) c.health = n.health;
      if (n.following) notes.push(`character ${n.id} follows ${n.following}: not in the format, left out`);
      if (n.blocking) notes.push(`character ${n.id} blocks ${n.blocking}: not in the format, left out`);
      characters.push(c);
    } else {
      const o: ObjectSpec = { id: n.id, name: n.name, prefix: n.prefix, description: n.description };
      if (!n.gettable) o.gettable = false;
      for (const k of ['container', 'surface', 'weapon', 'wearable', 'food', 'drink'] as const) if (n[k]) o[k] = true;
      if (n.size !== undefined) o.size = n.size;
      if (n.capacity !== undefined) o.capacity = n.capacity;
      if (n.foodEnergy !== undefined) o.foodEnergy = n.foodEnergy;
      if (n.onUse?.length) o.onUse = structuredClone(n.onUse);
      o[LOCATION[p.rel]] = p.parent;
      objects.push(o);
    }
  }
  const file: WorldFile = { format: 'lightmud-world', version: 1, title: state.title };
  if (opts.start && state.nodes[opts.start]?.kind === 'room') file.start = opts.start;
  Object.assign(file, { rooms, characters, objects });
  let problems: WorldFileProblem[] = [];
  try {
    buildWorldState([{ file: opts.file ?? '(export)', data: JSON.parse(JSON.stringify(file)) }]);
  } catch (err) {
    problems = (err as { problems?: WorldFileProblem[] }).problems ?? [{ file: opts.file ?? '(export)', entity: '(file)', field: '(world)', message: (err as Error).message }];
  }
  return { file, notes, problems };
}
