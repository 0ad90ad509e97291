/**
 * Answers, from the graph, to a person's questions about where they are and who the character is:
 * "What is this place?" -> the room's name and the first sentence of its description; "What do you
 * do here?" / "Tell me about yourself." / "Who are you?" -> the first sentence of the character's
 * persona, which LIGHT writes in the first person ("I am a dockhand on the Saltmere docks, ..."); "Where
 * are you from?" -> the persona's sentences that say so ("I am a young pilgrim from the Greenhollow
 * farms, ..."), else "From round here, near enough.".
 * Retrieved lines answered these badly: the pool rarely holds an answer written for this room or
 * this character, and a line written for another is false here.
 */
import type { NodeId } from '../engine/types.js';
import type { World } from '../engine/world.js';

const PLACE = [
  /\bwhat(?:'s| is) (?:this|that) place\b/,
  /\bwhat place is (?:this|that)\b/,
  /\bwhere (?:am i|are we|is this|have i come)\b/,
  /\bwhat(?:'s| is) (?:this|that) (?:room|building|hall|house|spot)\b/,
  /\bwhat do (?:you|they|people) call (?:this|that) place\b/,
];
const SELF = [
  /\bwhat do you do(?: here| for a living| all day)?\b(?! (?:with|about|if|when|to)\b)/,
  /\bwhat(?:'s| is) your (?:job|work|trade|story|name)\b/,
  /\bwhat (?:should|shall|do|can|may) i call (?:you|ye)\b/,
  /\bwhat are (?:you|ye) called\b/,
  /\btell me (?:about|of) yourself\b/,
  /\bwho (?:are|r) (?:you|ye)\b/,
  /\bwhat are you doing here\b/,
  /\bwhat brings you here\b/,
];

/** "Where are you from?": answered from the persona when it says, else modestly. */
const ORIGIN = [
  /\bwhere (?:are|do|d') ?(?:you|ye) (?:from|come from|hail from)\b/,
  /\bwhere(?:'s| is) (?:your )?home\b/,
  /\bwhere (?:were|was) you (?:born|raised|brought up)\b/,
  /\bwhere did you grow up\b/,
];
/** A persona sentence that tells where one comes from or how long one has been here. */
const FROM = /\b(?:born|grew up|raised|came (?:here |up |down |over )?from|came (?:up |down |over )?here|(?:I am|I'm|I was) (?:a|an|the) [a-z' -]+ from|in my family since|(?:have|has) lived)\b/i;

/** The sentences of a text of at most `maxWords` words each. */
function sentences(text: string, maxWords = 32): string[] {
  return text
    .trim()
    .split(/(?<=[.!?])\s+/)
    .map((x) => x.trim())
    .filter((x) => x && x.split(/\s+/).length <= maxWords)
    .map((x) => (/[.!?]$/.test(x) ? x : `${x}.`));
}

/** "The Crooked Lantern" -> "the Crooked Lantern"; "Saltmere Docks" unchanged. */
function placeName(name: string): string {
  return name.replace(/^The\s/, 'the ');
}

/**
 * Truthful answers, best first, when `text` asks where this is or who `self` is (the caller says
 * the first one not said yet); [] otherwise.
 */
export function answersAbout(world: World, self: NodeId, text: string): string[] {
  const s = text.toLowerCase().replace(/\s+/g, ' ');
  if (!/\?|^(?:tell|say)\b/.test(s.trim()) && !/\btell me\b/.test(s)) return [];
  const roomId = world.roomOf(self);
  const room = world.room(roomId ?? '');
  if (!room) return [];
  if (PLACE.some((r) => r.test(s))) {
    const [desc] = sentences(room.description);
    return [desc ? `This is ${placeName(room.name)}. ${desc}` : `This is ${placeName(room.name)}.`];
  }
  if (ORIGIN.some((r) => r.test(s))) {
    const told = ownSentences(world, self).filter((x) => FROM.test(x));
    return told.length ? told : ['From round here, near enough.'];
  }
  if (SELF.some((r) => r.test(s))) return ownSentences(world, self);
  return [];
}

/**
 * The persona's sentences in the character's own voice ("I ...", "My ...", "Captain Brannoc trained me
 * himself ..."). The people they name are of its own life, and so of the world: "my farmhand Dunstan"
 * is the farmer's own, wherever Dunstan is.
 */
function ownSentences(world: World, self: NodeId): string[] {
  const persona = world.character(self)?.persona ?? '';
  return sentences(persona, 40).filter((x) => /\b(?:I|me|my|My|I'm|I've|I'd)\b/.test(x));
}
