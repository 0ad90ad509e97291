/**
 * The rules entry point: execute one line of a character's input against a world, and list the
 * actions a character can take. Pure: it reads and changes the World and returns events; it does
 * no I/O. A command that fails changes nothing and says why.
 */
import { ACTIONS, firstFailure, type ActionArgs, type ActionName, type ActionRule, type Failure, type Slot } from './actions/index.js';
import { blockerOf } from './actions/block.js';
import { examinable } from './actions/examine.js';
import { usableWith } from './actions/use.js';
import { pointable } from './actions/point.js';
import { emoteTargetPhrase, emoteThirdPerson, type Emote } from './emotes.js';
import { seenInRoom, type GameEvent } from './events.js';
import { bodyOf, die, otherCondition, selfCondition } from './health.js';
import { helpText } from './help.js';
import { capitalize, listing, the } from './names.js';
import { DIRECTIONS, parse, type ActionSlots, type Intent } from './parser.js';
import { distinctNames, exactName, matchScore, namesExactly, parsePhrase, resolve } from './resolve.js';
import type { NodeId } from './types.js';
import { exitsLine, inventory, listObjects, look, lookToward, score } from './views.js';
import type { World } from './world.js';

export interface Outcome {
  /** The command was understood and carried out (look / examine / inventory count when answered). */
  ok: boolean;
  /** What the actor perceives in reply. */
  text: string;
  /** What happened, with each viewer's perception. Empty when nothing happened. */
  events: GameEvent[];
  /** For graph actions that succeeded: LIGHT's canonical text. */
  action?: string;
  /** When the command failed a rule: which constraint. */
  failed?: string;
  /**
   * The command that ran, when it is not what was typed: `again` / `!` run the last command. A log
   * that must replay exactly records this, not "again".
   */
  input?: string;
}

export const MAX_INPUT_LENGTH = 1000;
export const MAX_SPEECH_LENGTH = 500;

const fail = (text: string, failed?: string): Outcome => (failed ? { ok: false, text, events: [], failed } : { ok: false, text, events: [] });

/** Strip control characters and invalid text; keep printable Unicode. */
export function sanitiseInput(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\ufffd]/g, '').replace(/[\r\n\t]+/g, ' ');
}

/**
 * Each character's last command, for `again` / `!`. Kept beside the world, not in its state: it is
 * not part of the graph, a clone starts without it, and a failed command still changes nothing.
 */
const lastCommands = new WeakMap<World, Map<NodeId, string>>();
const AGAIN = /^\s*(again|!)\s*$/i;

export function execute(world: World, actor: NodeId, input: string): Outcome {
  const me = world.character(actor);
  if (!me) return fail(bodyOf(world, actor) ? 'You are dead; you cannot act.' : `There is no character "${actor}".`);
  if (!world.roomOf(actor)) return fail('You are nowhere; you cannot act.');
  if (input.length > MAX_INPUT_LENGTH) return fail(`That command is too long (${input.length} characters; the limit is ${MAX_INPUT_LENGTH}).`);
  let memory = lastCommands.get(world);
  if (!memory) lastCommands.set(world, (memory = new Map()));
  if (AGAIN.test(input)) {
    const last = memory.get(actor);
    if (last === undefined) return fail('There is nothing to do again yet.');
    return { ...executeIntent(world, actor, parse(sanitiseInput(last))), input: last };
  }
  if (input.trim()) memory.set(actor, input);
  const intent = parse(sanitiseInput(input));
  return executeIntent(world, actor, intent);
}

export function executeIntent(world: World, actor: NodeId, intent: Intent): Outcome {
  switch (intent.kind) {
    case 'action': return doAction(world, actor, intent.action, intent.options);
    case 'equip': return doAction(world, actor, 'equip', [{ object: intent.object }]);
    case 'look': return { ok: true, text: look(world, actor), events: [] };
    case 'inventory': return { ok: true, text: inventory(world, actor), events: [] };
    case 'score': return { ok: true, text: score(world, actor), events: [] };
    case 'health': return doHealth(world, actor, intent.who);
    case 'examine': return doExamine(world, actor, intent.what);
    case 'go': return doGo(world, actor, intent.where);
    case 'say': return doSay(world, actor, intent.text);
    case 'tell': return doTell(world, actor, intent.who, intent.text, intent.whisper, intent.line);
    case 'shout': return doShout(world, actor, intent.text);
    case 'emote': return doEmote(world, actor, intent.emote, intent.who);
    case 'help': {
      const text = helpText(intent.topic);
      return text ? { ok: true, text, events: [] } : fail(`There is no help on "${intent.topic}". Type help for the list of commands.`);
    }
    case 'all': return doAll(world, actor, intent);
    case 'exits': return { ok: true, text: exitsLine(world, world.roomOf(actor)!), events: [] };
    case 'look_dir': return doLookDir(world, actor, intent.where);
    case 'look_in': return doLookIn(world, actor, intent.what, intent.prep);
    case 'incomplete': return fail(intent.message);
    case 'unknown': return fail(`I don't know the word "${intent.verb}". Type help for the list of commands.`);
  }
}

// ---- graph actions -----------------------------------------------------------------------------

function objectPool(world: World, actor: NodeId): NodeId[] {
  return world.visibleFrom(actor).filter((id) => world.object(id));
}

function characterPool(world: World, actor: NodeId): NodeId[] {
  const room = world.roomOf(actor)!;
  return [...world.charactersIn(room).map((c) => c.id)];
}

type SlotResult = { ok: true; ids: NodeId[] } | { ok: false; message: string };

function resolveSlot(world: World, actor: NodeId, slot: Slot, text: string): SlotResult {
  if (slot === 'target' && /^(me|myself|self)$/i.test(text.trim())) return { ok: true, ids: [actor] };
  if (slot === 'thing') {
    // a thing called so first; else a way out names the room it leads to: "point north"
    // a whole name before a partial one: "point kha warrior 2" is not also the kha warrior
    const here = pointable(world, actor);
    const whole = here.filter((id) => exactName(text, world.node(id)?.name ?? ''));
    const named = whole.length ? whole : here.filter((id) => namesExactly(world, text, id));
    if (named.length) return { ok: true, ids: named };
    if (/^(me|myself|self)$/i.test(text.trim())) return { ok: false, message: "You can't point at yourself." };
    // "point west": the way called so, or else the ways whose label says so ("path to the west"), as go and look do
    const dir = DIRECTIONS[text.trim().toLowerCase()];
    if (dir) {
      const exits = world.room(world.roomOf(actor)!)!.exits;
      const exact = exits.filter((e) => e.label.toLowerCase() === dir);
      const within = exact.length || dir === 'in' || dir === 'out' ? exact : exits.filter((e) => new RegExp(`\\b${dir}\\b`).test(e.label.toLowerCase()));
      const rooms = [...new Set(within.map((e) => e.to))];
      if (rooms.length) return { ok: true, ids: rooms };
    }
    const r = resolve(world, text, pointable(world, actor));
    if (r.kind === 'found') return { ok: true, ids: r.ids };
    // a way out by its label, as go takes it: "point path", "point the old cobblestone path"
    const way = r.kind === 'none' ? findExit(world, world.roomOf(actor)!, text) : undefined;
    if (way?.ok) return { ok: true, ids: [world.room(world.roomOf(actor)!)!.exits[way.index]!.to] };
    return { ok: false, message: r.kind === 'ordinal_out_of_range' ? `You only see ${r.count} of those here.` : `You don't see "${parsePhrase(text).words.join(' ') || text.trim()}" here to point at.` };
  }
  if (slot === 'with' && /^(me|myself|self)$/i.test(text.trim())) return { ok: true, ids: [actor] };
  const pool = slot === 'target' ? characterPool(world, actor) : slot === 'with' ? usableWith(world, actor) : objectPool(world, actor);
  const r = resolve(world, text, pool);
  if (r.kind === 'found') return { ok: true, ids: r.ids };
  const phrase = parsePhrase(text);
  const shown = phrase.words.join(' ') || text.trim();
  if (r.kind === 'ordinal_out_of_range') return { ok: false, message: `You only see ${r.count} ${shown}${r.count === 1 ? '' : 's'} here.` };
  if (slot === 'target') {
    const obj = resolve(world, text, objectPool(world, actor));
    if (obj.kind === 'found') return { ok: false, message: `${capitalize(the(world.node(obj.ids[0]!)!))} is not someone you can do that to.` };
    return { ok: false, message: `You don't see anyone called "${shown}" here.` };
  }
  const person = resolve(world, text, characterPool(world, actor));
  if (person.kind === 'found') return { ok: false, message: `${capitalize(the(world.node(person.ids[0]!)!))} is a person, not a thing.` };
  return { ok: false, message: `You don't see any "${shown}" here.` };
}

const MAX_BINDINGS = 400;

type Plan = { ok: true; rule: ActionRule; args: ActionArgs } | { ok: false; outcome: Outcome };

/**
 * Run the first reading of the command that succeeds. Readings whose every phrase is a whole name
 * come first ("get rare wood from a tree" is the object of that name before it is wood taken
 * from a tree), then the parser's order; when none succeeds, the best reading says why.
 */
function doAction(world: World, actor: NodeId, name: ActionName, options: ActionSlots[]): Outcome {
  let firstProblem: string | null = null;
  const readings: { exact: boolean; order: number; plan: Plan }[] = [];
  options.forEach((option, order) => {
    const rule = ACTIONS[option.action ?? name];
    const perSlot: Partial<Record<Slot, NodeId[]>> = {};
    let problem: string | null = null;
    let exact = true;
    for (const slot of rule.slots) {
      const text = option[slot];
      if (text === undefined) {
        problem = `${capitalize(rule.name.replace('_from', ''))} what?`;
        break;
      }
      const r = resolveSlot(world, actor, slot, text);
      if (!r.ok) {
        problem = r.message;
        break;
      }
      perSlot[slot] = r.ids;
      if (!r.ids.some((id) => id === actor || namesExactly(world, text, id))) exact = false;
    }
    if (problem) {
      firstProblem ??= problem;
      return;
    }
    readings.push({ exact, order, plan: planAction(world, actor, rule, perSlot, option.prep) });
  });
  readings.sort((x, y) => Number(y.exact) - Number(x.exact) || x.order - y.order);
  const success = readings.find((r) => r.plan.ok);
  if (success?.plan.ok) return applyAction(world, actor, success.plan.rule, success.plan.args);
  const best = readings[0]?.plan;
  if (best && !best.ok) return best.outcome;
  return fail(firstProblem ?? "I don't understand that.");
}

function applyAction(world: World, actor: NodeId, rule: ActionRule, args: ActionArgs): Outcome {
  const event = rule.apply(world, actor, args);
  const events = [event];
  // A character the action left without health dies (LIGHT's death follows the hit or the poison that caused it).
  for (const id of new Set([event.target, actor])) {
    const c = id ? world.character(id) : undefined;
    if (c && c.health !== undefined && c.health <= 0) events.push(die(world, c.id));
  }
  const text = events.map((e) => e.seen[actor]).filter((t) => t).join(' ');
  return { ok: true, text, events, action: event.action! };
}


/** The binding of the resolved slots that succeeds; else the question to ask or the nearest miss. */
function planAction(world: World, actor: NodeId, rule: ActionRule, perSlot: Partial<Record<Slot, NodeId[]>>, prep?: 'in' | 'on'): Plan {
  let bindings: ActionArgs[] = [prep ? { prep } : {}];
  for (const slot of rule.slots) {
    const next: ActionArgs[] = [];
    for (const b of bindings) for (const id of perSlot[slot] ?? []) if (next.length < MAX_BINDINGS) next.push({ ...b, [slot]: id });
    bindings = next;
  }
  const passing = bindings.filter((b) => !firstFailure(rule, world, actor, b));
  // None succeeds: keep those that got furthest through the constraints, to explain the nearest miss.
  const progress = (b: ActionArgs) => {
    const i = rule.constraints.findIndex((c) => !c.holds(world, actor, b));
    return i < 0 ? rule.constraints.length : i;
  };
  const furthest = Math.max(...bindings.map(progress));
  const chosen = passing.length ? passing : bindings.filter((b) => progress(b) === furthest);
  // Ask when differently named things remain in a slot.
  for (const slot of passing.length || furthest > 0 ? rule.slots : []) {
    const names = distinctNames(world, [...new Set(chosen.map((b) => b[slot]!))]);
    if (names.length > 1) return { ok: false, outcome: fail(`Which ${slot === 'target' ? 'one' : 'do'} you mean: ${listing(names.map((n) => `the ${n}`), 'or')}?`.replace('Which one you mean', 'Whom do you mean').replace('Which do you mean', `Which ${commonWord(names)} do you mean`)) };
  }
  const args = chosen[0]!;
  const failure: Failure | null = passing.length ? null : firstFailure(rule, world, actor, args);
  if (failure) return { ok: false, outcome: fail(failure.message, failure.constraint) };
  return { ok: true, rule, args };
}

/** The last word the names share ("old scroll", "torn scroll" -> "scroll"), else "one". */
function commonWord(names: string[]): string {
  const lastWords = new Set(names.map((n) => n.split(/\s+/).pop()));
  return lastWords.size === 1 ? [...lastWords][0]! : 'one';
}

// ---- all of them --------------------------------------------------------------------------------

/** The phrase's matches among `pool`, also read as a plural ("candles" -> candle). */
function matchesAmong(world: World, text: string, pool: NodeId[]): NodeId[] {
  const tries = [text, text.replace(/ies$/i, 'y'), text.replace(/es$/i, ''), text.replace(/s$/i, '')];
  for (const t of [...new Set(tries)]) {
    const r = resolve(world, t, pool);
    if (r.kind === 'found') return r.ids;
  }
  return [];
}

/**
 * "get all", "get all from chest", "drop all", "put all in sack", optionally of one name ("get all
 * candles"): the single action, tried on each thing in turn with the same constraints; each that
 * fails changes nothing and says why. It succeeds when at least one does.
 */
function doAll(world: World, actor: NodeId, intent: Extract<Intent, { kind: 'all' }>): Outcome {
  const room = world.roomOf(actor)!;
  // "get all purpose knife", "drop everything bagel": a thing of that very name is meant
  if (objectPool(world, actor).some((id) => namesExactly(world, intent.phrase, id))) return executeIntent(world, actor, intent.single);
  const rule = ACTIONS[intent.action];
  let container: NodeId | undefined;
  if (intent.container !== undefined) {
    const r = resolveSlot(world, actor, 'container', intent.container);
    if (!r.ok) return fail(r.message);
    const holds = (id: NodeId) => (intent.action === 'put' ? (intent.prep === 'on' ? world.object(id)?.surface : world.object(id)?.container) : world.object(id)?.container || world.object(id)?.surface);
    const usable = r.ids.filter((id) => holds(id) && withinReachOf(world, actor, id));
    const ids = usable.length ? usable : r.ids;
    const names = distinctNames(world, ids);
    if (names.length > 1) return fail(`Which ${commonWord(names)} do you mean: ${listing(names.map((n) => `the ${n}`), 'or')}?`);
    container = ids[0]!;
    // the container's own constraints first: they fail the same way for every thing
    const probe: ActionArgs = { container, ...(intent.prep ? { prep: intent.prep } : {}) };
    for (const c of rule.constraints.slice(0, 2)) if (!c.holds(world, actor, probe)) return fail(c.failure(world, actor, probe), c.id);
  }
  let things: NodeId[];
  if (intent.action === 'get') things = world.children(room, 'in').filter((id) => world.object(id));
  else if (intent.action === 'get_from') things = world.children(container!).filter((id) => world.object(id));
  else things = world.children(actor, 'carried').filter((id) => id !== container);
  if (intent.filter !== undefined) {
    const named = new Set(matchesAmong(world, intent.filter, world.visibleFrom(actor).filter((id) => world.object(id))));
    things = things.filter((id) => named.has(id));
  }
  if (!things.length) {
    const what = intent.filter !== undefined ? `"${intent.filter}"` : 'anything';
    if (intent.action === 'get') return fail(`There isn't ${what === 'anything' ? 'anything' : `any ${what}`} here to pick up.`);
    if (intent.action === 'get_from') return fail(`There isn't ${what === 'anything' ? 'anything' : `any ${what}`} ${world.object(container!)?.surface ? 'on' : 'in'} ${the(world.node(container!)!)}.`);
    return fail(`You aren't carrying ${what === 'anything' ? 'anything' : `any ${what}`}${intent.action === 'put' ? ' to put there' : ''}.`);
  }
  const lines: string[] = [];
  const events: GameEvent[] = [];
  let failed: string | undefined;
  for (const object of things) {
    const args: ActionArgs = { object, ...(container ? { container } : {}), ...(intent.prep ? { prep: intent.prep } : {}) };
    const f = firstFailure(rule, world, actor, args);
    if (f) {
      lines.push(f.message);
      failed ??= f.constraint;
      continue;
    }
    const ev = rule.apply(world, actor, args);
    events.push(ev);
    lines.push(ev.seen[actor] ?? '');
  }
  const out: Outcome = { ok: events.length > 0, text: lines.join('\n'), events };
  if (!events.length && failed) out.failed = failed;
  return out;
}

function withinReachOf(world: World, actor: NodeId, id: NodeId): boolean {
  const holder = world.holderOf(id);
  return holder ? holder === actor : world.roomOf(id) === world.roomOf(actor);
}

// ---- health ------------------------------------------------------------------------------------

/** "health": how you feel; "health A": how someone here looks. Nobody else is told. */
function doHealth(world: World, actor: NodeId, who?: string): Outcome {
  if (who === undefined) return { ok: true, text: selfCondition(world.character(actor)!), events: [] };
  const r = resolveSlot(world, actor, 'target', who);
  if (!r.ok) return fail(r.message);
  const names = distinctNames(world, r.ids);
  if (names.length > 1) return fail(`Whom do you mean: ${listing(names.map((n) => `the ${n}`), 'or')}?`);
  const id = r.ids[0]!;
  const c = world.character(id)!;
  return { ok: true, text: id === actor ? selfCondition(c) : otherCondition(c), events: [] };
}

// ---- looking -----------------------------------------------------------------------------------

/** "look north": the name and description of the room that way ("North: Tool Shed."). */
function doLookDir(world: World, actor: NodeId, where: string): Outcome {
  const room = world.roomOf(actor)!;
  // "look in" alone is a question about a container, unless a way out is called "in"
  if (where === 'in' && !world.room(room)!.exits.some((e) => e.label.toLowerCase() === 'in')) return fail('Look in what?');
  const r = findExit(world, room, where);
  if (!r.ok) return fail(r.message.replace(/^You can't go/, "You can't look"));
  return { ok: true, text: lookToward(world, world.room(room)!.exits[r.index]!), events: [] };
}

/** "look in chest" / "look on table": what it holds. */
function doLookIn(world: World, actor: NodeId, what: string, prep: 'in' | 'on'): Outcome {
  const r = resolveSlot(world, actor, 'container', what);
  if (!r.ok) return fail(r.message);
  const fits = (id: NodeId) => (prep === 'on' ? world.object(id)?.surface : world.object(id)?.container);
  const ids = r.ids.filter(fits).length ? r.ids.filter(fits) : r.ids;
  const names = distinctNames(world, ids);
  if (names.length > 1) return fail(`Which ${commonWord(names)} do you mean: ${listing(names.map((n) => `the ${n}`), 'or')}?`);
  const o = world.object(ids[0]!)!;
  const rel = o.surface && !o.container ? 'on' : o.container && !o.surface ? 'in' : prep;
  if (!o.container && !o.surface) {
    const loose = world.objectsIn(o.id);
    if (!loose.length) return fail(`You can't look ${prep} ${the(o)}: nothing goes ${prep} it.`);
  }
  const inside = world.objectsIn(o.id, rel);
  if (!inside.length) return { ok: true, text: rel === 'on' ? `There is nothing on ${the(o)}.` : `${capitalize(the(o))} is empty.`, events: [] };
  return { ok: true, text: `${rel === 'on' ? 'On' : 'In'} ${the(o)}: ${listObjects(world, inside)}.`, events: [] };
}

/**
 * "examine X": LIGHT's examine, seen by the room. A whole name first (a thing, a person, this room
 * or one next door); then "room"/"here", "me", a partial name of a thing or person here, this
 * room's name, and a way out.
 */
function doExamine(world: World, actor: NodeId, what: string): Outcome {
  const room = world.roomOf(actor)!;
  const run = (thing: NodeId) => applyAction(world, actor, ACTIONS.examine, { thing });
  const pool = examinable(world, actor);
  const typed = what.trim().toLowerCase();
  const named = pool.filter((id) => world.node(id)!.name.toLowerCase() === typed);
  if (named.length) return run(named[0]!);
  const whole = pool.filter((id) => namesExactly(world, what, id));
  if (whole.length) return run(whole[0]!);
  if (/^(room|here|around)$/i.test(what.trim())) return run(room);
  if (/^(me|myself|self)$/i.test(what.trim())) return run(actor);
  const r = resolve(world, what, world.visibleFrom(actor));
  if (r.kind === 'found') {
    const names = distinctNames(world, r.ids);
    if (names.length > 1) return fail(`Which ${commonWord(names)} do you mean: ${listing(names.map((n) => `the ${n}`), 'or')}?`);
    return run(r.ids[0]!);
  }
  if (matchScore(parsePhrase(what), world.room(room)!.name)) return run(room);
  // "look path": an exit, when nothing here is called that
  const exit = findExit(world, room, what);
  if (exit.ok) return run(world.room(room)!.exits[exit.index]!.to);
  return fail(`You don't see any "${parsePhrase(what).words.join(' ') || what}" here.`);
}

// ---- moving ------------------------------------------------------------------------------------

function findExit(world: World, room: NodeId, where: string): { ok: true; index: number } | { ok: false; message: string } {
  const exits = world.room(room)?.exits ?? [];
  if (!exits.length) return { ok: false, message: 'There is no way out of here.' };
  const text = where.trim().toLowerCase();
  const dir = DIRECTIONS[text];
  const phrase = parsePhrase(text);
  const scored = exits.map((e, index) => {
    const label = e.label.toLowerCase();
    let score = 0;
    if (label === text || (dir && label === dir)) score = 4;
    else if (dir && new RegExp(`\\b${dir}\\b`).test(label)) score = 3;
    else if (matchScore(phrase, e.label) || matchScore(phrase, world.room(e.to)?.name ?? '') === 2) score = 2;
    else if (matchScore(phrase, world.room(e.to)?.name ?? '')) score = 1;
    return { index, score };
  });
  const best = Math.max(...scored.map((s) => s.score));
  if (best === 0) return { ok: false, message: `You can't go "${where}" from here. ${exitsSentence(world, room)}` };
  const top = scored.filter((s) => s.score === best);
  if (top.length > 1) return { ok: false, message: `Which way do you mean: ${listing(top.map((s) => exits[s.index]!.label), 'or')}?` };
  return { ok: true, index: top[0]!.index };
}

function exitsSentence(world: World, room: NodeId): string {
  const exits = world.room(room)?.exits ?? [];
  return `Exits: ${exits.map((e) => e.label).join(', ')}.`;
}

/** "go north" / "go up the hill path" / "take the path to the west", and the third person. */
export function exitPhrase(label: string): { you: string; they: string } {
  const l = label.trim();
  if (DIRECTIONS[l.toLowerCase()] || /^(up|down|in|into|out|through|across|along|over|under|back|north|south|east|west|towards?)\b/i.test(l)) {
    return { you: `go ${l}`, they: `goes ${l}` };
  }
  const noun = l.replace(/^(the|a|an)\s+/i, '');
  return { you: `take the ${noun}`, they: `takes the ${noun}` };
}

function doGo(world: World, actor: NodeId, where: string): Outcome {
  const from = world.roomOf(actor)!;
  const r = findExit(world, from, where);
  if (!r.ok) return fail(r.message, 'exit');
  const exit = world.room(from)!.exits[r.index]!;
  const way = exitPhrase(exit.label);
  // LIGHT's block: someone blocking the mover here may stop it (a roll); the room sees it.
  const stopped = blocked(world, actor, from, exit.label);
  if (stopped) return { ok: false, text: stopped.seen[actor]!, events: [stopped], failed: 'blocked' };
  const events = moveThrough(world, actor, from, exit, `You ${way.you}.`, `${capitalize(the(world.character(actor)!))} ${way.they}.`);
  // LIGHT's follow: whoever follows a mover and was in the room it left goes after it, and so on;
  // a follower someone blocks may be stopped, and then its own followers stay too.
  const moved = new Set([actor]);
  const queue = [actor];
  while (queue.length) {
    const leader = queue.shift()!;
    for (const c of world.charactersIn(from)) {
      if (c.following !== leader || moved.has(c.id)) continue;
      moved.add(c.id);
      const L = the(world.character(leader)!);
      const held = blocked(world, c.id, from, exit.label, `You try to follow ${L}`);
      if (held) {
        events.push(held);
        continue;
      }
      queue.push(c.id);
      events.push(...moveThrough(world, c.id, from, exit, `You follow ${L} and ${way.you}.`, `${capitalize(the(c))} follows ${L}.`));
    }
  }
  return { ok: true, text: events[0]!.seen[actor]!, events };
}

/** The event of `mover` stopped from leaving by whoever blocks it, or null when nobody stops it. */
function blocked(world: World, mover: NodeId, room: NodeId, exitLabel: string, attempt = 'You try to leave'): GameEvent | null {
  const blocker = blockerOf(world, mover);
  if (!blocker) return null;
  const M = capitalize(the(world.character(mover)!));
  const B = the(world.character(blocker)!);
  const seen = seenInRoom(world, room, mover, {
    actor: `${attempt}, but ${B} blocks your way!`,
    target: `You block ${the(world.character(mover)!)}'s way!`,
    others: `${M} tries to leave, but ${B} blocks the way!`,
  }, blocker);
  return { type: 'blocked', actor: mover, room, target: blocker, text: exitLabel, failed: true, seen };
}

/** One character through one exit: the room left sees it go, the new one arrive; it sees the new room. */
function moveThrough(world: World, mover: NodeId, from: NodeId, exit: { label: string; to: NodeId }, self: string, others: string): GameEvent[] {
  const me = world.character(mover)!;
  const leave = seenInRoom(world, from, mover, { actor: self, others });
  world.move(mover, exit.to, 'in');
  const arriveSeen = seenInRoom(world, exit.to, mover, { actor: '', others: `${capitalize(the(me))} arrives.` });
  delete arriveSeen[mover];
  const text = `${self}\n${look(world, mover)}`;
  return [
    { type: 'leave', actor: mover, room: from, text: exit.label, seen: { ...leave, [mover]: text } },
    { type: 'arrive', actor: mover, room: exit.to, seen: arriveSeen },
  ];
}

// ---- speech and emotes ---------------------------------------------------------------------------

/** Spoken text as the engine says it: cleaned, trimmed, one pair of surrounding quotes dropped. */
export function cleanSpeech(text: string): string {
  return sanitiseInput(text).trim().replace(/^["']|["']$/g, '').trim();
}

function doSay(world: World, actor: NodeId, raw: string): Outcome {
  const text = cleanSpeech(raw);
  if (!text) return fail('Say what?');
  if (text.length > MAX_SPEECH_LENGTH) return fail(`That is too long to say at once (the limit is ${MAX_SPEECH_LENGTH} characters).`);
  const me = world.character(actor)!;
  const room = world.roomOf(actor)!;
  const seen = seenInRoom(world, room, actor, { actor: `You say, "${text}"`, others: `${capitalize(the(me))} says, "${text}"` });
  return { ok: true, text: seen[actor]!, events: [{ type: 'say', actor, room, text, seen }] };
}

function doTell(world: World, actor: NodeId, who: string, raw: string, whisper: boolean, line = `${who} ${raw}`): Outcome {
  // Where the name ends: "tell old man: hello, friend" / "tell old man, hello" (the name before the
  // first colon or comma, when it names someone here); else the longest leading words that name
  // someone here ("tell old man hello, friend"). The message keeps every comma.
  let target: SlotResult = { ok: false, message: '' };
  let message = raw;
  // First, the longest leading words that are someone's whole name, commas and all: "tell Rhys, the
  // Horse Trader good day" (LIGHT's names have commas; "Rhys" alone would name him too, too soon).
  const all = [...line.matchAll(/\S+/g)];
  for (let n = Math.min(all.length - 1, 8); n >= 1; n--) {
    const end = all[n - 1]!.index! + all[n - 1]![0].length;
    const ids = characterPool(world, actor).filter((id) => namesExactly(world, line.slice(0, end).replace(/[:,]$/, ''), id));
    if (ids.length) {
      const rest = line.slice(end).replace(/^\s*[:,]?\s*/, '').replace(/^that\s+/i, '');
      if (rest) {
        target = { ok: true, ids };
        message = rest;
        break;
      }
    }
  }
  const punct = target.ok ? null : /^(.+?)\s*[:,]\s*(.+)$/s.exec(line);
  const first = punct ? resolveSlot(world, actor, 'target', punct[1]!) : null;
  if (target.ok) {
    // found by its whole name
  } else if (punct && first?.ok && first.ids.length) {
    target = first;
    message = punct[2]!;
  } else {
    const words = [...line.matchAll(/\S+/g)];
    for (let n = Math.min(words.length - 1, 4); n >= 1 && !target.ok; n--) {
      const end = words[n - 1]!.index! + words[n - 1]![0].length;
      const name = line.slice(0, end).replace(/[:,]$/, '');
      const t = resolveSlot(world, actor, 'target', name);
      if (t.ok && t.ids.length) {
        target = t;
        message = line.slice(end).replace(/^\s*[:,]?\s*/, '').replace(/^that\s+/i, '');
      }
    }
    if (!target.ok) target = resolveSlot(world, actor, 'target', words[0]?.[0] ?? who);
    if (target.ok && !target.ids.length) target = { ok: false, message: `You don't see anyone called "${who}" here.` };
  }
  if (!target.ok) return fail(target.message);
  const names = distinctNames(world, target.ids);
  if (names.length > 1) return fail(`Whom do you mean: ${listing(names.map((n) => `the ${n}`), 'or')}?`);
  const to = target.ids[0]!;
  if (to === actor) return fail('You mutter to yourself.');
  const text = cleanSpeech(message);
  if (!text) return fail(`${whisper ? 'Whisper' : 'Tell'} them what?`);
  if (text.length > MAX_SPEECH_LENGTH) return fail(`That is too long to say at once (the limit is ${MAX_SPEECH_LENGTH} characters).`);
  const me = world.character(actor)!;
  const them = world.character(to)!;
  const room = world.roomOf(actor)!;
  const Me = capitalize(the(me));
  const seen = whisper
    ? seenInRoom(world, room, actor, { actor: `You whisper to ${the(them)}, "${text}"`, target: `${Me} whispers to you, "${text}"`, others: `${Me} whispers something to ${the(them)}.` }, to)
    : seenInRoom(world, room, actor, { actor: `You tell ${the(them)}, "${text}"`, target: `${Me} tells you, "${text}"`, others: `${Me} tells ${the(them)}, "${text}"` }, to);
  return { ok: true, text: seen[actor]!, events: [{ type: whisper ? 'whisper' : 'tell', actor, room, target: to, text, seen }] };
}

function doShout(world: World, actor: NodeId, raw: string): Outcome {
  const text = cleanSpeech(raw);
  if (!text) return fail('Shout what?');
  if (text.length > MAX_SPEECH_LENGTH) return fail(`That is too long to shout at once (the limit is ${MAX_SPEECH_LENGTH} characters).`);
  const me = world.character(actor)!;
  const room = world.roomOf(actor)!;
  const seen = seenInRoom(world, room, actor, { actor: `You shout, "${text}"`, others: `${capitalize(the(me))} shouts, "${text}"` });
  for (const next of world.neighbours(room)) {
    const back = world.room(next)?.exits.find((e) => e.to === room);
    const from = back ? ` from ${back.label}` : ' from nearby';
    for (const c of world.charactersIn(next)) seen[c.id] = `Someone shouts${from}, "${text}"`;
  }
  return { ok: true, text: seen[actor]!, events: [{ type: 'shout', actor, room, text, seen }] };
}

function doEmote(world: World, actor: NodeId, emote: Emote, who?: string): Outcome {
  const me = world.character(actor)!;
  const room = world.roomOf(actor)!;
  let target: NodeId | undefined;
  if (who) {
    const r = resolveSlot(world, actor, 'target', who);
    if (!r.ok) return fail(r.message);
    const names = distinctNames(world, r.ids);
    if (names.length > 1) return fail(`Whom do you mean: ${listing(names.map((n) => `the ${n}`), 'or')}?`);
    target = r.ids[0]!;
    if (target === actor) target = undefined;
  }
  const them = target ? world.character(target)! : undefined;
  const Me = capitalize(the(me));
  const third = emoteThirdPerson(emote);
  const seen = seenInRoom(world, room, actor, {
    actor: `You ${emote}${emoteTargetPhrase(emote, them ? the(them) : undefined)}.`,
    target: `${Me} ${third}${emoteTargetPhrase(emote, 'you')}.`,
    others: `${Me} ${third}${emoteTargetPhrase(emote, them ? the(them) : undefined)}.`,
  }, target);
  const ev: GameEvent = { type: 'emote', actor, room, text: emote, seen };
  if (target) ev.target = target;
  return { ok: true, text: seen[actor]!, events: [ev] };
}

// ---- valid actions -------------------------------------------------------------------------------

/**
 * Every graph action (LIGHT's table 12) the character can execute now, as canonical text,
 * deduplicated, in a stable order. Equal to the set of canonical actions that succeed. With
 * `all`, LIGHT's other mechanics too (equip, ingest, follow, unfollow, block, unblock, point, wait,
 * examine): model
 * characters and the corpus choose among table 12 only, as LIGHT's models do.
 */
export function validActions(world: World, actor: NodeId, opts: { all?: boolean } = {}): string[] {
  if (!world.character(actor) || !world.roomOf(actor)) return [];
  const out = new Set<string>();
  for (const rule of Object.values(ACTIONS)) {
    if (rule.extra && !opts.all) continue;
    for (const args of rule.candidates(world, actor)) {
      if (!firstFailure(rule, world, actor, args)) out.add(rule.canonical(world, args));
    }
  }
  return [...out];
}
