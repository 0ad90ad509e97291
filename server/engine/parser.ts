/**
 * Text to intent: LIGHT's canonical forms ("get shovel from muddy area", "put shovel in muddy
 * area", "give rake to gardener") plus what players type ("take", "pick up", "grab", "put on",
 * "equip", "x", "l", "i", "n", quotes for speech, emotes with or without a target). Phrases stay
 * unresolved text here; the game resolves them against what the actor can see. Where a
 * connecting word could split a command in several places ("put sword in the stone in chest"),
 * every split is offered, first split first.
 */
import { EMOTE_ALIASES, EMOTE_THIRD, EMOTES, isEmote, type Emote } from './emotes.js';
import type { ActionName } from './actions/index.js';

export interface ActionSlots {
  /** This reading's action, when it is not the intent's own ("get X from Y" may name one object). */
  action?: ActionName;
  object?: string;
  target?: string;
  container?: string;
  prep?: 'in' | 'on';
  /** For `point`: anything in sight, or a room next door. */
  thing?: string;
  /** For `use X with Y`: Y. */
  with?: string;
}

export type Intent =
  | { kind: 'action'; action: ActionName; options: ActionSlots[] }
  /** LIGHT's equip: wear or wield, as the object affords. */
  | { kind: 'equip'; object: string }
  | { kind: 'look' }
  | { kind: 'examine'; what: string }
  | { kind: 'inventory' }
  /** lightmud's score: who and where you are, health, what you have against the limits. */
  | { kind: 'score' }
  /** LIGHT's health: how you feel, or (with a name) how someone here looks. */
  | { kind: 'health'; who?: string }
  | { kind: 'go'; where: string }
  | { kind: 'say'; text: string }
  | { kind: 'tell'; who: string; text: string; whisper: boolean; line?: string }
  | { kind: 'shout'; text: string }
  | { kind: 'emote'; emote: Emote; who?: string }
  | { kind: 'help'; topic?: string }
  /** "get all", "get all candles", "get all from chest", "drop all", "put all in sack": each thing by the single action's rule. */
  | {
    kind: 'all'; action: 'get' | 'get_from' | 'drop' | 'put'; filter?: string; container?: string; prep?: 'in' | 'on';
    /** The words read as "all ...", and the command read without "all": a thing may be called "all purpose knife". */
    phrase: string; single: Intent;
  }
  | { kind: 'exits' }
  /** "look north": the room that way. */
  | { kind: 'look_dir'; where: string }
  /** "look in chest", "look on table": what is in or on it. */
  | { kind: 'look_in'; what: string; prep: 'in' | 'on' }
  | { kind: 'incomplete'; message: string }
  | { kind: 'unknown'; verb: string };

export const DIRECTIONS: Record<string, string> = {
  n: 'north', s: 'south', e: 'east', w: 'west', ne: 'northeast', nw: 'northwest', se: 'southeast', sw: 'southwest',
  u: 'up', d: 'down', north: 'north', south: 'south', east: 'east', west: 'west', northeast: 'northeast',
  northwest: 'northwest', southeast: 'southeast', southwest: 'southwest', up: 'up', down: 'down', in: 'in', out: 'out',
};

/** All ways to split `rest` at one of the connector words: [[left, right, connector], ...]. */
function splits(rest: string, connectors: string[]): [string, string, string][] {
  const words = rest.split(/\s+/);
  const out: [string, string, string][] = [];
  for (let i = 1; i < words.length - 1; i++) {
    const w = words[i]!.toLowerCase();
    if (connectors.includes(w)) out.push([words.slice(0, i).join(' '), words.slice(i + 1).join(' '), w]);
  }
  // "take coin out of chest": two-word connector
  for (let i = 1; i < words.length - 2; i++) {
    const two = `${words[i]} ${words[i + 1]}`.toLowerCase();
    if (connectors.includes(two)) out.push([words.slice(0, i).join(' '), words.slice(i + 2).join(' '), two]);
  }
  return out;
}

const IN_WORDS = ['in', 'into', 'inside'];
const ON_WORDS = ['on', 'onto', 'upon'];
const FROM_WORDS = ['from', 'off', 'out of', 'outta'];

function objectOnly(action: ActionName, rest: string, verb: string): Intent {
  if (!rest) return { kind: 'incomplete', message: `${cap(verb)} what?` };
  return { kind: 'action', action, options: [{ object: rest }] };
}

function targetOnly(action: ActionName, rest: string, verb: string): Intent {
  const who = rest.replace(/\s+with\s+.*$/i, '');
  if (!who) return { kind: 'incomplete', message: `${cap(verb)} whom?` };
  return { kind: 'action', action, options: [{ target: who }] };
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** "all", "everything", "all the candles", "all of the candles": null when `text` does not start so. */
function allOf(text: string): { filter?: string } | null {
  const m = /^(?:all|everything)(?:\s+(?:of\s+)?(?:the\s+)?(.+))?$/i.exec(text.trim());
  if (!m) return null;
  return m[1] ? { filter: m[1] } : {};
}

function parseGet(rest: string, verb: string, all = true): Intent {
  if (!rest) return { kind: 'incomplete', message: `${cap(verb)} what?` };
  const every = all ? allOf(rest) : null;
  if (every) {
    const single = parseGet(rest, verb, false);
    const from = splits(rest, FROM_WORDS).find(([o]) => allOf(o));
    if (from) return { kind: 'all', action: 'get_from', ...allOf(from[0]), container: from[1], phrase: from[0], single };
    return { kind: 'all', action: 'get', ...every, phrase: rest, single };
  }
  const options: ActionSlots[] = splits(rest, FROM_WORDS).map(([o, c]) => ({ object: o, container: c }));
  // the whole phrase may be one name: "rare wood from a tree"
  if (options.length) return { kind: 'action', action: 'get_from', options: [...options, { action: 'get', object: rest }] };
  return { kind: 'action', action: 'get', options: [{ object: rest }] };
}

function parsePut(rest: string, all = true): Intent {
  if (!rest) return { kind: 'incomplete', message: 'Put what where?' };
  if (all && allOf(rest.split(/\s+/)[0]!)) {
    const into = splits(rest, [...IN_WORDS, ...ON_WORDS]).find(([o]) => allOf(o));
    if (into) return { kind: 'all', action: 'put', ...allOf(into[0]), container: into[1], prep: ON_WORDS.includes(into[2]) ? 'on' : 'in', phrase: into[0], single: parsePut(rest, false) };
  }
  const options: ActionSlots[] = splits(rest, [...IN_WORDS, ...ON_WORDS]).map(([o, c, conn]) => ({
    object: o,
    container: c,
    prep: ON_WORDS.includes(conn) ? 'on' : 'in',
  }));
  if (options.length) return { kind: 'action', action: 'put', options };
  if (/\s+down$/i.test(rest)) return { kind: 'action', action: 'drop', options: [{ object: rest.replace(/\s+down$/i, '') }] };
  return { kind: 'incomplete', message: `Put the ${rest} where? Try: put ${rest} in <container>, or put ${rest} on <surface>.` };
}

function parseGive(rest: string, verb: string): Intent {
  if (!rest) return { kind: 'incomplete', message: `${cap(verb)} what to whom?` };
  const options: ActionSlots[] = splits(rest, ['to']).map(([o, t]) => ({ object: o, target: t }));
  // "give orc the shovel": first word(s) a character, the rest an object
  const words = rest.split(/\s+/);
  for (let i = 1; i < words.length; i++) options.push({ target: words.slice(0, i).join(' '), object: words.slice(i).join(' ') });
  if (!options.length) return { kind: 'incomplete', message: `${cap(verb)} the ${rest} to whom?` };
  return { kind: 'action', action: 'give', options };
}

function parseSteal(rest: string, verb: string): Intent {
  if (!rest) return { kind: 'incomplete', message: `${cap(verb)} what from whom?` };
  const options: ActionSlots[] = splits(rest, ['from']).map(([o, t]) => ({ object: o, target: t }));
  if (!options.length) return { kind: 'incomplete', message: `${cap(verb)} the ${rest} from whom?` };
  return { kind: 'action', action: 'steal', options };
}

/** "tell orc hello", "tell orc: hello", "tell orc, hello", "tell orc that hello". */
function parseTell(rest: string, whisper: boolean, verb: string): Intent {
  const m = /^(?:to\s+)?(.+?)\s*[:,]\s*(.+)$/s.exec(rest) ?? /^(?:to\s+)?(\S+(?:\s+\S+)?)\s+(?:that\s+)?(.+)$/s.exec(rest);
  if (!m) return { kind: 'incomplete', message: `${cap(verb)} whom what? Try: ${verb} orc hello` };
  // A first guess; the game decides where the name ends from who is here, on the whole line.
  return { kind: 'tell', who: m[1]!, text: m[2]!, whisper, line: rest.replace(/^to\s+/i, '') };
}

/**
 * Parse one line of player input. `raw` keeps the original case for speech.
 */
export function parse(raw: string): Intent {
  const line = raw.trim().replace(/[.!?]+$/, (m) => (/^['"]/.test(raw.trim()) ? m : ''));
  if (!line) return { kind: 'incomplete', message: "Type a command, or 'help' to see what you can do." };
  if (line.startsWith("'") || line.startsWith('"')) return { kind: 'say', text: raw.trim().slice(1).replace(/["']$/, '').trim() };
  const firstSpace = line.search(/\s/);
  const verb = (firstSpace < 0 ? line : line.slice(0, firstSpace)).toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
  const rest = firstSpace < 0 ? '' : line.slice(firstSpace + 1).trim();
  const restLower = rest.toLowerCase();
  const speech = raw.trim().slice(raw.trim().search(/\s/) + 1).trim();

  switch (verb) {
    case 'get': case 'take': case 'grab': case 'fetch': case 'collect':
      if (verb === 'take' && /^off\s+/.test(restLower)) return objectOnly('remove', rest.slice(4).trim(), 'take off');
      return parseGet(rest, verb);
    case 'pick':
      if (/^up\s+/.test(restLower)) return parseGet(rest.slice(3).trim(), 'pick up');
      if (/\s+up$/.test(restLower)) return parseGet(rest.slice(0, -3).trim(), 'pick up');
      return parseGet(rest, 'pick up');
    case 'drop': case 'discard': {
      const every = allOf(rest);
      return every ? { kind: 'all', action: 'drop', ...every, phrase: rest, single: objectOnly('drop', rest, verb) } : objectOnly('drop', rest, verb);
    }
    case 'exits': return { kind: 'exits' };
    case 'put': case 'place': case 'set': case 'stow': case 'insert': case 'stash':
      if (/^on\s+/.test(restLower) && verb === 'put') return objectOnly('wear', rest.slice(3).trim(), 'put on');
      if (/^down\s+/.test(restLower)) return objectOnly('drop', rest.slice(5).trim(), 'put down');
      return parsePut(rest);
    case 'give': case 'hand': case 'offer': return parseGive(rest, verb);
    case 'steal': case 'pilfer': case 'snatch': case 'pickpocket': return parseSteal(rest, verb);
    case 'wear': case 'don': return objectOnly('wear', rest, verb);
    case 'wield': case 'brandish': case 'draw': return objectOnly('wield', rest, verb);
    // "equip" alone (and "eq", "equipment"), as MUD players type it: what you wear and wield
    case 'equip': return rest ? { kind: 'equip', object: rest } : { kind: 'inventory' };
    case 'remove': case 'unequip': case 'unwield': case 'doff': case 'sheathe': return objectOnly('remove', rest, verb);
    case 'eat': case 'consume': case 'devour': case 'munch': return objectOnly('eat', rest, verb);
    case 'ingest': return objectOnly('ingest', rest, verb);
    case 'follow': return targetOnly('follow', rest, verb);
    case 'unfollow': return rest ? { kind: 'incomplete', message: 'Just type unfollow.' } : { kind: 'action', action: 'unfollow', options: [{}] };
    case 'use': case 'apply': {
      if (!rest) return { kind: 'incomplete', message: `${cap(verb)} what with what?` };
      const options: ActionSlots[] = splits(rest, ['with', 'on']).map(([o, t]) => ({ object: o, with: t }));
      return options.length ? { kind: 'action', action: 'use', options } : { kind: 'incomplete', message: `You must use that with something. Try: use ${rest} with <something here>` };
    }
    case 'block': case 'obstruct': return targetOnly('block', rest, verb);
    case 'unblock': return rest ? { kind: 'incomplete', message: 'Just type unblock.' } : { kind: 'action', action: 'unblock', options: [{}] };
    case 'point': {
      const what = rest.replace(/^(at|to|towards?)\s+/i, '');
      return what ? { kind: 'action', action: 'point', options: [{ thing: what }] } : { kind: 'incomplete', message: 'Point at what?' };
    }
    case 'wait': case 'z':
      return { kind: 'action', action: 'wait', options: [{}] };
    case 'drink': case 'quaff': case 'sip': case 'gulp': return objectOnly('drink', rest, verb);
    case 'hit': case 'attack': case 'punch': case 'strike': case 'kick': case 'slap': case 'smack': case 'kill':
      return targetOnly('hit', rest, verb);
    case 'hug': case 'embrace': case 'cuddle': return targetOnly('hug', rest, verb);
    case 'look': case 'l':
      if (!rest || /^(around|here|room)$/.test(restLower)) return { kind: 'look' };
      if (DIRECTIONS[restLower.replace(/^(to\s+the|to|towards)\s+/, '')]) return { kind: 'look_dir', where: DIRECTIONS[restLower.replace(/^(to\s+the|to|towards)\s+/, '')]! };
      {
        const m = /^(in|into|inside|on|onto|upon)\s+(.+)$/i.exec(rest);
        if (m) return { kind: 'look_in', what: m[2]!, prep: ON_WORDS.includes(m[1]!.toLowerCase()) ? 'on' : 'in' };
      }
      return { kind: 'examine', what: rest.replace(/^(at|in|into|inside|on)\s+/i, '') };
    case 'examine': case 'x': case 'inspect': case 'read': case 'ex': case 'exa':
      return rest ? { kind: 'examine', what: rest.replace(/^(at)\s+/i, '') } : { kind: 'incomplete', message: `${cap(verb === 'x' ? 'examine' : verb)} what?` };
    case 'inventory': case 'inv': case 'i': case 'equipment': case 'eq': return { kind: 'inventory' };
    case 'score': case 'sc': return { kind: 'score' };
    case 'health': case 'status': case 'stats': case 'hp': case 'diagnose': case 'condition': {
      const who = rest.replace(/^(of|on)\s+/i, '');
      return who ? { kind: 'health', who } : { kind: 'health' };
    }
    case 'go': case 'walk': case 'move': case 'travel': case 'head': case 'run': case 'enter': case 'climb':
      if (!rest) return { kind: 'incomplete', message: 'Go where?' };
      return { kind: 'go', where: rest.replace(/^(to|towards|into|through)\s+/i, '') };
    case 'say': return rest ? { kind: 'say', text: speech } : { kind: 'incomplete', message: 'Say what?' };
    case 'tell': return parseTell(speech, false, verb);
    case 'whisper': return parseTell(speech, true, verb);
    case 'shout': case 'yell': case 'holler': return rest ? { kind: 'shout', text: speech } : { kind: 'incomplete', message: 'Shout what?' };
    case 'emote': case 'emotes': {
      // LIGHT's canonical form: "emote smile"; a target as the emotes take one: "emote wave at orc"
      if (!rest) return { kind: 'incomplete', message: `Emote what? You can: ${EMOTES.join(', ')}.` };
      const [first = '', ...more] = rest.split(/\s+/);
      const inner = parse([EMOTE_THIRD[first.toLowerCase()] ?? first, ...more].join(' '));
      if (inner.kind === 'emote') return inner;
      return { kind: 'incomplete', message: `What emotion is that? You can: ${EMOTES.join(', ')}.` };
    }
    case 'help': case 'commands': case '?': return rest ? { kind: 'help', topic: restLower } : { kind: 'help' };
    default: {
      if (!rest && DIRECTIONS[verb]) return { kind: 'go', where: DIRECTIONS[verb]! };
      const emote = isEmote(verb) ? verb : EMOTE_ALIASES[verb];
      if (emote) {
        const who = rest.replace(/^(at|to|with|on|about)\s+/i, '');
        return who ? { kind: 'emote', emote, who } : { kind: 'emote', emote };
      }
      return { kind: 'unknown', verb };
    }
  }
}
