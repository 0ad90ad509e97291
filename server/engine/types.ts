/**
 * The world graph's types. Rooms, characters and objects are nodes; containment
 * and exits are edges. These types are shared by the engine, the server, the
 * stores and the clients, so they contain plain data only.
 */

export type NodeId = string;

/** LIGHT's location categories (Urbanek et al., 2019), compared case-insensitively. */
export const ROOM_CATEGORIES = [
  'Inside Castle', 'Outside Castle', 'Inside Church', 'Outside Church', 'Inside Tower', 'Outside Tower',
  'Inside Palace', 'Outside Palace', 'Inside Temple', 'Outside Temple', 'Inside Cottage', 'Outside Cottage',
  'Forest', 'Bazaar', 'Port', 'Countryside', 'Farm', 'Town', 'Cave', 'Frozen Tundra', 'Mountain', 'Desert',
  'Netherworld', 'Shore', 'Lake', 'Underwater Aquapolis', 'Graveyard', 'Dungeon', 'Swamp', 'Trail',
  'Magical Realm', 'Jungle', 'Abandoned', 'Tavern', 'Wasteland', 'City in the Clouds', 'Supernatural',
] as const;

export interface Exit {
  /** What the player sees and types: "north", "path to the west", "the cellar stairs". */
  label: string;
  /** The room this exit leads to. */
  to: NodeId;
}

export interface RoomNode {
  kind: 'room';
  id: NodeId;
  name: string;
  category: string;
  description: string;
  backstory: string;
  exits: Exit[];
}

/** How a character is driven. */
export type PolicyKind = 'idle' | 'human' | 'model' | 'scripted';

export interface CharacterNode {
  kind: 'character';
  id: NodeId;
  name: string;
  /** Article used before the name: "a", "an", "the", or "" for proper names. */
  prefix: string;
  /** 3-5 first-person sentences. */
  persona: string;
  /** Second-person description ("You see a..." is not required; any prose addressed to the viewer). */
  description: string;
  policy: PolicyKind;
  /** Whom it follows (LIGHT's follow): when they leave a room it is in, it goes after them. */
  following?: NodeId;
  /** Whom it blocks (LIGHT's block): while they share a room, it may stop them leaving. */
  blocking?: NodeId;
  /** How much it can hold, worn and wielded things included (LIGHT's contain_size); absent: 20. */
  capacity?: number;
  /** LIGHT's dexterity, for steal's roll; absent on both thief and victim: no roll (steal always works). */
  dexterity?: number;
  /** LIGHT's pacifist: it cannot hit. */
  pacifist?: boolean;
  /**
   * Health points, as LIGHT's agents have them: `hit` takes some away, and at 0 the character dies.
   * Absent means DEFAULT_HEALTH (LIGHT's default, 6); written only once it differs or was given.
   */
  health?: number;
}

/** A character's health when its world gives none (LIGHT's GraphAgent default). */
export const DEFAULT_HEALTH = 6;
/** The most health a character can have (a world file's limit); eating stops there. */
export const MAX_HEALTH = 1000;
/** What food or drink gives when its world says nothing (LIGHT's GraphObject default). */
export const DEFAULT_FOOD_ENERGY = 1;

/** Object affordances, as in LIGHT: what can be done with an object. */
export interface Affordances {
  gettable: boolean;
  /** Things can be put in it. */
  container: boolean;
  /** Things can be put on it. */
  surface: boolean;
  /** It can be wielded. */
  weapon: boolean;
  wearable: boolean;
  food: boolean;
  drink: boolean;
}

export interface ObjectNode extends Affordances {
  kind: 'object';
  id: NodeId;
  name: string;
  prefix: string;
  description: string;
  /** How much room it takes in a container or a character (LIGHT's size); absent: 1. */
  size?: number;
  /** For a container or surface: how much it holds (LIGHT's contain_size); absent: 20. */
  capacity?: number;
  /**
   * For food and drink: the health it gives the one who eats or drinks it (LIGHT's food_energy);
   * below 0 it is poisoned and takes health away (at 0 health the eater dies). Absent: 1, LIGHT's default.
   */
  foodEnergy?: number;
  /** LIGHT's on_use: what `use X with Y` does with this object (the subset LIGHT's maps use; see UseRule). */
  onUse?: UseRule[];
}

/**
 * One of an object's uses, as LIGHT's on_use entries are written (its JSON field names): when every
 * constraint holds, its events happen in order, and a use is spent. The first entry that applies wins.
 */
export interface UseRule {
  constraints: UseConstraint[];
  events: UseEffect[];
  /** How many times it can still happen ("inf" or absent: always). */
  remaining_uses?: number | 'inf';
}

export type UseConstraint =
  /** The used object is held by the actor (always true here: use needs it held). */
  | { type: 'is_holding'; params?: { complement?: string } }
  /** Y's name is exactly this. */
  | { type: 'used_with_item_name'; params: { item: string } }
  /** Y is a character. */
  | { type: 'used_with_agent'; params?: Record<string, never> }
  /** The actor's room is called this. */
  | { type: 'in_room'; params: { room_name: string } }
  /** Y's attribute (health or dexterity) compares so with one of the listed numbers ("[0]"). */
  | { type: 'attribute_compare_value'; params: { type?: 'in_used_target_item'; key: string; cmp_type: 'eq' | 'neq' | 'greater' | 'geq' | 'less' | 'leq'; list: string } };

/** What a new object made by a use is (LIGHT's object dict: name, name_prefix, desc, and is_* flags or plain ones). */
export type UseObjectSpec = Record<string, unknown> & { name: string };

export type UseEffect =
  /**
   * What each viewer is told. {actor_text} and {recipient_text} are the actor and Y as each viewer
   * names them ("you" for themselves). self_view: the actor; then self_as_target_view (the actor
   * when it used X on itself, and Y when Y is someone else), or self_not_target_view (the actor and
   * the others, of Y); room_view: the others when there is no self_not_target_view.
   */
  | { type: 'broadcast_message'; params: { self_view?: string; self_as_target_view?: string; self_not_target_view?: string; room_view?: string } }
  /** A new object, carried by the actor (in_actor), in the room (in_room), in X (in_used_item) or in / held by Y (in_used_target_item). */
  | { type: 'create_entity'; params: { type: 'in_actor' | 'in_room' | 'in_used_item' | 'in_used_target_item'; object: UseObjectSpec } }
  /** Y's health or dexterity (a character) or size (an object) changes: "+2", "-20", "=3". */
  | { type: 'modify_attribute'; params: { type: 'in_used_target_item'; key: string; value: string } };

export type GraphNode = RoomNode | CharacterNode | ObjectNode;

/**
 * How a node is held by its parent.
 *  - in: a character or object in a room, or an object inside a container
 *  - on: an object on a surface
 *  - carried / worn / wielded: an object held by a character
 */
export type Relation = 'in' | 'on' | 'carried' | 'worn' | 'wielded';

export interface Placement {
  parent: NodeId;
  rel: Relation;
}

/** The whole serialisable state of a world. Plain JSON; `World` wraps it with indexes. */
export interface WorldState {
  title: string;
  nodes: Record<NodeId, GraphNode>;
  /**
   * Where every non-room node is. Rooms have no placement. Key order is meaningful:
   * a node that moves is re-inserted at the end, so children list oldest first.
   */
  placement: Record<NodeId, Placement>;
  /** Seeded random state (mulberry32), so clones and reloads stay deterministic. */
  rngState: number;
  /** Counter for ids of nodes created at run time. */
  nextId: number;
}
