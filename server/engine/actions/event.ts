import { seenInRoom, type GameEvent, type Views } from '../events.js';
import type { NodeId } from '../types.js';
import type { World } from '../world.js';
import type { ActionArgs } from './rule.js';

/** Make the event of an action that happened in the actor's room. */
export function actionEvent(w: World, type: string, actor: NodeId, args: ActionArgs, action: string, views: Views): GameEvent {
  const room = w.roomOf(actor)!;
  const ev: GameEvent = { type, actor, room, action, seen: seenInRoom(w, room, actor, views, args.target) };
  if (args.target) ev.target = args.target;
  if (args.object) ev.object = args.object;
  if (args.container) ev.container = args.container;
  return ev;
}
