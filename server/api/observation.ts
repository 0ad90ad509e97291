/**
 * What an outside agent gets back from every call: the text the character perceived, and the same
 * situation as data (room, people, objects, inventory, valid actions, what others did meanwhile),
 * plus, after a failure, the valid actions closest to what was tried.
 */
import type { CharacterState } from '../net/protocol.js';

export interface Observation {
  [key: string]: unknown;
  ok: boolean;
  text: string;
  character?: { id: string; name: string };
  room?: { id: string; name: string; description: string; exits: { label: string; to: string; name: string }[] };
  people?: { id: string; name: string; player: boolean }[];
  objects?: { id: string; name: string; where: string }[];
  inventory?: { carrying: string[]; wearing: string[]; wielding: string[] };
  validActions?: string[];
  events: string[];
  suggestions?: string[];
}

/** The exits as commands ("go north"), which an agent can also take. */
export function exitCommands(state: CharacterState): string[] {
  return state.room.exits.map((e) => `go ${e.label}`);
}

export function observation(ok: boolean, text: string, state: CharacterState | null, events: string[]): Observation {
  const out: Observation = { ok, text, events };
  if (!state) return out;
  const names = new Map<string, string>([[state.room.id, 'the room'], [state.character.id, 'you']]);
  for (const p of state.people) names.set(p.id, p.name);
  for (const o of state.objects) names.set(o.id, o.name);
  out.character = { id: state.character.id, name: state.character.name };
  out.room = { id: state.room.id, name: state.room.name, description: state.room.description, exits: state.room.exits };
  out.people = state.people.map((p) => ({ id: p.id, name: p.name, player: p.player }));
  out.objects = state.objects.map((o) => ({
    id: o.id, name: o.name,
    where: o.parent === state.room.id ? 'in the room' : `${o.rel === 'carried' || o.rel === 'worn' || o.rel === 'wielded' ? `${o.rel} by` : o.rel} ${names.get(o.parent) ?? o.parent}`,
  }));
  out.inventory = { carrying: state.character.carrying.map((t) => t.name), wearing: state.character.wearing.map((t) => t.name), wielding: state.character.wielding.map((t) => t.name) };
  out.validActions = state.validActions;
  return out;
}

const words = (s: string) => s.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 1 && !['the', 'to', 'from', 'in', 'on', 'at', 'a', 'an'].includes(w));

/** Verbs that stand in for each other when one fails ("wear shovel" -> "wield shovel"). */
const KIN: string[][] = [['wear', 'wield', 'remove'], ['eat', 'drink'], ['hit', 'hug'], ['get', 'steal'], ['drop', 'put', 'give']];
const kin = (a: string, b: string) => KIN.some((g) => g.includes(a) && g.includes(b));

/**
 * The valid actions (and exits) closest to a failed command: the same verb counts most, then each
 * word of the arguments the action shares (the same object, the same character), then a kindred
 * verb (wear and wield, eat and drink). At most `limit`;
 * when nothing is close, the first valid actions, so the agent always has something that works.
 */
export function suggestions(command: string, verb: string | undefined, candidates: string[], limit = 5): string[] {
  const v = (verb ?? command.split(/\s+/, 1)[0] ?? '').toLowerCase();
  const argWords = new Set(words(command.slice(command.toLowerCase().startsWith(v) ? v.length : 0)));
  const scored = candidates.map((c, i) => {
    const cv = c.split(/\s+/, 1)[0]!.toLowerCase();
    let score = cv === v ? 3 : kin(cv, v) ? 1 : 0;
    let shared = 0;
    for (const w of words(c.slice(cv.length))) if (argWords.has(w)) shared += 2;
    // A kindred verb alone is no reason to suggest an action on something else.
    if (cv !== v && shared === 0) score = 0;
    score += shared;
    return { c, score, i };
  });
  const close = scored.filter((s) => s.score > 0).sort((a, b) => b.score - a.score || a.i - b.i).map((s) => s.c);
  return (close.length ? close : candidates).slice(0, limit);
}
