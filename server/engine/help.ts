/** The text of `help` and `help <topic>`. */
import { EMOTES } from './emotes.js';

export const HELP_TOPICS: Record<string, string> = {
  get: 'get X (take, grab, pick up X) picks up something in the room. get X from Y takes it out of a container or off a surface. get all, get all candles, get all from Y take each thing that can be taken.',
  drop: 'drop X puts something you carry on the ground. drop all drops everything you carry (not what you wear or wield).',
  put: 'put X in Y puts something you carry into a container; put X on Y onto a surface. put all in Y puts in each thing you carry.',
  give: 'give X to A hands something you carry to someone here.',
  steal: "steal X from A takes something someone here is carrying (not what they wear or wield). Where characters have a dexterity, the thief may be caught in the act instead.",
  wear: 'wear X (put on, don) wears something you carry that can be worn, three things at most. equip X wears or wields it, as it allows.',
  wield: 'wield X (brandish) holds a weapon you carry ready, one at a time. equip X wears or wields it, as it allows.',
  remove: 'remove X (take off, unwield) stops wearing or wielding something.',
  eat: 'eat X eats food you carry. drink X drinks a drink you carry. ingest X does whichever fits. Either is gone afterwards; most food does you a little good, but poisoned food harms you, and can kill.',
  follow: 'follow A goes wherever A goes from the room you are both in; unfollow stops.',
  block: 'block A stands in the way of someone here: while you stay in the room with them, they will most likely fail to leave (each try is a roll). unblock stops. Only the two of you are told.',
  use: 'use X with Y (use X on Y) uses something you hold with a thing or a person here, or yourself (use scroll with me). What happens is the thing\'s own (a shovel may dig in the mud); with most things nothing special happens.',
  point: 'point X (point at X) shows everyone here a thing, a person, or the way to the next room (point north, or a way out by its name: point path).',
  wait: 'wait (z) lets a moment pass.',
  hit: 'hit A (attack, punch) strikes someone here (not if you are a pacifist): it may miss, be blocked, or hurt them; someone with no health left dies, and their body keeps what they had. hug A embraces them.',
  health: 'health (status, hp) says how you feel; health A (diagnose A) how someone here looks. Only you are told.',
  look: 'look (l) describes the room. look north (l n) shows the room that way; look in X / look on X what X holds. examine X (x, look at X) describes a thing, a person, yourself (examine me) or the room (examine room).',
  exits: 'exits lists the ways out of the room and where they lead.',
  again: 'again (or !) does your last command once more.',
  inventory: 'inventory (i; eq, or equip alone) lists what you carry, wear and wield.',
  score: 'score (sc) sums you up: who and where you are, your health, how many things you carry, wear and wield against the limits, and whom you follow or block.',
  go: 'go EXIT moves through an exit: go north, north, n (s, e, w, u, d, ne, nw, se, sw), go path to the west, or go to <room name>.',
  say: "say TEXT (or 'TEXT) speaks to the room. tell A TEXT speaks to one person so all hear; whisper A TEXT so only they hear. shout TEXT is heard in the rooms next door.",
  emotes: `emotes: ${EMOTES.join(', ')}. Use alone (wave, or LIGHT's form: emote wave) or at someone (wave at orc, emote wave at orc).`,
};

export function helpText(topic?: string): string | null {
  if (topic) {
    const key = HELP_TOPICS[topic] !== undefined ? topic : Object.keys(HELP_TOPICS).find((k) => HELP_TOPICS[k]!.toLowerCase().includes(`${topic} `));
    return key ? HELP_TOPICS[key]! : null;
  }
  return [
    'Commands:',
    '  look (l), look north, look in X, examine X (x), inventory (i), score, health, health A, exits, go EXIT (n, s, e, w, u, d)',
    '  get X, get X from Y, drop X, put X in/on Y, give X to A, steal X from A',
    '  get all, get all from Y, drop all, put all in/on Y; again (!) repeats your last command',
    '  wear X, wield X, equip X, remove X, eat X, drink X, ingest X, hit A, hug A',
    '  follow A, unfollow, block A, unblock, use X with Y, point X, wait',
    "  say TEXT ('TEXT), tell A TEXT, whisper A TEXT, shout TEXT",
    `  emotes: ${EMOTES.join(', ')} (alone, or at someone: wave at orc)`,
    'Type help <command> for more, e.g. help put.',
  ].join('\n');
}
