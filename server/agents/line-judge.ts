/**
 * Whether a retrieved line fits the speaker and the scene, by rules a person would also apply:
 *
 * - it does not name the speaker ("The goat wants the orchard", said by the goat);
 * - it was not written to a character of the speaker's kind ("You're a long way from the water,
 *   boy" was said *to* the eel boy in the corpus; the eel boy may not say it);
 * - it names nobody and nothing absent: proper names must belong to someone present or to the
 *   live world's places, and the corpus's object names must be things in the room;
 * - it makes no claim about the speaker's own things that the graph contradicts ("I don't have any
 *   firewood" while holding it, "take my lantern" with no lantern);
 * - it is not one of the speaker's own recent lines.
 *
 * Names in the pool become slots: a line that opens or closes by calling its addressee by name
 * ("Tinker, they tell me you sharpen knives.") is said with the real partner's name.
 *
 * Metadata comes from the written episodes (who said each line, to whom) in the corpus world; lines
 * from elsewhere (the model's utterances.txt) get the checks that need no metadata.
 */
import type { Episode } from '../episodes/episode.js';
import type { World } from '../engine/world.js';
import { greets, repeatsItself, type Flow } from './conversation-flow.js';

export interface LineMeta {
  /** Head words of the characters the line was said to ("boy", "tinker"). */
  addressees: Set<string>;
  /** The line with its vocative replaced by `{partner}`, when it has one. */
  template?: string;
  /** Capitalised words inside sentences (proper names: "Jory", "Saltmere"). */
  proper: string[];
  /** Object names of the corpus world that the line mentions. */
  objects: string[];
}

export interface Scene {
  selfName: string;
  /** The speaker's persona (whose lines fit it: reply-examples.ts). */
  selfPersona?: string;
  partnerName?: string;
  /** Everyone else present. */
  present: string[];
  /** Names of objects in the room at any depth, held by anyone present, or the speaker's own. */
  objects: string[];
  /** Names of what the speaker carries, wears or wields. */
  held: string[];
  /** Lines the speaker said lately (lowercased, trimmed). */
  said: Set<string>;
  /** What the partner just said, if anything (a question is not answered by asking it back). */
  partnerLine?: string;
  /**
   * Words the speaker may speak of as things at hand ("the crate", "your lamp"): its persona, the
   * setting's name and description, the names and descriptions of the objects present, and the
   * conversation so far. Without it, only `objects` counts.
   */
  known?: Set<string>;
  /** Where the conversation stands (conversation-flow.ts): a greeting fits only before the speaker has spoken. */
  flow?: Flow;
}

export type Verdict = { ok: true; text: string } | { ok: false; reason: 'repeat' | 'late_greeting' | 'echo' | 'self_naming' | 'wrong_role' | 'absent_name' | 'contradiction' };

const words = (s: string): string[] => s.toLowerCase().match(/[a-z0-9']+/g) ?? [];
/** Last word of a name, lowercased ("old fisherman" -> "fisherman"). */
export const head = (name: string): string => words(name).pop() ?? '';
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Capitalised words not at the start of a sentence, and not "I". */
export function properNouns(text: string): string[] {
  const out: string[] = [];
  const re = /(^|[.!?]\s+|["“(]\s*)?\b([A-Z][a-z']+)\b/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    if (m[1] !== undefined || m.index === 0) continue; // sentence start
    const w = m[2]!;
    if (w === 'I' || /^I'/.test(w)) continue;
    out.push(w);
  }
  return [...new Set(out)];
}

const TITLES = new Set(['sir', 'madam', 'lady', 'lord', 'master', 'mistress', 'father', 'mother', 'brother', 'sister', 'god', 'gods', 'king', 'queen', 'prince', 'princess', 'captain', 'miss', 'mister', 'dame', 'majesty', 'highness', 'grace', 'my']);

/** Words that may stand before a name in a vocative: "great dog", "little mistress". */
const VOCATIVE_ADJECTIVES = '(?:little|great|big|poor|sweet|silly|clever|kind|brave|wise|noble|honest|fair|gentle|lovely|handsome|pretty|wee|lazy|foolish)';

/** Ways of calling someone that fit only some people ("little one", "child", "lad"): slots like names. */
export const GENERIC_VOCATIVES = ['little one', 'little creature', 'creature', 'beast', 'little beast', 'child', 'lad', 'lass', 'boy', 'girl', 'son', 'daughter', 'little mistress', 'little master', 'young man', 'young lady', 'old man', 'old woman', 'grandfather', 'grandmother', 'granny', 'grandpa', 'grandma', 'my boy', 'my girl', 'my child', 'children'];

/** "Good morning, smith!", "Hello, cloth man!": whoever a greeting calls by one or two words is its addressee. */
const GREETING_VOCATIVE = /^(?:hello|hi|hey|greetings|well met|good (?:morning|day|evening|afternoon)|morning|evening|welcome)(?: again| back| there)?,\s+(?:my\s+|little\s+|old\s+|young\s+|dear\s+)?([a-z]+(?:\s+[a-z]+)?)\s*[!.,?]/i;
/** One-word ways of calling anyone: these stay as they are. */
const FITS_ANYONE = new Set(['friend', 'friends', 'sir', 'madam', 'stranger', 'traveller', 'traveler', 'everyone', 'all', 'there', 'neighbour', 'neighbor', 'lord', 'lady', 'master', 'mistress', 'you', 'again', 'folks', 'love', 'dear']);

/** The patterns of a vocative naming `name`, by name: compiled once (they have no state: no /g). */
const vocatives = new Map<string, { start: RegExp; end: RegExp }>();

function vocativePatterns(name: string): { start: RegExp; end: RegExp } {
  let p = vocatives.get(name);
  if (!p) {
    const alt = `(?:the\\s+|my\\s+|old\\s+|young\\s+|good\\s+|dear\\s+|mister\\s+|master\\s+|mistress\\s+)?(?:${VOCATIVE_ADJECTIVES}\\s+)?${escape(name)}`;
    p = {
      start: new RegExp(`^(?:(?:hello|hi|hey|ho|oi|greetings|well met|good (?:morning|day|evening)|ah|oh|look|listen|thank you|thanks|morning|evening),?\\s+)?(${alt})(?=\\s*[,!?])`, 'i'),
      end: new RegExp(`,\\s+(${alt})(?=\\s*[.!?,;])`, 'i'),
    };
    if (vocatives.size >= 10_000) vocatives.clear();
    vocatives.set(name, p);
  }
  return p;
}

/** The vocative naming `names` at the start ("Tinker, ...") or end ("..., boy.") of a line, as a template. */
export function vocativeTemplate(text: string, names: string[]): string | undefined {
  for (const n of names.filter(Boolean).sort((a, b) => b.length - a.length)) {
    const { start, end } = vocativePatterns(n);
    const m = start.exec(text);
    if (m) return text.slice(0, m.index + m[0].length - m[1]!.length) + '{partner}' + text.slice(m.index + m[0].length);
    const e = end.exec(text);
    if (e) return text.slice(0, e.index) + ', {partner}' + text.slice(e.index + e[0].length);
  }
  return undefined;
}

/** Fill a template with the partner's name: "Tinker, ..." -> "Baker, ...", "..., boy." -> "..., fisherman." */
export function fill(template: string, partner: string): string {
  const name = partner.replace(/^(?:the|a|an)\s+/i, '');
  return template.replace(/(^|[.!?]\s+|["“]\s*)?\{partner\}/g, (_m, lead: string | undefined) => {
    const atStart = lead !== undefined || template.startsWith('{partner}');
    return (lead ?? '') + (atStart ? name.charAt(0).toUpperCase() + name.slice(1) : name);
  });
}

/** A template without its vocative, for when there is nobody to call by name. */
export function dropVocative(template: string): string {
  const t = template.includes(', {partner}') ? template.replace(/,\s*\{partner\}/g, '') : template.replace(/\{partner\}\s*[,!]?\s*/g, '').trim();
  return t.charAt(0).toUpperCase() + t.slice(1);
}

/**
 * Object heads the written corpus names with "the", "this", "your"... without the thing being in
 * the scene in more than 3 of 10 such lines (at least 4 of them): things of the wider world ("the
 * door", "the fire", "the stars", "your head", "the poor"). Measured with `pointedAt` over the corpus's
 * 45,258 lines, each in its own staged scene (persona, setting, objects present, the conversation so
 * far); with these left out, the rule refuses 2.0% of the corpus's own lines in their own scenes.
 */
const GENERIC_THINGS = new Set([
  'acorns', 'apron', 'armour', 'banner', 'bed', 'bird', 'blind', 'board', 'boat', 'boots', 'branch', 'can', 'cart', 'chair', 'cloth', 'coat',
  'collar', 'crab', 'crop', 'crown', 'daisies', 'dew', 'door', 'dress', 'feathers', 'fire', 'food', 'fruit', 'god', 'goose', 'grain', 'grave',
  'harp', 'head', 'hole', 'kingdom', 'lamb', 'lead', 'leaves', 'letter', 'list', 'lists', 'mist', 'nuts', 'paper', 'papers', 'pike', 'poor',
  'post', 'rail', 'robe', 'rock', 'sling', 'slug', 'stick', 'stool', 'string', 'strongbox', 'sweet', 'taxes', 'teeth', 'torch', 'treasure', 'wagon',
  'windowsill',
]);

/** Object heads that are also parts of the body ("up to my chest"): never taken for the object. */
const BODY_WORDS = new Set(['chest', 'back', 'hand', 'arm', 'neck', 'foot', 'face', 'heart', 'belly', 'nose', 'ear', 'eye', 'tongue', 'skin', 'palm', 'finger', 'hip', 'knee', 'shoulder', 'lip']);

/** Words that end the phrase after a determiner ("the castle on its rock": "castle" only). */
const PHRASE_END = /^(?:of|and|or|on|in|at|to|for|from|with|by|is|are|was|were|be|you|i|it|he|she|we|they|that|which|who|as|but|so|if|when|than|then|there|here)$/;
const POINTING = /\b(?:the|this|that|these|those|your)\s+(?=([a-z' -]+))/gi;

/** The head among `heads` that a word names, as written or singular ("crates" -> "crate", "boxes" -> "box"). */
function headIn(w: string, heads: Set<string>): string | undefined {
  for (const h of [w, w.replace(/e?s$/, ''), w.replace(/s$/, '')]) if (heads.has(h)) return h;
  return undefined;
}

/**
 * Is a thing, by its head word (singular or plural), at hand: among the words of `objects` or of the
 * scene's `known` words?
 */
function atHand(known: Set<string>, objects: string[]): (h: string) => boolean {
  const objectWords = new Set(objects.flatMap(words));
  return (h) => [h, `${h}s`, `${h}es`].some((x) => known.has(x) || objectWords.has(x));
}

/**
 * The things a line points at as if they were at hand: the first object head among the (up to three)
 * words after each "the", "this", "that", "these", "those" or "your".
 */
export function pointedAt(line: string, heads: Set<string>): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(POINTING)) {
    for (const w of words(m[1]!).slice(0, 3)) {
      if (PHRASE_END.test(w)) break;
      const h = headIn(w, heads);
      if (h) {
        out.push(h);
        break;
      }
    }
  }
  return out;
}

export class PoolLines {
  private readonly meta = new Map<string, LineMeta>();
  /** Object names by their last word (only names whose last word a line has are tried on it). */
  private readonly objectNames = new Map<string, { name: string; re: RegExp }[]>();
  /**
   * Words that are names wherever they stand ("Aldous", "Gwen"): capitalised inside a sentence
   * somewhere in the pool or the corpus world, and never written in lower case there.
   */
  readonly names = new Set<string>();
  private readonly kinds = new Set<string>();
  /** Head words of the corpus world's objects ("lantern", "cloak"): what a claim of having must be about to be checked. */
  readonly objectHeads = new Set<string>();
  /** Object heads a line may point at only when the thing is at hand ("the cap", "that crate"): `objectHeads` less GENERIC_THINGS. */
  readonly thingHeads = new Set<string>();

  /**
   * @param episodes the written corpus (who said what to whom)
   * @param corpusWorld the world the corpus is set in (the bundled world plus its settings)
   */
  constructor(texts: string[], episodes: Episode[], corpusWorld: World | undefined) {
    const addressees = new Map<string, { heads: Set<string>; names: Set<string> }>();
    if (corpusWorld) {
      for (const ep of episodes) {
        for (const t of ep.turns) {
          if (!t.say) continue;
          const key = t.say.replace(/\s+/g, ' ').trim();
          let a = addressees.get(key);
          if (!a) addressees.set(key, (a = { heads: new Set(), names: new Set() }));
          for (const c of ep.characters) {
            if (c === t.speaker) continue;
            const name = corpusWorld.character(c)?.name;
            if (!name) continue;
            a.heads.add(head(name));
            a.names.add(name);
            a.names.add(head(name));
          }
        }
      }
    }
    const names = new Set<string>();
    if (corpusWorld) for (const n of corpusWorld.nodes()) if (n.kind === 'object' && n.name.length > 3) names.add(n.name.toLowerCase());
    for (const n of names) this.objectHeads.add(head(n));
    if (corpusWorld) for (const n of corpusWorld.nodes()) if (n.kind === 'object') { const h = head(n.name); if (h.length > 2 && !GENERIC_THINGS.has(h) && !BODY_WORDS.has(h)) this.thingHeads.add(h); }
    for (const name of names) {
      const last = words(name).pop() ?? '';
      let list = this.objectNames.get(last);
      if (!list) this.objectNames.set(last, (list = []));
      list.push({ name, re: new RegExp(`\\b${escape(name)}s?\\b`, 'i') });
    }
    const lower = new Set<string>();
    const capital = new Set<string>();
    const sources = [...texts, ...(corpusWorld ? corpusWorld.nodes().flatMap((n) => (n.kind === 'character' ? [n.name, n.persona, n.description] : n.kind === 'room' ? [n.description, n.backstory] : [n.description])) : [])];
    for (const t of sources) {
      for (const w of t.match(/\b[a-z][a-z']+\b/g) ?? []) lower.add(w);
      for (const w of properNouns(t)) capital.add(w);
    }
    for (const w of capital) if (!lower.has(w.toLowerCase()) && !TITLES.has(w.toLowerCase())) this.names.add(w);
    // Kinds of character ("girl", "fisherman"): a line calling one of these by name is a vocative slot.
    if (corpusWorld) for (const c of corpusWorld.characters()) this.kinds.add(head(c.name));
    for (const text of texts) {
      const a = addressees.get(text);
      this.meta.set(text, {
        addressees: a?.heads ?? new Set(),
        template: (a ? vocativeTemplate(text, [...a.names]) : undefined) ?? this.kindVocative(text),
        proper: properNouns(text),
        objects: this.objectsNamedIn(text),
      });
    }
  }

  /** "Girl! Leave those pots." / "..., fisherman." : a vocative naming any kind of character, as a template. */
  private kindVocative(text: string): string | undefined {
    const first = /^(?:[A-Za-z]+,?\s+)?([A-Za-z]+)\s*[,!?]/.exec(text)?.[1]?.toLowerCase();
    const last = /,\s+(?:[a-z]+\s+)?([a-z]+)\s*[.!?]*["')]*\s*$/i.exec(text)?.[1]?.toLowerCase();
    const names = [first, last].filter((w): w is string => !!w && this.kinds.has(w));
    const greeted = GREETING_VOCATIVE.exec(text)?.[1]?.toLowerCase();
    // "Hello, good sir!", "Hello again, my friend.": a way of calling anyone stays.
    if (greeted && !FITS_ANYONE.has(head(greeted))) names.push(greeted);
    return (names.length ? vocativeTemplate(text, names) : undefined) ?? vocativeTemplate(text, GENERIC_VOCATIVES);
  }

  /** The corpus world's object names a line names ("the brass handbell", "two lanterns"). */
  private objectsNamedIn(text: string): string[] {
    const out: string[] = [];
    for (const w of new Set(words(text))) {
      for (const key of w.endsWith('s') ? [w, w.slice(0, -1)] : [w]) {
        for (const o of this.objectNames.get(key) ?? []) if (o.re.test(text) && !out.includes(o.name)) out.push(o.name);
      }
    }
    return out;
  }

  /** Is `word` a kind of character of the corpus world ("miller", "goat")? */
  isKind(word: string): boolean {
    return this.kinds.has(word);
  }

  metaOf(text: string): LineMeta {
    let m = this.meta.get(text);
    if (!m) {
      m = { addressees: new Set(), template: this.kindVocative(text), proper: properNouns(text), objects: this.objectsNamedIn(text) };
      if (this.meta.size < 200_000) this.meta.set(text, m);
    }
    return m;
  }
}

/**
 * Names the live world lets anyone mention: the capitalised words of its places (room names,
 * descriptions, histories). People's names are not among them: a person is named only when present.
 */
export function worldProperNames(world: World): Set<string> {
  const out = new Set<string>();
  for (const n of world.nodes()) {
    if (n.kind !== 'room') continue;
    for (const t of [n.name, n.description, n.backstory]) for (const w of t.match(/\b[A-Z][a-z']+\b/g) ?? []) out.add(w);
  }
  const people = new Set(world.characters().flatMap((c) => c.name.match(/\b[A-Z][a-z']+\b/g) ?? []));
  for (const p of people) out.delete(p);
  return out;
}

/**
 * A line that tells its speaker's own life: kin, marriage, birth, where it grew up or lived, what it
 * did long ago ("Since I married. Before that I lived in the town", "My wife keeps the hens", "No
 * wife, no children"). True of the one who said it in the corpus, not of another.
 */
const BIOGRAPHY = [
  /\b(?:i|we)\s+(?:was\s+|were\s+|got\s+)?(?:married|wed|born|raised|widowed|orphaned)\b/i,
  /\b(?:i|we)\s+(?:grew up|lived|came here|came over|moved here|left home|buried my|lost my)\b/i,
  /\bsince\s+i\s+(?:was|married|came|left|lost|buried)\b/i,
  /\bwhen\s+i\s+was\s+(?:a|young|little|small|\d+)\b/i,
  /\bmy\s+(?:late\s+|old\s+|dear\s+|little\s+)?(?:wife|husband|son|sons|daughter|daughters|children|kids|boy|boys|girl|girls|mother|father|mum|mam|ma|pa|da|dad|brother|brothers|sister|sisters|sweetheart|bride|groom|family|parents|grandmother|grandfather|granny|grandson|granddaughter|uncle|aunt|cousin|kin|folk)\b/i,
  /\b(?:no|not any|never had a|never took a)\s+(?:wife|husband|children|child|family|kin|sweetheart)\b/i,
  /\bi(?:'m|\s+am)\s+(?:not\s+)?(?:married|a widow|a widower|an orphan|wed)\b/i,
  // who one lives with: "No, it's only me and the hens now."
  /\b(?:it's|it is|there's|there is)\s+(?:only|just)\s+(?:me|us)\s+and\s+(?!you\b|ye\b)/i,
];

/** Does the line tell its speaker's own life (BIOGRAPHY)? */
export function tellsOwnLife(line: string): boolean {
  return BIOGRAPHY.some((re) => re.test(line));
}

/** "I'm the miller", "I am just a poor fisherman": the speaker says what it is. */
const IDENTITY = /\bI(?:'m| am)\s+(?:the|a|an|just a|only a|only the|your|this)\s+(?:[a-z'-]+\s+){0,2}?([a-z'-]+)(?=\s*(?:[,.!?;]|$|\s+(?:here|of|at|in|on|for|and|who|that|from)\b))/i;

/** The head word of what the line says its speaker is, if it says. */
export function identity(line: string): string | undefined {
  return IDENTITY.exec(line)?.[1]?.toLowerCase();
}

const content = (s: string) => words(s).filter((w) => w.length > 2 && !/^(?:the|and|you|your|are|was|for|what|who|how|any|can|have|this|that|there|here|with|but|not|all|too|she|her|his|him|our|its)$/.test(w));

const DEGREE = '(?:so |very |really |feeling |a bit |quite |too |rather |half )*';

/**
 * Does `line` hand something over in words ("There.", "I'm sure. Here.", "Here. Mind, it's strong
 * stuff.")? A sentence of it is only the words of a hand-over: said in the corpus while handing
 * something over; said with nothing handed, it makes no sense.
 */
export function handingOnly(line: string): boolean {
  return line
    .trim()
    .split(/(?<=[.!?])\s+/)
    .some((x) => /^(?:(?:there|here)(?:,? (?:you (?:are|go)|take (?:it|this|them)|it is))?|take (?:it|this|them))\s*[.!]*$/i.test(x));
}

/**
 * Is `line` an echo of the partner's: their question asked back ("Is it safe?" after "Is it safe
 * around here?"), or their state claimed back ("Starving." after "I'm starving")?
 */
export function echoes(line: string, partnerLine: string | undefined): boolean {
  if (!partnerLine) return false;
  // "I'm starving." -> "Starving. I haven't eaten since yesterday." / "I'm parched too.": the partner's
  // state claimed back, a line written for the one who is starving
  const state = new RegExp(`\\bI(?:'m| am)\\s+${DEGREE}([a-z]+)\\b`, 'i').exec(partnerLine)?.[1]?.toLowerCase();
  if (state && !/^(?:not|sorry|sure|here|back|glad|happy|fine|well|afraid|going|looking|trying|just|the|a|an)$/.test(state)) {
    if (new RegExp(`^\\s*${state}\\b|\\bI(?:'m| am)\\s+${DEGREE}${state}\\b`, 'i').test(line)) return true;
  }
  if (!/\?\s*$/.test(line.trim())) return false;
  const mine = content(line);
  const theirs = new Set(content(partnerLine));
  if (!mine.length || !theirs.size) return false;
  return mine.filter((w) => theirs.has(w)).length / mine.length >= 0.5;
}

/** "I have hauled crates", "I have been": a perfect tense, no claim of having. */
const PARTICIPLE = String.raw`(?![a-z]+(?:ed|wn|ght)\b|(?:been|given|taken|eaten|written|broken|spoken|chosen|forgotten|hidden|ridden|stolen|woken|fallen|beaten|bitten|driven|risen|frozen|shaken|proven|gotten|done|seen|had|made|kept|met|heard|sold|told|lost|found|put|run|come|become|got|left|felt|held|paid|said|sent|spent|stood|sat|slept|swept|won|worn|sung|drunk|swum|begun|hung|struck|shut|let|set|read|fed|led|fled|bled|dug|spun|stuck|stung|strung|swung|lit|hit|cut|quit|split|spread|burst|cast|cost|hurt)\b)`;
const CLAIM_HAVE = new RegExp(String.raw`\b(?:i have|i've got|i carry|i'm carrying|i am carrying|here is my|here's my|take my|have my)\s+${PARTICIPLE}(?:a |an |the |some |this |my )?([a-z' -]+)`, 'i');
const CLAIM_NOT = /\b(?:i don't have|i do not have|i haven't got|i have no)\s+(?:a |an |the |any )?([a-z' -]+)/i;

export class LineJudge {
  constructor(
    readonly lines: PoolLines,
    /** Proper names the live world has (its places and people): these may be named. */
    readonly worldNames: Set<string> = new Set(),
  ) {}

  /**
   * The things a line names anywhere ("you'd need waders") that are not at hand in the scene: object
   * heads of the corpus world (less GENERIC_THINGS) that neither the scene's objects nor its known
   * words have. Empty without `scene.known`.
   */
  absentThings(line: string, scene: Scene): string[] {
    if (!scene.known) return [];
    const named = [...new Set(words(line))].map((w) => headIn(w, this.lines.thingHeads)).filter((h): h is string => !!h);
    if (!named.length) return [];
    // (the word as written is the head, or the head with -s or -es: atHand tries all three)
    const here = atHand(scene.known, scene.objects);
    return named.filter((h) => !here(h));
  }

  judge(text: string, scene: Scene): Verdict {
    const meta = this.lines.metaOf(text);
    const selfHead = head(scene.selfName);
    const partnerHead = scene.partnerName ? head(scene.partnerName) : '';
    let line = text;
    if (meta.template && scene.partnerName) line = fill(meta.template, scene.partnerName);
    else if (meta.template) line = dropVocative(meta.template);
    const key = line.toLowerCase().trim();
    // said before, also when it was said to me with my name in the slot
    const toMe = meta.template ? fill(meta.template, scene.selfName).toLowerCase().trim() : '';
    if (scene.said.has(key) || scene.said.has(text.toLowerCase().trim()) || (toMe && scene.said.has(toMe))) return { ok: false, reason: 'repeat' };
    // "Goodbye, bird! Goodbye, bird!": a parrot's line
    if (repeatsItself(line)) return { ok: false, reason: 'repeat' };
    // "Hello there." once the talk is under way (a greeting heard is answered by a plain one: policy.ts)
    if (scene.flow?.spoke && greets(line)) return { ok: false, reason: 'late_greeting' };
    // written to someone of my kind (and not also to my partner's kind)
    if (selfHead && meta.addressees.has(selfHead) && selfHead !== partnerHead) return { ok: false, reason: 'wrong_role' };
    const lw = words(line);
    const fullSelf = words(scene.selfName).join(' ');
    // "I'm the miller": said by the miller it is no self-naming; said by anyone else it is the wrong role
    const claimed = identity(line);
    if (claimed && this.lines.isKind(claimed) && claimed !== selfHead && !words(scene.selfName).includes(claimed)) return { ok: false, reason: 'wrong_role' };
    // "I am Edric Holloway, and ..." introduces; it does not name the speaker from outside
    const intro = new RegExp(`\\b(?:I am|I'm|my name is|they call me|call me)\\s+(?:[A-Z][\\w']*\\s+)*(?:the\\s+)?${escape(scene.selfName.replace(/^(?:the|a|an)\s+/i, ''))}\\b`);
    const own = claimed === selfHead ? line.replace(IDENTITY, '') : line.replace(intro, 'I am');
    const ownWords = words(own);
    // (a place named after the speaker, "Holloway Farmyard", is a place name)
    const selfProper = (scene.selfName.match(/\b[A-Z][a-z']{2,}\b/g) ?? []).filter((w) => !TITLES.has(w.toLowerCase()) && !this.worldNames.has(w));
    const partnerWords = new Set(scene.partnerName ? words(scene.partnerName) : []);
    if (selfProper.some((w) => !partnerWords.has(w.toLowerCase()) && new RegExp(`\\b${w}\\b`).test(own))) return { ok: false, reason: 'self_naming' };
    const kindName = !/^[A-Z]/.test(scene.selfName.replace(/^(?:the|a|an)\s+/i, ''));
    if (kindName && selfHead && selfHead !== partnerHead && !scene.present.some((p) => head(p) === selfHead) && (ownWords.includes(selfHead) || (fullSelf.includes(' ') && ` ${ownWords.join(' ')} `.includes(` ${fullSelf} `)))) {
      return { ok: false, reason: 'self_naming' };
    }
    // (and the people of the speaker's own life: its persona names them, "Captain Brannoc trained me himself")
    const here = new Set([scene.selfName, ...(scene.partnerName ? [scene.partnerName] : []), ...scene.present, scene.selfPersona ?? ''].flatMap((n) => n.match(/\b[A-Z][a-z']+\b/g) ?? []));
    const allowed = (p: string) => here.has(p) || this.worldNames.has(p) || TITLES.has(p.toLowerCase());
    // a name the speaker introduces itself by ("I am Wenna Tallowby, keeper of ...") is its own
    const introduced = line.replace(/^(?:I am|I'm|My name is)\s+(?:[A-Z][\w']*\s*)+/, 'I am ');
    for (const p of properNouns(introduced)) if (!allowed(p)) return { ok: false, reason: 'absent_name' };
    for (const p of introduced.match(/\b[A-Z][a-z']+\b/g) ?? []) if (this.lines.names.has(p.replace(/'s$/, '')) && !allowed(p.replace(/'s$/, ''))) return { ok: false, reason: 'absent_name' };
    if (echoes(line, scene.partnerLine)) return { ok: false, reason: 'echo' };
    // what is here, and what the partner just spoke of ("Sorry, I don't have a bottle of sloe gin" answers a request for one)
    const sceneObjects = [...scene.objects.map((o) => o.toLowerCase()), ...(scene.partnerLine ? this.lines.metaOf(scene.partnerLine).objects : [])];
    for (const o of meta.objects) {
      if (!sceneObjects.some((s) => s === o || head(s) === head(o))) return { ok: false, reason: 'absent_name' };
    }
    // "Here, try the cap." / "Keep your hands off that crate.": things pointed at must be at hand
    if (scene.known) {
      const pointed = pointedAt(line, this.lines.thingHeads);
      if (pointed.length) {
        const here = atHand(scene.known, sceneObjects);
        if (pointed.some((h) => !here(h))) return { ok: false, reason: 'absent_name' };
      }
    }
    const held = scene.held.map((h) => h.toLowerCase());
    const holds = (phrase: string) => {
      const w = words(phrase);
      return held.some((h) => w.slice(0, 3).includes(head(h)));
    };
    const not = CLAIM_NOT.exec(line);
    if (not && holds(not[1]!)) return { ok: false, reason: 'contradiction' };
    const have = CLAIM_HAVE.exec(line);
    if (have && !not) {
      const w = words(have[1]!).slice(0, 3);
      const namesObject = this.lines.metaOf(text).objects.length > 0 || w.some((x) => this.lines.objectHeads.has(x) || sceneObjects.some((s) => head(s) === x));
      if (namesObject && !holds(have[1]!)) return { ok: false, reason: 'contradiction' };
    }
    return { ok: true, text: line };
  }
}
