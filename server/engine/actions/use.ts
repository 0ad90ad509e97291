/**
 * use X with Y — LIGHT's UseEvent: X an object the actor holds (carried, worn or wielded) that has
 * uses (LIGHT's on_use); Y a thing or a character here (at any depth, the actor too). Effect: the
 * first of X's uses whose constraints hold (and that has uses left) happens: its messages are told,
 * objects are made, Y's health, dexterity or size change (at 0 health Y dies), and one use is spent.
 * When none applies: "Nothing special seems to happen.", told to the actor only, as in LIGHT.
 * Data-driven, the subset of LIGHT's on_use that its maps use (types.ts: UseRule).
 */
import { seenInRoom } from '../events.js';
import { healthOf, otherCondition, selfCondition } from '../health.js';
import { MAX_HEALTH, type NodeId, type ObjectNode, type Relation, type UseConstraint, type UseEffect, type UseObjectSpec, type UseRule } from '../types.js';
import type { World } from '../world.js';
import { aOf, cname, DEFAULT_SIZE, The, theOf, whereInstead } from './common.js';
import type { ActionArgs, ActionRule } from './rule.js';

/** What the actor can use something with: the things and people here, at any depth, itself too. */
export function usableWith(w: World, actor: NodeId): NodeId[] {
  return w.visibleFrom(actor).filter((id) => w.object(id) || w.character(id));
}

const held = (w: World, actor: NodeId, id: NodeId | undefined): boolean => {
  const p = id ? w.placement(id) : undefined;
  return !!p && p.parent === actor && (p.rel === 'carried' || p.rel === 'worn' || p.rel === 'wielded');
};

/** A number from LIGHT's data ("40", 40, "inf"). */
const usesLeft = (r: UseRule): number => (r.remaining_uses === undefined || r.remaining_uses === 'inf' ? Infinity : Number(r.remaining_uses));

/** Y's value of a LIGHT attribute, where this engine has it. */
function attribute(w: World, id: NodeId, key: string): number | undefined {
  const c = w.character(id);
  if (c) return key === 'health' ? healthOf(c) : key === 'dexterity' ? c.dexterity ?? 0 : undefined;
  const o = w.object(id);
  return o && key === 'size' ? o.size ?? DEFAULT_SIZE : undefined;
}

function holds(w: World, actor: NodeId, y: NodeId, c: UseConstraint): boolean {
  switch (c.type) {
    case 'is_holding': return true; // use needs X held
    case 'used_with_item_name': return w.node(y)?.name.toLowerCase() === String(c.params.item).toLowerCase();
    case 'used_with_agent': return !!w.character(y);
    case 'in_room': return w.room(w.roomOf(actor)!)!.name.toLowerCase() === String(c.params.room_name).toLowerCase();
    case 'attribute_compare_value': {
      const v = attribute(w, y, c.params.key);
      if (v === undefined) return false;
      const list = String(c.params.list).replace(/^\[|\]$/g, '').split(',').map((s) => Number(s.trim())).filter((n) => Number.isFinite(n));
      const cmp = { eq: (b: number) => v === b, neq: (b: number) => v !== b, greater: (b: number) => v > b, geq: (b: number) => v >= b, less: (b: number) => v < b, leq: (b: number) => v <= b }[c.params.cmp_type];
      return !!cmp && list.some(cmp);
    }
    default: return false; // a constraint this engine does not know never holds
  }
}

const on = (v: unknown) => v === true || (typeof v === 'number' && v !== 0) || v === 'true';
const flag = (o: UseObjectSpec, names: string[], dflt: boolean) => {
  for (const n of names) if (n in o && o[n] !== null && o[n] !== undefined) return on(o[n]);
  return dflt;
};

/** A new object from LIGHT's object dict, placed where the use says. */
function create(w: World, actor: NodeId, x: NodeId, y: NodeId, where: string, spec: UseObjectSpec): NodeId {
  const name = String(spec.name).trim();
  const container = flag(spec, ['container', 'is_container'], false);
  const surface = container && (spec['surface_type'] === undefined || spec['surface_type'] === 'on') && !('is_surface' in spec && !on(spec['is_surface']));
  const o: ObjectNode = {
    kind: 'object', id: w.newId(name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'thing'), name,
    prefix: typeof spec['name_prefix'] === 'string' ? spec['name_prefix'] : /^[aeiou]/i.test(name) ? 'an' : 'a',
    description: typeof spec['desc'] === 'string' ? spec['desc'] : '',
    gettable: flag(spec, ['gettable', 'is_gettable'], true), container: container && !surface, surface,
    weapon: flag(spec, ['wieldable', 'is_weapon', 'weapon'], false), wearable: flag(spec, ['wearable', 'is_wearable'], false),
    food: flag(spec, ['food', 'is_food'], false), drink: flag(spec, ['drink', 'is_drink'], false),
  };
  const room = w.roomOf(actor)!;
  let parent: NodeId = room;
  let rel: Relation = 'in';
  if (where === 'in_actor') [parent, rel] = [actor, 'carried'];
  else if (where === 'in_used_item') [parent, rel] = [x, w.object(x)!.surface ? 'on' : 'in'];
  else if (where === 'in_used_target_item') [parent, rel] = w.character(y) ? [y, 'carried'] : [y, w.object(y)!.surface ? 'on' : 'in'];
  w.add(o, { parent, rel });
  return o.id;
}

/** "+2" adds, "-20" takes away, "=3" sets; the result rounded, health within 0..MAX_HEALTH. */
function modify(w: World, y: NodeId, key: string, value: string): void {
  const now = attribute(w, y, key);
  if (now === undefined) return; // an attribute this engine does not keep
  const v = String(value).trim();
  const n = Number(v.replace(/^[+=]/, ''));
  if (!Number.isFinite(n)) return;
  const next = Math.round(v.startsWith('+') || v.startsWith('-') ? now + n : n);
  if (key === 'health') w.setHealth(y, Math.max(0, Math.min(MAX_HEALTH, next)));
  else if (key === 'dexterity') w.character(y)!.dexterity = next;
  else w.object(y)!.size = Math.max(0, next);
}

export const use: ActionRule = {
  name: 'use',
  slots: ['object', 'with'],
  extra: true,
  constraints: [
    {
      id: 'held',
      holds: (w, actor, x) => held(w, actor, x.object),
      failure: (w, actor, x) => whereInstead(w, actor, x.object),
    },
    {
      id: 'same_room',
      holds: (w, actor, x) => !!x.with && usableWith(w, actor).includes(x.with),
      failure: (w, _a, x) => `You don't see ${theOf(w, x.with)} here.`,
    },
    {
      id: 'usable',
      holds: (w, _a, x) => !!w.object(x.object!)?.onUse?.length,
      failure: () => 'Nothing special seems to happen.',
    },
  ],
  apply(w, actor, x) {
    const room = w.roomOf(actor)!;
    const X = x.object!;
    const Y = x.with!;
    const canonical = this.canonical(w, x);
    const rules = w.object(X)!.onUse!;
    const rule = rules.find((r) => usesLeft(r) > 0 && r.constraints.every((c) => holds(w, actor, Y, c)));
    if (!rule) return { type: 'use', actor, room, object: X, action: canonical, seen: { [actor]: 'Nothing special seems to happen.' } };
    if (rule.remaining_uses !== undefined && rule.remaining_uses !== 'inf') rule.remaining_uses = usesLeft(rule) - 1;
    // names as they were before anything changed
    const yIsChar = !!w.character(Y);
    const target = yIsChar && Y !== actor ? Y : undefined;
    const theY = theOf(w, Y);
    const theX = theOf(w, X);
    const Me = The(w, actor);
    const beforeHealth = yIsChar ? healthOf(w.character(Y)!) : undefined;
    const said: { actor: string[]; target: string[]; others: string[] } = { actor: [], target: [], others: [] };
    const fill = (text: string | undefined, viewer: 'actor' | 'target' | 'others') =>
      text === undefined ? undefined : text
        .replace(/\{actor_text\}/g, viewer === 'actor' ? 'you' : Me)
        .replace(/\{recipient_text\}/g, viewer === 'target' || (viewer === 'actor' && Y === actor) ? 'you' : theY)
        .replace(/(^|[.!?]\s+)(\p{Ll})/gu, (_m, pre: string, c: string) => pre + c.toUpperCase())
        .trim();
    for (const e of rule.events as UseEffect[]) {
      if (e.type === 'broadcast_message') {
        const m = e.params ?? {};
        for (const t of [fill(m.self_view, 'actor'), fill(Y === actor ? m.self_as_target_view : m.self_not_target_view, 'actor')]) if (t) said.actor.push(t);
        const forTarget = fill(m.self_as_target_view ?? m.room_view, 'target');
        if (forTarget) said.target.push(forTarget);
        const forOthers = fill(m.self_not_target_view ?? m.room_view, 'others');
        if (forOthers) said.others.push(forOthers);
      } else if (e.type === 'create_entity') {
        if (e.params?.object?.name) create(w, actor, X, Y, e.params.type, e.params.object);
      } else if (e.type === 'modify_attribute') {
        if (e.params?.key && e.params.value !== undefined) modify(w, Y, e.params.key, e.params.value);
      }
    }
    // how Y now feels and looks, when a use changed its health (LIGHT's health event to the two of them)
    const c = yIsChar ? w.character(Y) : undefined;
    if (c && beforeHealth !== undefined && healthOf(c) !== beforeHealth && healthOf(c) > 0) {
      if (Y === actor) said.actor.push(selfCondition(c));
      else {
        said.actor.push(otherCondition(c));
        said.target.push(selfCondition(c));
      }
    }
    const withWhat = (whom: string) => `with ${whom}`;
    const seen = seenInRoom(w, room, actor, {
      actor: said.actor.join(' ') || `You use ${theX} ${withWhat(Y === actor ? 'yourself' : theY)}.`,
      target: said.target.join(' ') || `${Me} uses ${aOf(w, X)} ${withWhat('you')}.`,
      others: said.others.join(' ') || `${Me} uses ${aOf(w, X)} ${withWhat(Y === actor ? 'themself' : theY)}.`,
    }, target);
    const ev: ReturnType<ActionRule['apply']> = { type: 'use', actor, room, object: X, action: canonical, seen };
    if (yIsChar) ev.target = Y;
    else ev.container = Y;
    return ev;
  },
  canonical: (w, x) => `use ${cname(w, x.object)} with ${cname(w, x.with)}`,
  candidates(w, actor) {
    const out: ActionArgs[] = [];
    const tools = w.objectsIn(actor).filter((o) => o.onUse?.length && held(w, actor, o.id));
    if (!tools.length) return out;
    const pool = usableWith(w, actor);
    for (const t of tools) for (const y of pool) out.push({ object: t.id, with: y });
    return out;
  },
};
