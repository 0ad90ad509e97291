/**
 * lightmud's world file format (see world-data/FORMAT.md and world-data/world.schema.json):
 * the types of a parsed file, and the pure function that validates one or more files and
 * builds a WorldState from them. No I/O here: callers pass parsed JSON and the file name.
 */
import { Ajv } from 'ajv';
import schema from '../../world-data/world.schema.json' with { type: 'json' };
import { ROOM_CATEGORIES, type CharacterNode, type GraphNode, type NodeId, type ObjectNode, type Placement, type PolicyKind, type RoomNode, type UseRule, type WorldState } from './types.js';

export interface RoomSpec { id: string; name: string; category: string; description: string; backstory: string; exits: { label: string; to: string }[] }
export interface CharacterSpec {
  id: string; name: string; prefix?: string; persona: string; description: string; room: string; policy?: PolicyKind;
  capacity?: number; dexterity?: number; pacifist?: boolean; health?: number;
}
export interface ObjectSpec {
  id: string; name: string; prefix?: string; description: string;
  gettable?: boolean; container?: boolean; surface?: boolean; weapon?: boolean; wearable?: boolean; food?: boolean; drink?: boolean;
  size?: number; capacity?: number; foodEnergy?: number; onUse?: UseRule[];
  in?: string; on?: string; carriedBy?: string; wornBy?: string; wieldedBy?: string;
}
export interface WorldFile {
  format: 'lightmud-world';
  version: 1;
  title?: string;
  start?: string;
  rooms?: RoomSpec[];
  characters?: CharacterSpec[];
  objects?: ObjectSpec[];
}

/** A problem in a world file, naming where it is. */
export interface WorldFileProblem { file: string; entity: string; field: string; message: string }

export class WorldFileError extends Error {
  constructor(readonly problems: WorldFileProblem[]) {
    super(
      `invalid world (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n` +
        problems.slice(0, 50).map((p) => `  ${p.file}: ${p.entity}: ${p.field}: ${p.message}`).join('\n') +
        (problems.length > 50 ? `\n  ... and ${problems.length - 50} more` : ''),
    );
    this.name = 'WorldFileError';
  }
}

const ajv = new Ajv({ allErrors: true, strict: false });
const validateSchema = ajv.compile(schema);
const categories = new Set(ROOM_CATEGORIES.map((c) => c.toLowerCase()));

export function defaultPrefix(name: string): string {
  return /^[aeiou]/i.test(name) ? 'an' : 'a';
}

/** Count sentences roughly: runs of text ending in . ! or ? */
export function sentenceCount(text: string): number {
  return (text.match(/[^.!?]+[.!?]+["')\]]*/g) ?? []).length;
}

function describeEntity(doc: unknown, path: string[]): { entity: string; field: string } {
  // path like ['rooms','3','exits','0','to']
  if (path.length >= 2 && ['rooms', 'characters', 'objects'].includes(path[0]!)) {
    const list = (doc as Record<string, unknown[]>)[path[0]!];
    const item = list?.[Number(path[1])] as { id?: unknown } | undefined;
    const id = typeof item?.id === 'string' ? item.id : `#${path[1]}`;
    return { entity: `${path[0]!.replace(/s$/, '')} ${id}`, field: path.slice(2).join('.') || '(entry)' };
  }
  return { entity: '(file)', field: path.join('.') || '(root)' };
}

/** Validate each file against the JSON Schema. Returns problems; empty when all are well-formed. */
export function checkSchema(files: { file: string; data: unknown }[]): WorldFileProblem[] {
  const problems: WorldFileProblem[] = [];
  for (const { file, data } of files) {
    if (!validateSchema(data)) {
      for (const err of validateSchema.errors ?? []) {
        const path = err.instancePath.split('/').slice(1);
        if (err.keyword === 'oneOf' || err.keyword === 'required' && /^(in|on|carriedBy|wornBy|wieldedBy)$/.test(String(err.params['missingProperty']))) {
          if (err.keyword === 'required') continue; // reported once through oneOf
          const { entity } = describeEntity(data, path);
          problems.push({ file, entity, field: 'location', message: 'needs exactly one of in, on, carriedBy, wornBy, wielded By'.replace('wielded By', 'wieldedBy') });
          continue;
        }
        const { entity, field } = describeEntity(data, path);
        const extra = err.keyword === 'additionalProperties' ? ` (${String(err.params['additionalProperty'])})` : '';
        const missing = err.keyword === 'required' ? `${field === '(entry)' ? '' : field + '.'}${String(err.params['missingProperty'])}` : field;
        problems.push({ file, entity, field: missing, message: `${err.message ?? 'invalid'}${extra}` });
      }
    }
  }
  return problems;
}

/**
 * Validate and build a world from one or more parsed files. Throws WorldFileError listing every
 * problem (schema, duplicate ids, dangling references, impossible placements).
 */
export function buildWorldState(files: { file: string; data: unknown }[], opts: { seed?: number } = {}): { state: WorldState; start: NodeId | null } {
  const problems = checkSchema(files);
  if (problems.length) throw new WorldFileError(problems);
  const docs = files.map((f) => ({ file: f.file, doc: f.data as WorldFile }));

  const nodes: Record<NodeId, GraphNode> = {};
  const origin = new Map<NodeId, string>();
  const placement: Record<NodeId, Placement> = {};
  let title = '';
  let start: NodeId | null = null;
  const addNode = (file: string, node: GraphNode) => {
    if (nodes[node.id]) {
      problems.push({ file, entity: `${node.kind} ${node.id}`, field: 'id', message: `duplicate id (also used in ${origin.get(node.id)})` });
      return false;
    }
    nodes[node.id] = node;
    origin.set(node.id, file);
    return true;
  };

  for (const { file, doc } of docs) {
    if (doc.title && !title) title = doc.title;
    if (doc.start && !start) start = doc.start;
    for (const r of doc.rooms ?? []) {
      if (!categories.has(r.category.toLowerCase())) {
        problems.push({ file, entity: `room ${r.id}`, field: 'category', message: `unknown category "${r.category}" (one of: ${ROOM_CATEGORIES.join(', ')})` });
      }
      const room: RoomNode = { kind: 'room', id: r.id, name: r.name, category: r.category, description: r.description, backstory: r.backstory, exits: r.exits.map((e) => ({ ...e })) };
      addNode(file, room);
    }
    for (const c of doc.characters ?? []) {
      const ch: CharacterNode = { kind: 'character', id: c.id, name: c.name, prefix: c.prefix ?? defaultPrefix(c.name), persona: c.persona, description: c.description, policy: c.policy ?? 'idle' };
      if (c.capacity !== undefined) ch.capacity = c.capacity;
      if (c.dexterity !== undefined) ch.dexterity = c.dexterity;
      if (c.pacifist) ch.pacifist = true;
      if (c.health !== undefined) ch.health = c.health;
      addNode(file, ch);
    }
    for (const o of doc.objects ?? []) {
      const obj: ObjectNode = {
        kind: 'object', id: o.id, name: o.name, prefix: o.prefix ?? defaultPrefix(o.name), description: o.description,
        gettable: o.gettable ?? true, container: o.container ?? false, surface: o.surface ?? false, weapon: o.weapon ?? false,
        wearable: o.wearable ?? false, food: o.food ?? false, drink: o.drink ?? false,
      };
      if (o.size !== undefined) obj.size = o.size;
      if (o.capacity !== undefined) obj.capacity = o.capacity;
      if (o.foodEnergy !== undefined) obj.foodEnergy = o.foodEnergy;
      if (o.onUse?.length) obj.onUse = structuredClone(o.onUse);
      addNode(file, obj);
    }
  }

  // References and placements, checked once every node is known.
  for (const { file, doc } of docs) {
    for (const r of doc.rooms ?? []) {
      const seen = new Set<string>();
      r.exits.forEach((e, i) => {
        if (nodes[e.to]?.kind !== 'room') problems.push({ file, entity: `room ${r.id}`, field: `exits.${i}.to`, message: `"${e.to}" is not a room` });
        if (e.to === r.id) problems.push({ file, entity: `room ${r.id}`, field: `exits.${i}.to`, message: 'an exit cannot lead to its own room' });
        const key = e.label.toLowerCase();
        if (seen.has(key)) problems.push({ file, entity: `room ${r.id}`, field: `exits.${i}.label`, message: `duplicate exit label "${e.label}"` });
        seen.add(key);
      });
    }
    for (const c of doc.characters ?? []) {
      if (nodes[c.room]?.kind !== 'room') problems.push({ file, entity: `character ${c.id}`, field: 'room', message: `"${c.room}" is not a room` });
      else if (origin.get(c.id) === file) placement[c.id] = { parent: c.room, rel: 'in' };
    }
    for (const o of doc.objects ?? []) {
      const entity = `object ${o.id}`;
      const [field, parent] = (['in', 'on', 'carriedBy', 'wornBy', 'wieldedBy'] as const).map((f) => [f, o[f]] as const).find(([, v]) => v !== undefined)!;
      const target = nodes[parent!];
      const fail = (message: string) => problems.push({ file, entity, field, message });
      if (!target) { fail(`"${parent}" does not exist`); continue; }
      if (parent === o.id) { fail('an object cannot hold itself'); continue; }
      const self = nodes[o.id] as ObjectNode;
      switch (field) {
        case 'in':
          if (target.kind === 'room') placement[o.id] = { parent: parent!, rel: 'in' };
          else if (target.kind === 'object' && target.container) placement[o.id] = { parent: parent!, rel: 'in' };
          else fail(`"${parent}" is not a room or a container`);
          break;
        case 'on':
          if (target.kind === 'object' && target.surface) placement[o.id] = { parent: parent!, rel: 'on' };
          else fail(`"${parent}" is not a surface`);
          break;
        case 'carriedBy':
          if (target.kind !== 'character') fail(`"${parent}" is not a character`);
          else if (!self.gettable) fail('only gettable objects can be carried');
          else placement[o.id] = { parent: parent!, rel: 'carried' };
          break;
        case 'wornBy':
          if (target.kind !== 'character') fail(`"${parent}" is not a character`);
          else if (!self.wearable) fail('only wearable objects can be worn');
          else placement[o.id] = { parent: parent!, rel: 'worn' };
          break;
        case 'wieldedBy':
          if (target.kind !== 'character') fail(`"${parent}" is not a character`);
          else if (!self.weapon) fail('only weapons can be wielded');
          else placement[o.id] = { parent: parent!, rel: 'wielded' };
          break;
      }
    }
  }
  // Containment cycles (a box in a bag in the box).
  for (const id of Object.keys(placement)) {
    const seen = new Set<NodeId>([id]);
    let cur = placement[id];
    while (cur) {
      if (seen.has(cur.parent)) {
        problems.push({ file: origin.get(id)!, entity: `object ${id}`, field: 'location', message: 'containment cycle' });
        break;
      }
      seen.add(cur.parent);
      cur = placement[cur.parent];
    }
  }
  if (start !== null && nodes[start]?.kind !== 'room') problems.push({ file: docs[0]?.file ?? '(world)', entity: '(file)', field: 'start', message: `"${start}" is not a room` });
  if (problems.length) throw new WorldFileError(problems);
  return {
    state: { title: title || 'Untitled world', nodes, placement, rngState: (opts.seed ?? 1) >>> 0, nextId: 1 },
    start,
  };
}
