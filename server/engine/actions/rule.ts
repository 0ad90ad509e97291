/**
 * What every LIGHT graph action is made of (one action per file in this folder): its argument
 * slots, its constraints in the order they are checked, its single effect on the graph, and its
 * canonical text. Like LIGHT's graph events, a rule knows its constraints, its effect and how
 * each viewer sees it.
 */
import type { GameEvent } from '../events.js';
import type { NodeId } from '../types.js';
import type { World } from '../world.js';

export type ActionName =
  | 'get' | 'get_from' | 'drop' | 'put' | 'give' | 'steal' | 'wear' | 'wield' | 'remove' | 'eat' | 'drink' | 'hit' | 'hug'
  // LIGHT's other mechanics (its newer engine), listed only by validActions(..., { all: true })
  | 'equip' | 'ingest' | 'follow' | 'unfollow' | 'block' | 'unblock' | 'point' | 'wait' | 'examine' | 'use';

/** A slot of a command: an object (X), a character (A), a container or surface (Y), or anything one can point at. */
export type Slot = 'object' | 'target' | 'container' | 'thing' | 'with';

/** Bound arguments of an action, by role. */
export interface ActionArgs {
  /** The object acted on (X). */
  object?: NodeId;
  /** The character acted on (A). */
  target?: NodeId;
  /** The container or surface (Y). */
  container?: NodeId;
  /** For `put`: in a container or on a surface. */
  prep?: 'in' | 'on';
  /** For `point`: an object, a character or a room next door. */
  thing?: NodeId;
  /** For `use X with Y`: Y, a thing or a character here (the actor too). */
  with?: NodeId;
}

export interface Constraint {
  /** A stable name, used by tests and by failure reports ("carried", "gettable", ...). */
  id: string;
  holds(w: World, actor: NodeId, args: ActionArgs): boolean;
  /** Why it failed, in words a player understands, addressed to the actor. */
  failure(w: World, actor: NodeId, args: ActionArgs): string;
}

export interface ActionRule {
  name: ActionName;
  /** The slots a command fills, in the order they appear in canonical text. */
  slots: Slot[];
  /**
   * Not one of LIGHT's table-12 actions (the set its models and this project's corpus and model
   * characters choose from): listed by validActions only when asked for all.
   */
  extra?: boolean;
  constraints: Constraint[];
  /** Apply the effect (constraints already hold) and say how each viewer saw it. */
  apply(w: World, actor: NodeId, args: ActionArgs): GameEvent;
  /** LIGHT's canonical text: "give shovel to orc". */
  canonical(w: World, args: ActionArgs): string;
  /** Every binding worth checking for validActions: a superset of the bindings that succeed. */
  candidates(w: World, actor: NodeId): ActionArgs[];
}

export interface Failure {
  constraint: string;
  message: string;
}

/** The first constraint that fails, or null when the action can be executed. */
export function firstFailure(rule: ActionRule, w: World, actor: NodeId, args: ActionArgs): Failure | null {
  for (const c of rule.constraints) {
    if (!c.holds(w, actor, args)) return { constraint: c.id, message: c.failure(w, actor, args) };
  }
  return null;
}
