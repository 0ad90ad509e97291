/**
 * Requests addressed to a character, turned into canonical engine actions (LIGHT's table 9:
 * "can you give me the sword?" -> `give sword to <partner>`), deterministically:
 *
 *   planRequest(world, 'town-smith', 'town-baker', 'Get the key from the chest and give it to me.')
 *   -> { steps: ['get iron key from oak chest', 'give iron key to baker'], ... }
 *
 * The sentence is stripped of politeness ("could you please", "would you mind ...ing", a leading
 * name), split into steps ("and", "then"), pronouns are resolved ("me" -> the partner, "it"/"them"
 * -> the previous object), and every step is parsed by the engine's own parser and executed on a
 * clone of the world, in order. The plan is the canonical text the engine produced for each step
 * that succeeded; the first step that fails stops the plan, with the engine's reason put in the
 * first person ("I'm not carrying the sword; the guard has it.").
 *
 * A step the engine does not parse as a graph action (LIGHT's 13 actions), or an object nobody
 * here has heard of ("get out of here!"), makes the sentence not a request: null, and the ranker
 * decides. The one exception is asking for something to be given: "give me a sword" when there is
 * no sword is still a request, answered "I don't have a sword."
 */
import { execute, parse, validActions } from '../engine/index.js';
import type { NodeId, ObjectNode } from '../engine/types.js';
import type { World } from '../engine/world.js';
import { dontHave, heldByOther, kindOf, noneOfKind, objectNamed, pickByKind, wornReason, type Kind } from './request-things.js';

export interface PlanFailure {
  /** Index of the failing step. */
  step: number;
  /** The command as tried ("give sword to baker"). */
  command: string;
  /** Why, in the first person, ready to say. */
  reason: string;
}

export interface RequestPlan {
  /** The sentence this plan was made from. */
  sentence: string;
  /** Canonical action texts, each valid after the ones before it (checked on a clone). */
  steps: string[];
  /** The step that cannot be done, if any (the steps before it can). */
  failure?: PlanFailure;
  /** The last object the request named (for "it" in the next one). */
  lastObject?: string;
  /** What the partner wants overall, for the reply ("give", "hit", ...): the verb of the last step. */
  verb: string;
}

export interface PlanOptions {
  /** The object named last in the conversation, for "it"/"them" with nothing before it in the sentence. */
  lastObject?: string;
  /** The name to use for the partner in commands (default: the partner's name). */
  partnerName?: string;
}

const GRAPH_VERBS = new Set([
  'get', 'take', 'grab', 'fetch', 'collect', 'pick', 'drop', 'discard', 'put', 'place', 'set', 'stow', 'stash',
  'give', 'hand', 'offer', 'steal', 'snatch', 'wear', 'don', 'wield', 'brandish', 'draw', 'equip', 'remove', 'unequip',
  'doff', 'sheathe', 'eat', 'consume', 'drink', 'quaff', 'sip', 'hit', 'attack', 'punch', 'strike', 'kick', 'slap',
  'kill', 'hug', 'embrace', 'cuddle', 'pass', 'toss', 'throw', 'lend', 'bring', 'show', 'pour', 'return', 'spare',
]);

/** Gerunds after "would you mind", "how about". */
const GERUNDS: Record<string, string> = {
  getting: 'get', sparing: 'spare', taking: 'take', grabbing: 'grab', fetching: 'fetch', picking: 'pick', dropping: 'drop', putting: 'put',
  placing: 'place', giving: 'give', handing: 'hand', passing: 'pass', tossing: 'toss', throwing: 'throw', lending: 'lend',
  bringing: 'bring', stealing: 'steal', wearing: 'wear', wielding: 'wield', drawing: 'draw', removing: 'remove',
  eating: 'eat', drinking: 'drink', hitting: 'hit', attacking: 'attack', hugging: 'hug', showing: 'show', returning: 'return',
};

const POLITE = [
  /^(?:oh|ah|hey|hi|now|so|well|then|ok|okay|alright|right|listen|look|quick|quickly|come on|go on|and)\b[,!]?\s+/,
  /^please\s+/,
  /^(?:kindly|just|do|simply)\s+/,
  /^(?:can|could|would|will|won't|wouldn't|can't|might)\s+(?:you|ye|thou)\s+(?:please\s+|kindly\s+|perhaps\s+|maybe\s+|just\s+|possibly\s+)?/,
  /^(?:would|do)\s+you\s+mind\s+/,
  /^mind\s+/,
  /^(?:would|will)\s+you\s+be\s+(?:so\s+kind\s+as|kind\s+enough|a\s+dear\s+and)\s+(?:to\s+)?/,
  /^be\s+(?:so\s+kind\s+as|so\s+good\s+as|kind\s+enough|good\s+enough|a\s+dear\s+and)\s+(?:to\s+)?/,
  /^(?:i\s+was\s+wondering\s+if|i\s+wonder\s+if|(?:do\s+)?you\s+think)\s+you\s+(?:could|would|might|can)\s+(?:possibly\s+)?/,
  /^be\s+a\s+(?:dear|love|friend|lamb)\s+and\s+/,
  /^(?:i'd|i\s+would)\s+like\s+(?:you\s+)?to\s+/,
  /^i\s+(?:want|need|wish|ask|beg|order|command)\s+(?:of\s+)?you\s+to\s+/,
  /^i\s+must\s+ask\s+you\s+to\s+/,
  /^you\s+(?:should|ought\s+to|need\s+to|have\s+to|had\s+better|better)\s+/,
  /^(?:go\s+ahead\s+and|why\s+don't\s+you|why\s+not|how\s+about\s+you|how\s+about|let's\s+see\s+you|try\s+to|hurry\s+and|hurry\s+up\s+and)\s+/,
  /^i\s+(?:order|command)\s+you,?\s+/,
];

const VOCATIVES = /^(?:sir|madam|ma'am|friend|my friend|lad|lass|mate|love|dear|mother|father|mum|ma|pa|boy|girl|old man|woman|child|son|my lady|my lord|your grace|master|mistress)$/;

/** "can I have the sword", "I'd like the ale", "let me have it": something the partner wants given. */
const WANT = /^(?:(?:can|could|may|might)\s+i\s+(?:please\s+)?(?:have|get|borrow|take|see)|(?:i'd|i\s+would)\s+(?:like|love|take)|i\s+(?:want|need|crave|require|demand|will\s+take|'ll\s+take|could\s+use|could\s+do\s+with)|let\s+me\s+(?:have|borrow|see|hold)|give\s+us|i'll\s+have|i\s+will\s+have)\s+(.+)$/;

export function normaliseUtterance(text: string): string {
  return text
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Sentences of an utterance, without their final punctuation. */
export function sentences(text: string): string[] {
  return normaliseUtterance(text)
    .split(/(?<=[.!?;])\s+/)
    .map((s) => s.replace(/^["']+|["']+$/g, '').replace(/[.!?;]+$/, '').trim())
    .filter(Boolean);
}

function stripPoliteness(s: string, names: string[]): string {
  let out = s.toLowerCase().trim();
  // A leading vocative: "baker, give me ..." / "my friend, ..." / "you there, ...".
  const voc = /^([a-z' -]{1,30}?),\s+(.+)$/.exec(out);
  if (voc && (voc[1]!.split(' ').length <= 3)) {
    const first = voc[2]!.split(' ')[0]!;
    if (names.some((n) => voc[1]!.includes(n)) || /^(you|my|dear|friend|sir|madam|lad|lass|boy|girl|child|good|hey|oi)\b/.test(voc[1]!) || GRAPH_VERBS.has(first) || /^(please|can|could|would|will|i|let|do|just|now)$/.test(first)) out = voc[2]!;
  }
  for (let guard = 0; guard < 8; guard++) {
    const before = out;
    for (const p of POLITE) out = out.replace(p, '');
    if (out === before) break;
  }
  // Trailing vocatives and softeners: "..., please", "... for me", "..., baker", "... now".
  for (let guard = 0; guard < 4; guard++) {
    const before = out;
    out = out
      .replace(/,?\s+(?:please|too|as well|also|if you would|if you will|if you please|would you|will you|won't you|could you|for me|right now|now|at once|quickly|already|then|mate|friend|my friend|love|dear)$/, '')
      .replace(/\s+if\s+(?:you|ye)\s+(?:dare|can|like|want|wish|please|would|will|could|don't mind)\b.*$/, '')
      .replace(/,\s+([a-z' -]{1,30})$/, (m, clause: string) => {
        const first = clause.trim().split(/\s+/)[0] ?? '';
        if (GRAPH_VERBS.has(first) || GERUNDS[first] || first === 'then' || first === 'and') return m;
        return names.some((n) => clause.includes(n)) || clause.trim().split(/\s+/).length <= 4 ? '' : m;
      })
      .trim();
    if (out === before) break;
  }
  // ", sergeant," inside the sentence; "... before it goes cold" at its end.
  out = out.replace(/,\s+([a-z' -]{1,30}?),\s+/g, (m, v: string) => (names.some((n) => v.includes(n)) || VOCATIVES.test(v) ? ' ' : m));
  out = out.replace(/\s+(?:before|while|because|since|so that|so|as|when|until|unless|once|or i'll|or we'll)\s+(?:it|you|i|we|they|he|she|the|that|this|there)\b.*$/, '');
  const g = /^(\w+ing)\b(.*)$/.exec(out);
  if (g && GERUNDS[g[1]!]) out = GERUNDS[g[1]!] + g[2]!;
  return out;
}

/** Split "get the key from the chest and give it to me" into steps at a verb after "and"/"then". */
function splitSteps(s: string, isThing: (phrase: string) => boolean): string[] {
  const parts = s.split(/\s*(?:,?\s+and\s+then\s+|,\s*then\s+|\s+then\s+|,?\s+and\s+|;\s*|,\s+(?=(?:the|a|an|some|your|my)\s))/);
  const steps: string[] = [];
  for (const p of parts) {
    const first = p.split(' ')[0] ?? '';
    const gerund = GERUNDS[first];
    const verb = gerund ?? first;
    if (steps.length && !GRAPH_VERBS.has(verb)) {
      // "give me the bread and the cheese": the second thing takes the first one's verb.
      coordinate(steps, p, isThing);
      // "take off your hat and rest a while": what follows "and" without a graph verb or a thing is not part of the request.
      continue;
    }
    steps.push(gerund ? gerund + p.slice(first.length) : p);
  }
  return steps.map((x) => x.trim()).filter(Boolean);
}

const TAIL = /^(.+?)\s+((?:to|from|off|out of|in|into|inside|on|onto)\s+.+)$/;

/**
 * A second object after "and" ("the cheese", "the jug from the shelf"): a step with the previous
 * step's verb; a place or person after it ("... and the cheese from the basket") is shared with the
 * previous step when that one names none.
 */
function coordinate(steps: string[], part: string, isThing: (phrase: string) => boolean): void {
  const phrase = part.replace(/^both\s+/, '');
  const split = kindOf(phrase) ? null : TAIL.exec(phrase);
  const thing = split ? split[1]! : phrase;
  if (!isThing(thing)) return;
  const prev = steps[steps.length - 1]!;
  const frame = /^(\w+(?:\s+(?:me|us|up|off|on|down))?)\s+/.exec(prev);
  if (!frame) return;
  const tail = split?.[2];
  const prevTail = TAIL.exec(prev.slice(frame[0].length))?.[2];
  const prevHasTail = !!prevTail || (/\s(?:me|us)$/.test(frame[1]!) && /^to\s/.test(tail ?? ''));
  if (tail && !prevHasTail) steps[steps.length - 1] = `${prev} ${tail}`;
  // "put the cup on the table and the jug": the jug goes on the table too.
  const sharedPlace = !tail && prevTail && PLACING.has(frame[1]!) ? ` ${prevTail}` : '';
  steps.push(`${frame[1]} ${phrase}${sharedPlace}`);
}

const PLACING = new Set(['put', 'place', 'set', 'stow', 'stash']);

interface StepText {
  command: string;
  /** The object phrase named, for "it" later. */
  object?: string;
  verb: string;
  /** The step asks for something to be given to the partner. */
  givesToPartner: boolean;
  /** Asked for by kind ("something to eat"): the character picks what it gives. */
  kind?: Kind;
  /** The object must be something here even though it is asked for ("spare me the lecture" is no request). */
  mustBeHere?: boolean;
  /** The object was "it", "them", ...: the thing spoken of last stood in for it. */
  pronoun?: boolean;
}

/** A pronoun standing for the whole object phrase: "it", "put it in the chest", "pick them up". */
const PRONOUN_OBJ = /^(?:it|them|that|this|this one|that one|those|these|the same|one|some|a few|a little|a bit)\b(?=\s+(?:from|off|out|in|into|inside|on|onto|upon|to|down|up|back|over)\b|\s*$)/;

const PREPOSITION = '(?:from|off|out|in|into|inside|on|onto|upon|to|down|up|back|over)';

/** "that flask of rum" -> "flask of rum"; "put that in the chest" keeps the pronoun "that". */
function stripDeterminers(text: string): string {
  return text.replace(new RegExp(`\\b(?:that|this|those|these|yon|yonder)\\s+(?!${PREPOSITION}\\b)(?=[a-z])`, 'g'), '');
}

/** Words of a noun phrase, without articles. */
function phraseWords(phrase: string): string[] {
  return phrase.toLowerCase().split(/[^a-z0-9'-]+/).filter((w) => w && !['a', 'an', 'the', 'my', 'your', 'some', 'any', 'his', 'her', 'their'].includes(w));
}

/** Does every word of the phrase start a word of the name (or is a plural of one)? */
function phraseNames(words: string[], name: string): boolean {
  const nw = name.toLowerCase().split(/[^a-z0-9'-]+/);
  return words.length > 0 && words.every((w) => nw.some((x) => x.startsWith(w) || (w.endsWith('s') && x === w.slice(0, -1))));
}

/**
 * Get the thing a phrase names, wherever it lies within reach: "get herring" when the herring is
 * in a crate and the crate's name also says "herring". Uses the valid actions, so it only ever
 * returns an action that succeeds (on `world`, which it changes).
 */
function getWithinReach(world: World, self: NodeId, phrase: string): ReturnType<typeof execute> | null {
  const words = phraseWords(phrase);
  const gets = validActions(world, self).filter((a) => a.startsWith('get ') && phraseNames(words, a.slice(4).split(' from ')[0]!));
  let objects = [...new Set(gets.map((a) => a.slice(4).split(' from ')[0]!))];
  // "lobster": the live lobster (head noun) rather than the lobster pot.
  const head = words[words.length - 1];
  const byHead = objects.filter((o) => o.split(' ').pop() === head || o.split(' ').pop() === head?.replace(/s$/, ''));
  if (objects.length > 1 && byHead.length === 1) objects = byHead;
  if (objects.length !== 1) return null;
  const mine = gets.filter((a) => a.slice(4).split(' from ')[0] === objects[0]);
  return execute(world, self, mine.find((a) => !a.includes(' from ')) ?? mine[0]!);
}

/** What "give" asks for: the thing, the command and whether it goes to the partner. */
interface GiveParts {
  object: string;
  command: string;
  givesToPartner: boolean;
}

/**
 * "give me the sword", "give the sword to me", "give it back", "pass something to eat", "give me
 * one of your apples"; a hug when "give me a hug"; null for what nobody hands over ("give me a
 * moment", "give me something").
 */
function giveCommand(rest: string, partner: string, sub: (text: string) => string): GiveParts | StepText | null {
  if (/^(?:(?:me|us)\s+)?(?:a\s+)?hug\b/.test(rest)) return { command: `hug ${partner}`, verb: 'hug', givesToPartner: false };
  let m = /^(?:me|us)\s+(.+)$/.exec(rest);
  if (m && /^(?:a\s+|an\s+|some\s+)?(?:hand|moment|minute|second|break|chance|word|hint|clue|reason|rest|peace|time|answer|sign|look|try|go|kiss)\b/.test(m[1]!)) return null;
  let object: string | null;
  let toPartner = true;
  let target = partner;
  if (m) object = thingAsked(m[1]!);
  else if (kindOf(rest)) object = rest; // "pass something to eat"
  else if ((m = /^(.+?)\s+to\s+(.+)$/.exec(rest))) {
    object = thingAsked(m[1]!);
    toPartner = /^(me|us|myself)$/.test(m[2]!.trim());
    target = sub(m[2]!);
  } else if (rest && !/\bto\b/.test(rest)) object = thingAsked(rest); // "hand it over", "pass the salt"
  else return null;
  if (!object) return null;
  return { object, command: `give ${kindOf(object) ? object : sub(object)} to ${target}`, givesToPartner: toPartner };
}

/** Quantities come off ("one of your apples" -> "your apples"); a thing too vague to hand over is null. */
function thingAsked(phrase: string): string | null {
  const p = phrase
    .replace(/^(?:one|some|any|a\s+few|a\s+couple|all|both|each|half|a\s+(?:bit|piece|slice|chunk|hunk|sip|swig|drop|mouthful|bite|taste|crumb|drink|little))\s+of\s+/, '')
    .replace(/^all\s+(?=(?:the|your|my|those|these|that|this)\s)/, '');
  // "I need someone to keep the lists": a person, not a thing to hand over
  if (/^(?:(?:some|any|every|no)(?:one|body)|no one)\b/.test(p)) return null;
  return /^(?:(?:some|any|every|no)thing|all|what|whatever)(?:\s+(?:you|you've|ye|of it|of them|else|at all)\b.*)?$|^whatever\b/.test(p) ? null : p;
}

/** A time to come at the end of a step. */
const LATER = /\s(?:next\s+(?:week|time|month|year|spring|summer|autumn|winter|market\s+day)|tomorrow|tonight|later|some\s?day|one\s+day|another\s+(?:day|time)|in\s+the\s+(?:morning|spring|summer|autumn|winter)|after\s+(?:the\s+)?(?:harvest|market|fair|feast))$/;

/** One step's words to an engine command, with pronouns resolved. Null when it is not a graph action. */
function stepCommand(raw: string, partner: string, last: string | undefined): StepText | null {
  let s = raw.replace(/^(?:and|then)\s+/, '').trim();
  s = s.replace(/\s+(?:back|over|here|over here|to me now)$/, (m) => (/to me/.test(m) ? ' to me' : ''));
  const words = s.split(' ');
  let verb = words[0] ?? '';
  // "give it back to me", "hand the key over to the guard": the adverb is no part of the object.
  let rest = words.slice(1).join(' ').replace(/\s+(?:back|over)(?=\s+to\b|$)/, '');
  if (!GRAPH_VERBS.has(verb)) return null;
  // "bring back the rabbit" is "bring the rabbit back"; "bring back no rabbits" asks for none
  rest = rest.replace(/^(?:back|over)\s+(?!to\b)/, '');
  if (/^(?:no|none|nothing)\b/.test(rest)) return null;
  // "Bring one next week", "give it back tomorrow": a promise asked for, not something to do now.
  if (LATER.test(rest)) return null;
  // "throw it away", "toss the bones away": drop it, not give it
  if ((verb === 'throw' || verb === 'toss') && /\s+away$/.test(rest)) {
    verb = 'drop';
    rest = rest.replace(/\s+away$/, '');
  }
  // Synonyms the engine's parser does not know.
  // "spare me the lecture" is no request, nor "show me these tracks of yours": what is spared or shown
  // must be here, or asked for by kind.
  const spared = verb === 'spare' || verb === 'show';
  if (['pass', 'toss', 'throw', 'lend', 'bring', 'show', 'return', 'spare'].includes(verb)) verb = 'give';
  if (verb === 'hand' && /^over\b/.test(rest)) rest = rest.replace(/^over\s*/, '');
  if (verb === 'hand' || verb === 'offer') verb = 'give';
  if (verb === 'pour') return null;
  // "put it on" = wear it; "take it off" = remove it.
  if (verb === 'put' && /^(.+?)\s+on$/.test(rest) && !/\s(?:in|into|on|onto|upon)\s/.test(rest.replace(/\s+on$/, ' '))) {
    verb = 'wear';
    rest = rest.replace(/\s+on$/, '');
  } else if (['take', 'pull'].includes(verb) && /^(.+?)\s+off$/.test(rest)) {
    verb = 'remove';
    rest = rest.replace(/\s+off$/, '');
  }
  const sub = (text: string): string => {
    let t = stripDeterminers(text.trim());
    if (last) t = t.replace(PRONOUN_OBJ, last);
    t = t.replace(/\b(me|myself|us)\b/g, partner);
    return t.replace(/\s+/g, ' ').trim();
  };
  let object: string | undefined;
  let command: string;
  let givesToPartner = false;
  if (verb === 'give') {
    const g = giveCommand(rest, partner, sub);
    if (!g || 'verb' in g) return g;
    ({ object, command, givesToPartner } = g);
  } else if (['hit', 'attack', 'punch', 'strike', 'kick', 'slap', 'kill', 'hug', 'embrace', 'cuddle'].includes(verb)) {
    if (!rest) return null;
    command = `${verb} ${sub(rest.replace(/\s+with\s+.*$/, ''))}`;
  } else {
    if (!rest) return null;
    const objPart = rest.replace(/\s+(?:from|off|out of|in|into|inside|on|onto|upon)\s+.*$/, '').replace(/^(?:up|on|off|down)\s+/, '');
    object = objPart;
    command = `${verb} ${sub(rest)}`;
  }
  const pronoun = object !== undefined && PRONOUN_OBJ.test(object.trim());
  if (pronoun && !last) return null;
  const resolvedObject = object ? sub(object) : undefined;
  const kind = givesToPartner && object ? kindOf(object) : undefined;
  return { command, object: resolvedObject && !/^(me|us)$/.test(resolvedObject) ? resolvedObject : undefined, verb, givesToPartner, ...(kind ? { kind } : {}), ...(spared && !kind ? { mustBeHere: true } : {}), ...(pronoun ? { pronoun } : {}) };
}

/** The engine's second-person explanation, put in the first person. */
export function firstPerson(text: string): string {
  let t = text.trim();
  const rules: [RegExp, string][] = [
    [/\bYou aren't\b/g, "I'm not"], [/\byou aren't\b/g, "I'm not"],
    [/\bYou are\b/g, 'I am'], [/\byou are\b/g, 'I am'],
    [/\bYou're\b/g, "I'm"], [/\byou're\b/g, "I'm"],
    [/\bYou don't\b/g, "I don't"], [/\byou don't\b/g, "I don't"],
    [/\bYou can't\b/g, "I can't"], [/\byou can't\b/g, "I can't"],
    [/\bYou cannot\b/g, 'I cannot'], [/\byou cannot\b/g, 'I cannot'],
    [/\bYou have\b/g, 'I have'], [/\byou have\b/g, 'I have'],
    [/\bYou only see\b/g, 'I only see'],
    [/\bYou\b/g, 'I'], [/\byourself\b/g, 'myself'], [/\bYour\b/g, 'My'], [/\byour\b/g, 'my'],
  ];
  for (const [re, to] of rules) t = t.replace(re, to);
  // " you" left over as an object ("... to you") is fine as is; questions back from the parser stay questions.
  return t;
}

const NOT_HERE = /don't see any|is not someone|is a person, not a thing|only see \d|is not here/;

/** Is the object phrase something this world has anywhere near (visible from self)? */
function known(world: World, self: NodeId, phrase: string | undefined): boolean {
  if (!phrase) return true;
  const words = phraseWords(phrase);
  return world.visibleFrom(self).some((id) => {
    const n = world.object(id);
    return !!n && phraseNames(words, n.name);
  });
}

/**
 * The plan for a request in `text` from `partner` to `self`, or null if `text` requests no graph
 * action. Every step in `steps` has been executed, in order, on a clone of `world` (which is not
 * changed).
 */
export function planRequest(world: World, self: NodeId, partner: NodeId, text: string, opts: PlanOptions = {}): RequestPlan | null {
  const me = world.character(self);
  const them = world.character(partner);
  if (!me || !them) return null;
  const who: Parties = { self, partner, partnerName: opts.partnerName ?? them.name.toLowerCase() };
  const names = [me.name.toLowerCase(), ...me.name.toLowerCase().split(' ').filter((w) => w.length > 3)];
  for (const sentence of sentences(text)) {
    const plan = planSentence(world, who, sentence, names, opts.lastObject);
    if (plan) return plan;
  }
  return null;
}

/** The character asked, the one asking, and the asker's name as commands spell it. */
interface Parties {
  self: NodeId;
  partner: NodeId;
  partnerName: string;
}

/** Things one may want that no one can hand over: "I need some rest", "I'd love to". */
const NOT_A_THING = /^(?:to|a word|a moment|a minute|a second|some peace|peace|help|your help|a hug|you|(?:some |a |more )?(?:rest|sleep|time|air|quiet|silence|advice|answers?|company|break|bath|nap|chance|favour|favor|word|talk|chat|hand|friend|doctor|healer|holiday|drink of water from the well))\b/;

/** "can I have the sword" -> "give me the sword"; "I need some rest" -> null (not a request); else unchanged. */
function wantToGive(s: string): string | null {
  const want = WANT.exec(s);
  if (!want) return s;
  let thing = want[1]!.replace(/\s+(?:please|from you|off you|of yours|if i may|for a moment|back)$/g, '').trim();
  // what it is for is not part of its name: "I need it to get up the mountain", "a rope so I can climb"
  if (!kindOf(thing)) thing = thing.replace(/\s+(?:to|so|in order to)\s+\S.*$/, '').trim();
  if (/^a hug\b/.test(thing)) return 'hug me';
  if (!thing || (NOT_A_THING.test(thing) && !kindOf(thing))) return null;
  return `give me ${thing}`;
}

/**
 * "fetch me the cup", "give me the cup from the shelf": get it (from there), then give it. "fetch
 * me something to eat": give me something to eat (the character fetches what it picks).
 */
function fetchThenGive(step: string): string[] {
  const fetch = /^(?:get|fetch|grab|bring|pick up|take) (?:me|us) (.+?)(?: (from|off|out of) (.+))?$/.exec(step);
  const giveFrom = /^(?:give|hand|pass|toss|throw|lend|bring|offer) (?:me|us) (.+?) (from|off|out of) (.+)$/.exec(step);
  const m = fetch ?? giveFrom;
  if (!m) return [step];
  if (kindOf(m[1]!)) return [`give me ${m[1]}`]; // the character finds one itself
  return [`get ${m[1]}${m[3] ? ` ${m[2]} ${m[3]}` : ''}`, 'give it to me'];
}

function planSentence(world: World, who: Parties, sentence: string, names: string[], lastObject: string | undefined): RequestPlan | null {
  let s = wantToGive(stripPoliteness(sentence, names));
  if (!s) return null;
  if (/^hug\s+me$|^(?:give\s+me\s+)?(?:a\s+)?hug$/.test(s)) s = 'hug me';
  const isThing = (p: string) => !!kindOf(p) || known(world, who.self, p) || SHORT_NOUN_PHRASE.test(p);
  const stepTexts = splitSteps(s, isThing).flatMap(fetchThenGive);
  if (!stepTexts.length) return null;
  const parsed = parseSteps(stepTexts, who.partnerName, lastObject);
  if (!parsed) return null;
  // Is it clearly meant? Every named object must be something here, except for "give me X".
  for (const st of parsed) if ((!st.givesToPartner || st.mustBeHere) && !known(world, who.self, st.object)) return null;
  // "Eat it while it's warm" when the thing spoken of last is a hammer: "it" is something else (a pie
  // the speaker has in mind), not a request to eat the hammer
  for (const st of parsed) {
    if (!st.pronoun || (st.verb !== 'eat' && st.verb !== 'drink') || !st.object) continue;
    const o = objectNamed(world, who.self, st.object).object;
    if (o && !(st.verb === 'eat' ? o.food : o.drink)) return null;
  }
  return runPlan(world, who, sentence, parsed, lastObject);
}

/** Each step's words as an engine command; null when one is not a graph action. */
function parseSteps(stepTexts: string[], partnerName: string, lastObject: string | undefined): StepText[] | null {
  const parsed: StepText[] = [];
  let last = lastObject;
  for (const t of stepTexts) {
    const st = stepCommand(t, partnerName, last);
    if (!st) return null;
    if (!st.kind) {
      const intent = parse(st.command);
      if (intent.kind !== 'action' && intent.kind !== 'equip') return null;
      st.verb = intent.kind === 'equip' ? 'equip' : intent.action === 'get_from' ? 'get' : intent.action;
    }
    parsed.push(st);
    if (st.object) last = st.object;
  }
  return parsed;
}

/** Run the steps in order on a clone of the world; the first that cannot be done stops the plan. */
function runPlan(world: World, who: Parties, sentence: string, parsed: StepText[], lastObject: string | undefined): RequestPlan | null {
  const room = world.roomOf(who.self);
  const clone = room ? world.cloneRoom(room) : world.clone();
  const steps: string[] = [];
  let lastNamed = lastObject;
  for (let i = 0; i < parsed.length; i++) {
    const st = parsed[i]!;
    const next = parsed[i + 1];
    const r = runStep(clone, who, st, !!next && next.verb === 'give' && next.object === st.object);
    steps.push(...r.actions);
    if (r.reason === undefined) {
      if (st.object) lastNamed = st.object;
      continue;
    }
    if (!st.givesToPartner && r.notHere && i === 0) return null;
    return { sentence, steps, failure: { step: steps.length, command: st.command, reason: r.reason }, lastObject: st.object ?? lastNamed, verb: st.verb };
  }
  return { sentence, steps, lastObject: lastNamed, verb: parsed[parsed.length - 1]!.verb };
}

/** What one step came to: the actions done (on the clone), or why it cannot be done. */
interface StepResult {
  actions: string[];
  reason?: string;
  /** The engine did not see the thing or person named. */
  notHere?: boolean;
}

const done = (...actions: string[]): StepResult => ({ actions });

function runStep(clone: World, who: Parties, st: StepText, nextGivesIt: boolean): StepResult {
  if (st.kind) return giveByKind(clone, who, st, st.kind);
  // "get the herring" when it lies in the crate: whatever get of that name is valid.
  const plainGet = st.verb === 'get' && st.object && !/\bfrom\b/.test(st.command) ? getWithinReach(clone, who.self, st.object) : null;
  const out = plainGet ?? execute(clone, who.self, st.command);
  if (out.ok && out.action) return done(out.action);
  if (st.verb === 'get' && alreadyHeld(clone, who.self, st.object, out.text, nextGivesIt)) return done(); // nothing to fetch
  const handed = st.object && HANDING.has(st.verb) && (out.failed === 'carried' || NOT_SEEN.test(out.text) || WHICH.test(out.text)) ? readyThenDo(clone, who, st) : null;
  if (handed) return handed;
  if (st.givesToPartner && NOT_SEEN.test(out.text)) return { actions: [], reason: dontHave(st.object ?? 'that') };
  return { actions: [], reason: reasonFor(st, out.text), notHere: NOT_HERE.test(out.text) };
}

/** Verbs whose object must be carried, so a thing worn, wielded or within reach is made ready first. */
const HANDING = new Set(['give', 'drop', 'put']);

const NOT_SEEN = /don't see any/;
const WHICH = /^Which .* mean/;

/**
 * "get the apple (from the sack)" when the character already carries it; or already wears it,
 * when the next step gives it ("give me the boots from the boat" while wearing them).
 */
function alreadyHeld(world: World, self: NodeId, phrase: string | undefined, failure: string, nextGivesIt: boolean): boolean {
  if (/^You already have /.test(failure)) return true;
  const o = phrase ? objectNamed(world, self, phrase).object : undefined;
  const place = o && world.placement(o.id);
  return !!place && place.parent === self && (place.rel === 'carried' || nextGivesIt);
}

/**
 * The thing named is not in hand: take it off, or get it from within reach, then do the step
 * with the thing's own name. Someone else holding it is the reason when the partner asked for it;
 * a thing that cannot be picked up, the engine's reason; two things of the name, a question.
 */
function readyThenDo(clone: World, who: Parties, st: StepText): StepResult | null {
  const { object: o, which } = objectNamed(clone, who.self, st.object!);
  if (which) return { actions: [], reason: which };
  if (!o) return null;
  const holder = clone.holderOf(o.id);
  if (holder && holder !== who.self) return st.givesToPartner ? { actions: [], reason: heldByOther(clone, holder, who.partner, o) } : null;
  const name = o.name.toLowerCase();
  const first = readyInHand(clone, who.self, o);
  if (first.reason !== undefined) return first;
  const out = execute(clone, who.self, st.command.replace(st.object!, name));
  if (!out.ok || !out.action) return null;
  st.object = name;
  return done(...first.actions, out.action);
}

/** The actions that put an object the character can reach into its hands ([] when it carries it), or why it cannot. */
function readyInHand(clone: World, self: NodeId, o: ObjectNode): StepResult {
  const place = clone.placement(o.id);
  const name = o.name.toLowerCase();
  if (place?.parent === self && place.rel === 'carried') return done();
  const wearing = place?.parent === self && (place.rel === 'worn' || place.rel === 'wielded');
  const out = wearing ? execute(clone, self, `remove ${name}`) : getWithinReach(clone, self, o.name) ?? execute(clone, self, `get ${name}`);
  return out.ok && out.action ? done(out.action) : { actions: [], reason: firstPerson(out.text) };
}

/** "something to eat": a food the character carries, else one within reach; why not, if none. */
function giveByKind(clone: World, who: Parties, st: StepText, kind: Kind): StepResult {
  const pick = pickByKind(clone, who.self, kind);
  if (!pick) return { actions: [], reason: noneOfKind(kind) };
  if (pick.how === 'worn') return { actions: [], reason: wornReason(clone, pick.object) };
  const name = pick.object.name.toLowerCase();
  st.object = name;
  st.command = `give ${name} to ${who.partnerName}`;
  const first = readyInHand(clone, who.self, pick.object);
  if (first.reason !== undefined) return first;
  const out = execute(clone, who.self, st.command);
  return out.ok && out.action ? done(...first.actions, out.action) : { actions: [], reason: firstPerson(out.text) };
}

/** The engine's reason in the first person, and in words the character would use. */
function reasonFor(st: StepText, failure: string): string {
  const already = /^You are (wearing|wielding) (.+); remove it first\.$/.exec(failure);
  if (already && (st.verb === 'wear' || st.verb === 'wield' || st.verb === 'equip')) return `I'm already ${already[1]} ${already[2]}.`;
  if (already) return `I'm ${already[1]} ${already[2]}; I'd have to ${already[1] === 'wearing' ? 'take it off' : 'put it away'} first.`;
  return firstPerson(failure);
}

/** A short noun phrase with a determiner: "the cheese", "a clay jug". */
const SHORT_NOUN_PHRASE = /^(?:the|a|an|some|your|my|that|this|those|these|any)\s+[a-z'-]+(?:\s+[a-z'-]+){0,2}$/;
