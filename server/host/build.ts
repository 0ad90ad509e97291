/**
 * Room building for admins: @dig, @describe, @link, @unlink and @create. Each parses its arguments,
 * checks them against the live World and, when they hold, changes it; a refusal changes nothing and
 * says why. Pure (no I/O): the game host logs each change with a snapshot in one transaction
 * (GameHost.logAdmin), so what builders make survives a restart, and `lightmud world export` writes it.
 *
 * Limits are the world file's (world-data/world.schema.json): names 1-80 characters, descriptions
 * 1-4000, so whatever is built can be exported as a world file that loads.
 */
import { DIRECTIONS } from '../engine/parser.js';
import type { GameEvent, NodeId, ObjectNode, RoomNode, World } from '../engine/index.js';

export const MAX_NAME = 80;
export const MAX_TEXT = 4000;

export type BuildVerb = 'dig' | 'describe' | 'link' | 'unlink' | 'create';

export const BUILD_USAGE: Record<BuildVerb, string> = {
  dig: '@dig DIRECTION NAME  (e.g. @dig north Wine Cellar; a label of several words in quotes: @dig "cellar stairs" Wine Cellar)',
  describe: '@describe here|OBJECT|CHARACTER = TEXT  (e.g. @describe here = A damp cellar.)',
  link: '@link DIRECTION ROOM  (an exit from here to a room that exists, one way; e.g. @link west Tool Shed)',
  unlink: '@unlink DIRECTION  (remove an exit from here)',
  create: '@create [object] NAME [= DESCRIPTION] [with AFFORDANCES]  (e.g. @create iron sword = A notched blade. with weapon; affordances: gettable, fixed, container, surface, weapon, wearable, food, drink; or +weapon as before)',
};

/** Affordances @create understands; `fixed` (or `not gettable`) makes a thing that cannot be taken. */
export const AFFORDANCES = ['gettable', 'fixed', 'container', 'surface', 'weapon', 'wearable', 'food', 'drink'] as const;
type Affordance = (typeof AFFORDANCES)[number];

/** The way back for a compass label. */
const OPPOSITE: Record<string, string> = {
  north: 'south', south: 'north', east: 'west', west: 'east', northeast: 'southwest', southwest: 'northeast',
  northwest: 'southeast', southeast: 'northwest', up: 'down', down: 'up', in: 'out', out: 'in',
};

export interface BuildChange {
  ok: boolean;
  /** What the builder is told. */
  text: string;
  /** The change, for the log and the others in the room (absent on a refusal). */
  event?: GameEvent;
  /** Nodes created. */
  created?: NodeId[];
}

const refuse = (text: string): BuildChange => ({ ok: false, text });
const cap = (s: string) => (s ? s[0]!.toUpperCase() + s.slice(1) : s);
const definite = (n: { name: string; prefix?: string }) => (n.prefix === '' ? n.name : `the ${n.name}`);
const article = (n: { name: string; prefix?: string }) => (n.prefix === '' ? n.name : `${n.prefix || (/^[aeiou]/i.test(n.name) ? 'an' : 'a')} ${n.name}`);

/** Control characters out, runs of space as one, trimmed. */
function clean(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
}

function checkName(what: string, name: string): string | null {
  if (!name) return `The ${what} needs a name.`;
  if (name.length > MAX_NAME) return `A ${what}'s name has at most ${MAX_NAME} characters (that one has ${name.length}).`;
  return null;
}

function checkText(text: string): string | null {
  if (!text) return 'The description is empty: write it after "=".';
  if (text.length > MAX_TEXT) return `A description has at most ${MAX_TEXT} characters (that one has ${text.length}).`;
  return null;
}

/** An exit label from what was typed: `n` is north; "cellar stairs" in quotes is one label. Returns it and the rest. */
function takeLabel(args: string): { label: string; rest: string } {
  const s = args.trim();
  const quoted = /^"([^"]*)"\s*(.*)$/.exec(s);
  if (quoted) return { label: clean(quoted[1]!).toLowerCase(), rest: quoted[2]!.trim() };
  const [first = '', ...rest] = s.split(/\s+/);
  const word = first.toLowerCase();
  return { label: DIRECTIONS[word] ?? word, rest: rest.join(' ') };
}

function slug(name: string, fallback: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || fallback;
}

function hereOf(w: World, actor: NodeId): RoomNode | null {
  const id = w.roomOf(actor);
  return id ? w.room(id) ?? null : null;
}

/** Everyone else in the room sees `text`; the builder is told `mine`. */
function seenBy(w: World, room: NodeId, actor: NodeId, text: string, mine: string): Record<string, string> {
  const seen: Record<string, string> = {};
  for (const c of w.charactersIn(room)) if (c.id !== actor) seen[c.id] = text;
  seen[actor] = mine;
  return seen;
}

/** A room by id, exact name, or unique part of a name. */
function findRoom(w: World, query: string): { ok: true; room: RoomNode } | { ok: false; message: string } {
  const q = clean(query).toLowerCase();
  if (!q) return { ok: false, message: 'Name the room (its id or its name).' };
  const rooms = w.rooms();
  const byId = rooms.find((r) => r.id === q);
  if (byId) return { ok: true, room: byId };
  const exact = rooms.filter((r) => r.name.toLowerCase() === q);
  const found = exact.length ? exact : rooms.filter((r) => r.name.toLowerCase().includes(q));
  if (found.length === 1) return { ok: true, room: found[0]! };
  if (found.length > 1) return { ok: false, message: `"${query}" could be ${found.slice(0, 6).map((r) => `${r.name} (${r.id})`).join(', ')}${found.length > 6 ? ', ...' : ''}; use the id.` };
  return { ok: false, message: `There is no room called "${query}".` };
}

export function build(w: World, actor: NodeId, verb: BuildVerb, args: string): BuildChange {
  const here = hereOf(w, actor);
  if (!here) return refuse('You are nowhere: there is nothing to build on.');
  switch (verb) {
    case 'dig': return dig(w, actor, here, args);
    case 'describe': return describe(w, actor, here, args);
    case 'link': return link(w, actor, here, args);
    case 'unlink': return unlink(w, actor, here, args);
    case 'create': return create(w, actor, here, args);
  }
}

function dig(w: World, actor: NodeId, here: RoomNode, args: string): BuildChange {
  if (!args.trim()) return refuse(`Usage: ${BUILD_USAGE.dig}.`);
  const { label, rest } = takeLabel(args);
  const name = clean(rest);
  const bad = checkName('room', name) ?? checkName('exit', label);
  if (bad) return refuse(`${bad} Usage: ${BUILD_USAGE.dig}.`);
  const taken = here.exits.find((e) => e.label.toLowerCase() === label);
  if (taken) return refuse(`There is already an exit "${taken.label}" here, to ${w.room(taken.to)?.name ?? taken.to}: @unlink ${taken.label} first, or dig another way.`);
  const back = OPPOSITE[label] ?? here.name.toLowerCase().slice(0, MAX_NAME);
  const room: RoomNode = {
    kind: 'room', id: w.newId(slug(name, 'room')), name, category: here.category,
    description: `${name}. Nothing here has been described yet.`,
    backstory: `Made by a builder, ${label} of ${here.name}.`,
    exits: [{ label: back, to: here.id }],
  };
  w.add(room);
  here.exits.push({ label, to: room.id });
  const me = w.character(actor)!;
  const mine = `You dig ${label} to a new room, ${name} (${room.id}); its way back is "${back}".`;
  const event: GameEvent = { type: 'dig', actor, room: here.id, target: room.id, seen: seenBy(w, here.id, actor, `${cap(definite(me))} opens a new way ${label}.`, mine) };
  return { ok: true, text: mine, event, created: [room.id] };
}

/** `here`, `me`, or something or someone the builder can see (by id or name); else anything by id. */
function findTarget(w: World, actor: NodeId, here: RoomNode, query: string): { ok: true; id: NodeId } | { ok: false; message: string } {
  const q = clean(query).toLowerCase();
  if (!q) return { ok: false, message: `Say what to describe. Usage: ${BUILD_USAGE.describe}.` };
  if (q === 'here' || q === 'room' || q === 'this room') return { ok: true, id: here.id };
  if (q === 'me' || q === 'myself' || q === 'self') return { ok: true, id: actor };
  const near = [...w.charactersIn(here.id), ...w.visibleFrom(actor).map((id) => w.object(id)).filter((o): o is ObjectNode => !!o)];
  const byId = near.find((n) => n.id === q) ?? (w.node(q) && w.node(q)!.kind !== 'room' ? w.node(q) : undefined);
  if (byId) return { ok: true, id: byId.id };
  const exact = near.filter((n) => n.name.toLowerCase() === q);
  const found = exact.length ? exact : near.filter((n) => n.name.toLowerCase().includes(q));
  if (found.length === 1) return { ok: true, id: found[0]!.id };
  if (found.length > 1) return { ok: false, message: `"${query}" could be ${found.slice(0, 6).map((n) => `${n.name} (${n.id})`).join(', ')}; use the id.` };
  return { ok: false, message: `You see no "${clean(query)}" here (describe "here", yourself, or a thing or character here, by name or id).` };
}

function describe(w: World, actor: NodeId, here: RoomNode, args: string): BuildChange {
  const eq = args.indexOf('=');
  if (eq < 0) return refuse(`Usage: ${BUILD_USAGE.describe}.`);
  const target = findTarget(w, actor, here, args.slice(0, eq));
  if (!target.ok) return refuse(target.message);
  const text = clean(args.slice(eq + 1));
  const bad = checkText(text);
  if (bad) return refuse(bad);
  const node = w.node(target.id)!;
  node.description = text;
  const what = node.kind === 'room' ? (node.id === here.id ? 'this room' : node.name) : node.id === actor ? 'yourself' : definite(node as { name: string; prefix: string });
  const mine = `You describe ${what}: ${text}`;
  const event: GameEvent = { type: 'describe', actor, room: here.id, target: node.id, seen: { [actor]: mine } };
  return { ok: true, text: mine, event };
}

function link(w: World, actor: NodeId, here: RoomNode, args: string): BuildChange {
  if (!args.trim()) return refuse(`Usage: ${BUILD_USAGE.link}.`);
  const { label, rest } = takeLabel(args);
  const bad = checkName('exit', label);
  if (bad) return refuse(`${bad} Usage: ${BUILD_USAGE.link}.`);
  if (!clean(rest)) return refuse(`Link ${label} to which room? Usage: ${BUILD_USAGE.link}.`);
  const found = findRoom(w, rest);
  if (!found.ok) return refuse(found.message);
  if (found.room.id === here.id) return refuse('An exit cannot lead to the room it is in.');
  const taken = here.exits.find((e) => e.label.toLowerCase() === label);
  if (taken) return refuse(`There is already an exit "${taken.label}" here, to ${w.room(taken.to)?.name ?? taken.to}: @unlink ${taken.label} first.`);
  here.exits.push({ label, to: found.room.id });
  const me = w.character(actor)!;
  const mine = `You link ${label} to ${found.room.name} (${found.room.id}); one way: link back from there if you want a way back.`;
  const event: GameEvent = { type: 'link', actor, room: here.id, target: found.room.id, seen: seenBy(w, here.id, actor, `${cap(definite(me))} opens a way ${label}.`, mine) };
  return { ok: true, text: mine, event };
}

function unlink(w: World, actor: NodeId, here: RoomNode, args: string): BuildChange {
  const { label, rest } = takeLabel(args);
  if (!label || rest) return refuse(`Usage: ${BUILD_USAGE.unlink}.`);
  const i = here.exits.findIndex((e) => e.label.toLowerCase() === label);
  if (i < 0) return refuse(`There is no exit "${label}" here. ${here.exits.length ? `Exits: ${here.exits.map((e) => e.label).join(', ')}.` : 'There is no way out of here.'}`);
  const [gone] = here.exits.splice(i, 1);
  const me = w.character(actor)!;
  const mine = `You close the way ${gone!.label} (to ${w.room(gone!.to)?.name ?? gone!.to}).`;
  const event: GameEvent = { type: 'unlink', actor, room: here.id, target: gone!.to, seen: seenBy(w, here.id, actor, `${cap(definite(me))} closes the way ${gone!.label}.`, mine) };
  return { ok: true, text: mine, event };
}

/** `[object] NAME [= DESCRIPTION] [with AFFORDANCES]`, or the older `NAME +flag +flag`. */
export function parseCreate(args: string): { ok: true; name: string; description: string | null; affordances: Set<Affordance> } | { ok: false; message: string } {
  let s = args.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim().replace(/^object\s+/i, '');
  const affordances = new Set<Affordance>();
  const unknown: string[] = [];
  const take = (word: string) => {
    const w = word.toLowerCase().replace(/^not[-_]gettable$/, 'fixed');
    if ((AFFORDANCES as readonly string[]).includes(w)) affordances.add(w as Affordance);
    else unknown.push(word);
  };
  // The older form's +flags, anywhere.
  s = s.replace(/(^|\s)\+(\S+)/g, (_m, _sp: string, flag: string) => {
    take(flag);
    return ' ';
  }).trim();
  // "with a, b and c" at the very end, when every word of it is an affordance ("a cup with handles" stays a name).
  const withAt = s.toLowerCase().lastIndexOf(' with ');
  if (withAt >= 0) {
    const words = s.slice(withAt + 6).toLowerCase().replace(/\bnot gettable\b/g, 'fixed').split(/[\s,]+|\band\b/).filter(Boolean);
    if (words.length && words.every((x) => (AFFORDANCES as readonly string[]).includes(x))) {
      for (const x of words) take(x);
      s = s.slice(0, withAt).trim();
    }
  }
  if (unknown.length) return { ok: false, message: `Unknown affordance${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')} (known: ${AFFORDANCES.join(', ')}).` };
  const eq = s.indexOf('=');
  const name = clean(eq < 0 ? s : s.slice(0, eq)).toLowerCase();
  const description = eq < 0 ? null : clean(s.slice(eq + 1));
  const bad = checkName('object', name);
  if (bad) return { ok: false, message: bad };
  if (description !== null) {
    const badText = checkText(description);
    if (badText) return { ok: false, message: badText };
  }
  if (affordances.has('fixed') && affordances.has('gettable')) return { ok: false, message: 'A thing cannot be both fixed and gettable.' };
  return { ok: true, name, description, affordances };
}

function create(w: World, actor: NodeId, here: RoomNode, args: string): BuildChange {
  const spec = parseCreate(args);
  if (!spec.ok) return refuse(`${spec.message} Usage: ${BUILD_USAGE.create}.`);
  const { name, affordances: f } = spec;
  const prefix = /^[aeiou]/.test(name) ? 'an' : 'a';
  const node: ObjectNode = {
    kind: 'object', id: w.newId(slug(name, 'thing')), name, prefix, description: spec.description ?? `You see ${prefix} ${name}.`,
    gettable: !f.has('fixed'), container: f.has('container'), surface: f.has('surface'), weapon: f.has('weapon'),
    wearable: f.has('wearable'), food: f.has('food'), drink: f.has('drink'),
  };
  w.add(node, { parent: here.id, rel: 'in' });
  const me = w.character(actor)!;
  const mine = `You create ${article(node)} (${node.id}).`;
  const event: GameEvent = { type: 'create', actor, room: here.id, object: node.id, seen: seenBy(w, here.id, actor, `${cap(definite(me))} makes ${article(node)} appear out of thin air.`, mine) };
  return { ok: true, text: mine, event, created: [node.id] };
}
