/**
 * Import and export of LIGHT's graph-JSON world format (the maps of LIGHT's repository:
 * `nodes` keyed by node id with room / agent / object flags, `contained_nodes`,
 * `container_node`, `neighbors` with exit labels, and object affordances). Node ids are kept
 * as they are, so an import followed by an export keeps every field the engine uses.
 *
 * Mapping: an object with `container: true` holds things `in` it when its `surface_type` is
 * "in", `on` it when "on" or absent (LIGHT's default). `wieldable` is our `weapon`. Flags are read
 * as LIGHT reads them: numbers count (`1.0` is true), and the `is_*` aliases (`is_gettable`,
 * `is_wearable`, `is_weapon`, `is_food`, `is_drink`, `is_container`, `is_surface`) are read when
 * the plain name is absent. An object held by an agent with
 * `equipped` set is wielded if it is wieldable, else worn if wearable, else carried.
 */
import { WorldFileError, type WorldFileProblem } from '../engine/world-file.js';
import { DEFAULT_CAPACITY, DEFAULT_FOOD_ENERGY, DEFAULT_SIZE, MAX_HEALTH, capacityOf, loadOf, World } from '../engine/index.js';
import type { CharacterNode, GraphNode, NodeId, ObjectNode, Placement, RoomNode, UseRule, WorldState } from '../engine/types.js';

type LightNode = Record<string, unknown> & { node_id?: string };
export interface LightGraph {
  nodes: Record<string, LightNode>;
  rooms?: string[];
  agents?: string[];
  objects?: string[];
  title?: string;
  [k: string]: unknown;
}

export function isLightGraph(data: unknown): data is LightGraph {
  return typeof data === 'object' && data !== null && !Array.isArray(data) && 'nodes' in data &&
    typeof (data as { nodes: unknown }).nodes === 'object' && (data as { nodes: unknown }).nodes !== null && !('format' in data);
}

const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
/**
 * A flag as LIGHT's Python reads it: true, or a number other than 0 (LIGHT's maps write
 * `"gettable": 1.0`), or the strings "true" / "1" / "yes"; everything else is false.
 */
export const truthy = (v: unknown): boolean =>
  v === true || (typeof v === 'number' && v !== 0 && !Number.isNaN(v)) || (typeof v === 'string' && /^(true|1|yes)$/i.test(v.trim()));

/** LIGHT's `props.get(name, props.get(alias, fallback))`: the first key present decides. */
function flag(n: Record<string, unknown>, names: string[], fallback: boolean): boolean {
  for (const k of names) if (k in n) return truthy(n[k]);
  return fallback;
}

export function importLightGraph(data: LightGraph, opts: { file: string; seed?: number; title?: string }): { state: WorldState; start: NodeId | null } {
  const problems: WorldFileProblem[] = [];
  const nodes: Record<NodeId, GraphNode> = {};
  const raw = data.nodes;
  const kindOf = (n: LightNode): 'room' | 'character' | 'object' | null =>
    truthy(n['room']) ? 'room' : truthy(n['agent']) ? 'character' : truthy(n['object']) ? 'object' : null;

  for (const [id, n] of Object.entries(raw)) {
    if (typeof n !== 'object' || n === null) {
      problems.push({ file: opts.file, entity: `node ${id}`, field: '(node)', message: 'not an object' });
      continue;
    }
    const kind = kindOf(n);
    const name = str(n['name']).trim();
    if (!kind) { problems.push({ file: opts.file, entity: `node ${id}`, field: 'room/agent/object', message: 'none of room, agent, object is true' }); continue; }
    if (!name) { problems.push({ file: opts.file, entity: `node ${id}`, field: 'name', message: 'missing name' }); continue; }
    if (kind === 'room') {
      const exits = Object.entries((n['neighbors'] as Record<string, { label?: unknown; target_id?: unknown }> | undefined) ?? {}).map(([key, e]) => ({
        label: str(e?.label, str(e?.target_id, key)),
        to: str(e?.target_id, key),
      }));
      const desc = str(n['desc']);
      const extra = str(n['extra_desc']);
      const room: RoomNode = { kind: 'room', id, name, category: str(n['category'], 'Unknown'), description: desc, backstory: extra && extra !== desc ? extra : '', exits };
      nodes[id] = room;
    } else if (kind === 'character') {
      const ch: CharacterNode = {
        kind: 'character', id, name, prefix: str(n['name_prefix'], 'a'), persona: str(n['persona']), description: str(n['desc']),
        policy: flag(n, ['is_player', '_human'], false) ? 'human' : 'idle',
      };
      if (truthy(n['pacifist'])) ch.pacifist = true;
      const dex = num(n['dexterity']);
      if (dex !== undefined) ch.dexterity = Math.round(dex);
      // LIGHT's agents carry health (default 6; LIGHT writes floats); a dead agent's 0 is read as 1
      const health = n['health'];
      if (typeof health === 'number' && Number.isFinite(health)) ch.health = Math.max(1, Math.round(health));
      // LIGHT's block edge ({"target_id": agent}); kept once every node is known (below)
      const blocking = str((n['blocking'] as { target_id?: unknown } | null | undefined)?.target_id);
      if (blocking) ch.blocking = blocking;
      nodes[id] = ch;
    } else {
      // as LIGHT's GraphObject: is_container / is_surface make a container; surface_type defaults
      // to "on", and is_surface, when present, decides it (1 "on", else "in")
      const container = flag(n, ['container'], false) || truthy(n['is_container']) || truthy(n['is_surface']);
      let surfaceType = str(n['surface_type'], 'on');
      if ('is_surface' in n) surfaceType = Number(n['is_surface']) === 1 ? 'on' : 'in';
      const obj: ObjectNode = {
        kind: 'object', id, name, prefix: str(n['name_prefix'], 'a'), description: str(n['desc']),
        gettable: flag(n, ['gettable', 'is_gettable'], true),
        container: container && surfaceType !== 'on',
        surface: container && surfaceType === 'on',
        weapon: flag(n, ['wieldable', 'is_weapon'], false), wearable: flag(n, ['wearable', 'is_wearable'], false),
        food: flag(n, ['food', 'is_food'], false), drink: flag(n, ['drink', 'is_drink'], false),
      };
      const size = num(n['size']);
      if (size !== undefined && size >= 0 && Math.round(size) !== DEFAULT_SIZE) obj.size = Math.round(size);
      // LIGHT's on_use (what `use X with Y` does): kept as LIGHT writes it, remaining uses as numbers
      const onUse = n['on_use'];
      if (Array.isArray(onUse) && onUse.length) {
        obj.onUse = structuredClone(onUse as UseRule[]).filter((r) => r && Array.isArray(r.constraints) && Array.isArray(r.events));
        for (const r of obj.onUse) {
          if (r.remaining_uses === undefined || r.remaining_uses === null || r.remaining_uses === 'inf') delete r.remaining_uses;
          else r.remaining_uses = Number(r.remaining_uses);
        }
        if (!obj.onUse.length) delete obj.onUse;
      }
      // LIGHT's food_energy (default 1; below 0 poisoned), kept for what can be eaten or drunk
      const energy = num(n['food_energy']);
      if ((obj.food || obj.drink) && energy !== undefined && Math.round(energy) !== DEFAULT_FOOD_ENERGY) obj.foodEnergy = Math.max(-MAX_HEALTH, Math.min(MAX_HEALTH, Math.round(energy)));
      nodes[id] = obj;
    }
  }

  const placement: Record<NodeId, Placement> = {};
  for (const [id, node] of Object.entries(nodes)) {
    if (node.kind === 'room') {
      node.exits.forEach((e, i) => {
        if (nodes[e.to]?.kind !== 'room') problems.push({ file: opts.file, entity: `room ${id}`, field: `neighbors.${i}`, message: `"${e.to}" is not a room` });
      });
      continue;
    }
    const n = raw[id]!;
    const parent = str((n['container_node'] as { target_id?: unknown } | undefined)?.target_id);
    if (parent === 'VOID') continue; // LIGHT keeps some nodes outside the world: they stay unplaced
    const p = nodes[parent];
    if (!p) { problems.push({ file: opts.file, entity: `${node.kind} ${id}`, field: 'container_node', message: `"${parent}" is not a node` }); continue; }
    if (node.kind === 'character') {
      if (p.kind !== 'room') problems.push({ file: opts.file, entity: `character ${id}`, field: 'container_node', message: `"${parent}" is not a room` });
      else placement[id] = { parent, rel: 'in' };
      continue;
    }
    if (p.kind === 'room') placement[id] = { parent, rel: 'in' };
    else if (p.kind === 'character') {
      // LIGHT writes equipped as true, or as "wear" / "wield"
      const e = n['equipped'];
      const equipped = typeof e === 'string' ? e !== '' : truthy(e);
      const rel = e === 'wear' && node.wearable ? 'worn' : e === 'wield' && node.weapon ? 'wielded'
        : equipped && node.weapon ? 'wielded' : equipped && node.wearable ? 'worn' : 'carried';
      placement[id] = { parent, rel };
    } else placement[id] = { parent, rel: p.surface ? 'on' : 'in' };
  }
  // LIGHT stores contain_size as the room left: the capacity is that plus what is inside already
  // (left absent when it is the default, so an export and import give back the same world)
  for (const [id, node] of Object.entries(nodes)) {
    if (node.kind === 'room' || (node.kind === 'object' && !node.container && !node.surface)) continue;
    const left = num(raw[id]!['contain_size']);
    if (left === undefined || left < 0) continue;
    let load = 0;
    for (const [child, p] of Object.entries(placement)) if (p.parent === id && nodes[child]?.kind === 'object') load += (nodes[child] as ObjectNode).size ?? DEFAULT_SIZE;
    const capacity = Math.round(left) + load;
    if (capacity !== DEFAULT_CAPACITY) node.capacity = capacity;
  }
  // a block of something that is not another character is dropped
  for (const node of Object.values(nodes)) {
    if (node.kind === 'character' && node.blocking && (nodes[node.blocking]?.kind !== 'character' || node.blocking === node.id)) delete node.blocking;
  }
  if (problems.length) throw new WorldFileError(problems);
  const roomIds = Object.values(nodes).filter((n) => n.kind === 'room').map((n) => n.id);
  const first = (data.rooms ?? []).find((r) => nodes[r]?.kind === 'room') ?? roomIds[0] ?? null;
  return {
    state: { title: str(data.title) || opts.title || 'LIGHT world', nodes, placement, rngState: (opts.seed ?? 1) >>> 0, nextId: 1 },
    start: first,
  };
}

/** Export a world in LIGHT's graph-JSON format. */
export function exportLightGraph(state: WorldState): LightGraph {
  const nodes: Record<string, LightNode> = {};
  const contained: Record<string, Record<string, { target_id: string }>> = {};
  for (const [id, p] of Object.entries(state.placement)) (contained[p.parent] ??= {})[id] = { target_id: id };
  const w = new World(state);
  const left = (id: NodeId) => Math.max(0, capacityOf(w, id) - loadOf(w, id));
  for (const n of Object.values(state.nodes)) {
    const common = { node_id: n.id, name: n.name, names: [n.name], contained_nodes: contained[n.id] ?? {} };
    if (n.kind === 'room') {
      nodes[n.id] = {
        ...common, room: true, agent: false, object: false, classes: ['room'], desc: n.description, extra_desc: n.backstory || n.description,
        category: n.category, name_prefix: 'the', container_node: { target_id: 'VOID' }, contain_size: 100000, size: 1, surface_type: 'in',
        neighbors: Object.fromEntries(n.exits.map((e) => [e.to, { label: e.label, target_id: e.to, examine_desc: null, locked_edge: null }])),
      };
    } else if (n.kind === 'character') {
      nodes[n.id] = {
        ...common, room: false, agent: true, object: false, classes: ['agent'], desc: n.description, persona: n.persona, name_prefix: n.prefix,
        is_player: n.policy === 'human', container_node: { target_id: state.placement[n.id]?.parent ?? 'VOID' }, contain_size: left(n.id), size: 20,
        pacifist: !!n.pacifist, ...(n.dexterity !== undefined ? { dexterity: n.dexterity } : {}),
        ...(n.health !== undefined ? { health: n.health } : {}),
        blocking: n.blocking ? { target_id: n.blocking } : null,
      };
    } else {
      const p = state.placement[n.id];
      const classes = ['object', ...(n.container || n.surface ? ['container'] : []), ...(n.gettable ? [] : ['not_gettable']), ...(n.wearable ? ['wearable'] : []), ...(n.weapon ? ['wieldable'] : []), ...(n.food ? ['food'] : []), ...(n.drink ? ['drink'] : [])];
      nodes[n.id] = {
        ...common, room: false, agent: false, object: true, classes, desc: n.description, name_prefix: n.prefix,
        gettable: n.gettable, container: n.container || n.surface, surface_type: n.surface ? 'on' : 'in', wieldable: n.weapon,
        wearable: n.wearable, food: n.food, drink: n.drink, equipped: p && (p.rel === 'worn' || p.rel === 'wielded') ? true : null,
        container_node: { target_id: p?.parent ?? 'VOID' }, contain_size: n.container || n.surface ? left(n.id) : 0, size: n.size ?? DEFAULT_SIZE, food_energy: n.foodEnergy ?? DEFAULT_FOOD_ENERGY, on_use: n.onUse ? structuredClone(n.onUse) : null, dead: false,
      };
    }
  }
  const ids = (k: GraphNode['kind']) => Object.values(state.nodes).filter((n) => n.kind === k).map((n) => n.id);
  return { title: state.title, rooms: ids('room'), agents: ids('character'), objects: ids('object'), nodes };
}
