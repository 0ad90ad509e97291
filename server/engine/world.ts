/**
 * The world graph with its indexes: read access for rules and views, and the few primitive
 * mutations rules use (move, destroy). Pure in-memory data; cloneable and serialisable.
 */
import { nextRandom } from './rng.js';
import type { CharacterNode, GraphNode, NodeId, ObjectNode, Placement, Relation, RoomNode, WorldState } from './types.js';

export class World {
  private state: WorldState;
  /** parent id -> child ids, in placement order. Rebuilt on load; kept in step by move/destroy. */
  private kids = new Map<NodeId, NodeId[]>();
  /**
   * The characters in node order, kept until a node is added or destroyed: rules that look at every
   * character (who blocks a mover, on each go) would otherwise scan every node of a large world.
   */
  private characterList: CharacterNode[] | null = null;

  constructor(state: WorldState) {
    this.state = state;
    for (const [id, p] of Object.entries(state.placement)) this.childList(p.parent).push(id);
  }

  static fromJSON(json: string | WorldState): World {
    const state = typeof json === 'string' ? (JSON.parse(json) as WorldState) : structuredClone(json);
    return new World(state);
  }

  toJSON(): WorldState {
    return structuredClone(this.state);
  }

  /** The state as JSON text, as `JSON.stringify(world.toJSON())` without the copy (a snapshot of a large world). */
  serialize(): string {
    return JSON.stringify(this.state);
  }

  clone(): World {
    return new World(structuredClone(this.state));
  }

  /**
   * A copy of one room and everything in it, nothing else: for trying out actions in that room
   * (a character's plan) without copying a large world. Exits still name rooms the copy lacks.
   */
  cloneRoom(room: NodeId): World {
    const nodes: Record<NodeId, GraphNode> = {};
    const placement: Record<NodeId, Placement> = {};
    const roomNode = this.state.nodes[room];
    if (roomNode) nodes[room] = structuredClone(roomNode);
    // parents before their children, each parent's children in their order
    const queue = [room];
    for (let i = 0; i < queue.length; i++) {
      for (const id of this.kids.get(queue[i]!) ?? []) {
        nodes[id] = structuredClone(this.state.nodes[id]!);
        placement[id] = { ...this.state.placement[id]! };
        queue.push(id);
      }
    }
    return new World({ title: this.state.title, nodes, placement, rngState: this.state.rngState, nextId: this.state.nextId });
  }

  get title(): string {
    return this.state.title;
  }

  // ---- reading -------------------------------------------------------------------------------

  node(id: NodeId): GraphNode | undefined {
    return this.state.nodes[id];
  }

  has(id: NodeId): boolean {
    return id in this.state.nodes;
  }

  room(id: NodeId): RoomNode | undefined {
    const n = this.state.nodes[id];
    return n?.kind === 'room' ? n : undefined;
  }

  character(id: NodeId): CharacterNode | undefined {
    const n = this.state.nodes[id];
    return n?.kind === 'character' ? n : undefined;
  }

  object(id: NodeId): ObjectNode | undefined {
    const n = this.state.nodes[id];
    return n?.kind === 'object' ? n : undefined;
  }

  nodes(): GraphNode[] {
    return Object.values(this.state.nodes);
  }

  rooms(): RoomNode[] {
    return this.nodes().filter((n): n is RoomNode => n.kind === 'room');
  }

  characters(): CharacterNode[] {
    this.characterList ??= this.nodes().filter((n): n is CharacterNode => n.kind === 'character');
    return [...this.characterList];
  }

  objects(): ObjectNode[] {
    return this.nodes().filter((n): n is ObjectNode => n.kind === 'object');
  }

  placement(id: NodeId): Placement | undefined {
    return this.state.placement[id];
  }

  /** Direct children of a node, in placement order, optionally with one relation. */
  children(id: NodeId, rel?: Relation): NodeId[] {
    const list = this.kids.get(id) ?? [];
    return rel ? list.filter((c) => this.state.placement[c]?.rel === rel) : [...list];
  }

  /** The room a node is in, however deeply (a ring in a box carried by someone in the tavern). */
  roomOf(id: NodeId): NodeId | undefined {
    let cur: NodeId = id;
    for (let guard = 0; guard < 1000; guard++) {
      const n = this.state.nodes[cur];
      if (!n) return undefined;
      if (n.kind === 'room') return cur;
      const p = this.state.placement[cur];
      if (!p) return undefined;
      cur = p.parent;
    }
    return undefined;
  }

  /** The character holding a node (carried/worn/wielded at the top of its chain), if any. */
  holderOf(id: NodeId): NodeId | undefined {
    let cur = this.state.placement[id];
    while (cur) {
      const parent = this.state.nodes[cur.parent];
      if (parent?.kind === 'character') return parent.id;
      if (parent?.kind === 'room') return undefined;
      cur = this.state.placement[cur.parent];
    }
    return undefined;
  }

  /** Is `id` inside `ancestor` (at any depth)? */
  isInside(id: NodeId, ancestor: NodeId): boolean {
    let cur = this.state.placement[id];
    while (cur) {
      if (cur.parent === ancestor) return true;
      cur = this.state.placement[cur.parent];
    }
    return false;
  }

  charactersIn(room: NodeId): CharacterNode[] {
    return this.children(room).map((c) => this.state.nodes[c]).filter((n): n is CharacterNode => n?.kind === 'character');
  }

  objectsIn(parent: NodeId, rel?: Relation): ObjectNode[] {
    return this.children(parent, rel).map((c) => this.state.nodes[c]).filter((n): n is ObjectNode => n?.kind === 'object');
  }

  /** Rooms one exit away. */
  neighbours(room: NodeId): NodeId[] {
    return [...new Set(this.room(room)?.exits.map((e) => e.to) ?? [])];
  }

  /**
   * Everything a character can perceive and name: the room, the people in it, objects in the
   * room at any depth (in containers, on surfaces, held by anyone present), and its own things.
   */
  visibleFrom(actor: NodeId): NodeId[] {
    const room = this.roomOf(actor);
    if (!room) return [];
    const out: NodeId[] = [];
    const walk = (id: NodeId) => {
      for (const c of this.children(id)) {
        out.push(c);
        walk(c);
      }
    };
    walk(room);
    return out;
  }

  // ---- randomness ----------------------------------------------------------------------------

  /** A deterministic random number in [0, 1) that advances the world's seeded state. */
  random(): number {
    const r = nextRandom(this.state.rngState);
    this.state.rngState = r.state;
    return r.value;
  }

  // ---- mutation ------------------------------------------------------------------------------

  /** Place a node under a new parent (re-inserted last among its siblings). */
  move(id: NodeId, parent: NodeId, rel: Relation): void {
    const old = this.state.placement[id];
    if (old) this.detach(id, old.parent);
    delete this.state.placement[id];
    this.state.placement[id] = { parent, rel };
    this.childList(parent).push(id);
  }

  /** Remove a node from the world. Its contents go where it was (a drained wineskin's cork falls out). */
  destroy(id: NodeId): void {
    const p = this.state.placement[id];
    for (const child of this.children(id)) {
      if (p) this.move(child, p.parent, p.rel === 'on' || p.rel === 'in' ? p.rel : 'carried');
      else delete this.state.placement[child];
    }
    if (p) this.detach(id, p.parent);
    delete this.state.placement[id];
    delete this.state.nodes[id];
    this.kids.delete(id);
    this.characterList = null;
  }

  /** Make a character follow another, or no one (LIGHT's follow / unfollow). */
  setFollowing(id: NodeId, leader: NodeId | undefined): void {
    const c = this.character(id);
    if (!c) return;
    if (leader === undefined) delete c.following;
    else c.following = leader;
  }

  /** Make a character block another, or no one (LIGHT's block / unblock). */
  setBlocking(id: NodeId, blocked: NodeId | undefined): void {
    const c = this.character(id);
    if (!c) return;
    if (blocked === undefined) delete c.blocking;
    else c.blocking = blocked;
  }

  /** Set a character's health (hit's harm). */
  setHealth(id: NodeId, health: number): void {
    const c = this.character(id);
    if (c) c.health = health;
  }

  /** Take a node out of the world without destroying it (it keeps its own contents). */
  unplace(id: NodeId): void {
    const p = this.state.placement[id];
    if (!p) return;
    this.detach(id, p.parent);
    delete this.state.placement[id];
  }

  /** Add a node created at run time (admin `create`, imports). */
  add(node: GraphNode, where?: Placement): void {
    if (this.state.nodes[node.id]) throw new Error(`node ${node.id} already exists`);
    this.state.nodes[node.id] = node;
    this.characterList = null;
    if (where) this.move(node.id, where.parent, where.rel);
  }

  /** A fresh id for a node created at run time. */
  newId(base: string): NodeId {
    let id: NodeId;
    do id = `${base}-${this.state.nextId++}`;
    while (this.state.nodes[id]);
    return id;
  }

  private childList(parent: NodeId): NodeId[] {
    let list = this.kids.get(parent);
    if (!list) this.kids.set(parent, (list = []));
    return list;
  }

  private detach(id: NodeId, parent: NodeId): void {
    const list = this.kids.get(parent);
    if (!list) return;
    const i = list.indexOf(id);
    if (i >= 0) list.splice(i, 1);
  }
}
