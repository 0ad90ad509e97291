/**
 * What a character says when the model has nothing it can stand behind: a plain line of the kind the
 * heard line calls for ("Hm. I couldn't say." to a yes/no question, "I couldn't tell you, I'm
 * afraid." to a where or who, "Safe roads to you." to a goodbye), never a retrieved line that
 * answers some other question.
 *
 * The policy says one when the best line the judge accepts has weak evidence on both counts the
 * corpus gives (see policy.ts, UNSURE): the line it answered in the corpus was unlike the one heard,
 * and the characters who said it are unlike this one. Read on a development probe by blind readers,
 * 35 of the 44 replies in that region were nonsense (5% of them sensible): a person who does not know
 * says so, or says something plain.
 */
import { asksAboutYou, lastSentence, lineKind } from './line-kind.js';

/** Plain lines for each kind of heard line, in the order they are tried. */
const LINES: Record<'farewell' | 'thanks' | 'sorry' | 'greeting' | 'wellbeing' | 'tired' | 'hungry' | 'cold' | 'lost' | 'offer' | 'tag' | 'personal' | 'opinion' | 'yesno' | 'wh' | 'remark', string[]> = {
  farewell: ['Safe roads to you.', 'Go well, then.', 'Farewell. Mind how you go.', 'Goodbye, then.'],
  thanks: ["You're welcome.", 'Think nothing of it.', 'Glad to help.'],
  sorry: ['No harm done.', "It's no bother.", "Don't fret about it."],
  greeting: ['Good day to you.', 'Hello there.', 'Well met.'],
  wellbeing: ['Well enough, thank you.', "Can't complain. And you?", 'Getting by, thank you.', 'Not so bad, all told.'],
  tired: ['Then sit a while and rest.', 'Rest your feet, then.'],
  hungry: ["I'm sorry to hear it. Food's hard to come by some days."],
  cold: ["It's a cold one, right enough."],
  lost: ['Lost? Ask me the way to a place, and I might know it.'],
  offer: ["No, I'm all right, thank you.", 'Kind of you, but no.', 'Not just now, thanks.'],
  tag: ['Aye, that it is.', 'It is, right enough.'],
  // Modest, not curt: readers found "That's my own business, friend." rude and "Why do you ask?" evasive.
  personal: ["I'd sooner not say.", "Ah, that's a long story for another day.", "Me? There's not much to tell."],
  // "What colour do you like best?", "What do you think of me?": a taste or a view, not a life story
  opinion: ["I've never given it much thought, to be honest.", "Hm. I'd have to think on that one."],
  yesno: ["Hm. I couldn't say.", 'Hard to say, really.', 'Not that I know of.'],
  wh: ["I couldn't tell you, I'm afraid.", "Now there's a question. I don't rightly know.", 'Hard to say.', 'I wish I knew.'],
  remark: ['Is that so?', 'Hm. Go on.', 'Well, well.', 'I see.'],
};

const PLAIN = new Set(Object.values(LINES).flat().map((l) => l.toLowerCase()));

/** Is `text` one of the plain lines ("Is that so?", "Hm. I couldn't say.")? */
export function isPlainLine(text: string): boolean {
  return PLAIN.has(text.trim().toLowerCase());
}

/** A question after one's tastes or views rather than one's life. */
const OPINION = /\b(?:like|likes|love|loves|favourite|favorite|prefer|best|think of|thoughts on|make of|opinion|feel about)\b/;
const FAREWELL = /\b(?:goodbye|good-bye|farewell|bye|take care|be going|be off|be on my way|safe travels|see you|until next time|so long)\b/;
const THANKS = /\b(?:thank you|thanks|thank ye|much obliged|grateful)\b/;
const SORRY = /\b(?:sorry|apologi[sz]e|forgive me|pardon me|my apologies)\b/;
const GREETING = /^(?:hello|hi|hey|greetings|well met|good (?:morning|day|evening|afternoon)|morning|evening|hail)\b/;

/** The kind of plain line `heard` calls for. */
export function unsureKind(heard: string): keyof typeof LINES {
  const s = heard.toLowerCase().trim();
  if (FAREWELL.test(s)) return 'farewell';
  if (THANKS.test(s)) return 'thanks';
  if (SORRY.test(s)) return 'sorry';
  const kind = lineKind(heard);
  const last = lastSentence(s);
  // "How are you today?", "How are you keeping?", "How's life?"
  if (/^(?:and\s+)?how(?:'s| is| are| have)\s+(?:you|ye|things|life|it going|you been|your day)\b[^?]*\?$/.test(last) && !/\bhow (?:are|did|do) you (?:know|get|make|find|manage|come|feel about)\b/.test(last)) return 'wellbeing';
  // "You well this morning?", "Are you keeping well?", "All well with you?", "How goes it?", "How fare you?"
  if (/^(?:and\s+)?(?:(?:are\s+)?(?:you|ye)\s+(?:keeping |doing |faring )?(?:well|all right|alright|keeping)|(?:keeping|doing|faring) well|all well(?: with you)?|how (?:goes it|fare you|do you fare|have you been|do you do))(?:[ ,]+(?:today|tonight|this (?:morning|evening|afternoon|day)|these days|lately|then|now|friend|my friend|mistress|sir))*\s*\?$/.test(last)) return 'wellbeing';
  if (kind === 'yesno') {
    // "Cold tonight, isn't it?": agreeing is the plain answer
    if (/,\s*(?:isn't|aren't|wasn't|don't|doesn't|didn't|right|eh)\b[^,]*\?$/.test(last)) return 'tag';
    // "Do you need any help?", "Can I get you anything?", "Would you like some bread?": an offer
    if (/\b(?:need|want)\s+(?:any|some|a)\s+(?:help|hand)\b|^(?:can|could|shall|may)\s+i\s+(?:help|get|bring|fetch|carry|do)\b|^would\s+(?:you|ye)\s+(?:like|care for|fancy)\b|^do\s+(?:you|ye)\s+want\s+(?:a|an|some|me to)\b/.test(last)) return 'offer';
    // "Are you married?", "Do you believe in magic?": about the speaker's own life ("Have you heard any news?",
    // "Did you find where they went?" are not)
    if (/^(?:are|were)\s+(?:you|ye)\b|^did\s+(?:you|ye)\s+ever\b|^(?:do|would|will)\s+(?:you|ye)\s+(?:like|love|have|believe|enjoy|want|miss|ever|sing|play|pray|hope|fear|mind|dream|think|sleep|eat|drink|hunt|fish|go|live|work)\b|^have\s+(?:you|ye)\s+(?:ever|always|been|got|a|any|no|lived|worked|travelled|traveled|married|seen a)\b/.test(last)) return OPINION.test(last) ? 'opinion' : 'personal';
    return 'yesno';
  }
  // "Where are you from?", "What makes you laugh?": about the speaker's own life
  if (kind !== 'remark') return asksAboutYou(heard) ? (OPINION.test(last) ? 'opinion' : 'personal') : 'wh';
  if (/\bi(?:'m| am)\s+(?:so |very |really |a bit |rather )?(?:tired|weary|exhausted|worn out)\b|\bwalking all day\b/.test(s)) return 'tired';
  if (/\bi(?:'m| am)\s+(?:so |very |really |a bit |rather )?(?:hungry|starving|famished)\b/.test(s)) return 'hungry';
  if (/\bi(?:'m| am)\s+(?:so |very |really |a bit |rather )?(?:cold|freezing|frozen)\b/.test(s)) return 'cold';
  if (/\bi(?:'m| am)\s+(?:a bit |rather |quite )?lost\b/.test(s)) return 'lost';
  if (GREETING.test(s)) return 'greeting';
  return 'remark';
}

/**
 * A plain line for `heard`, not one of `said` (the lines of the conversation so far, lowercased), the
 * choice among equals spread by `seed` (the speaker's name) so that a room of characters does not
 * answer in chorus. Undefined when every such line was said already.
 */
export function unsureLine(heard: string, said: Set<string>, seed: string): string | undefined {
  const lines = LINES[unsureKind(heard)];
  let h = 0;
  for (let i = 0; i < seed.length; i++) h = (h * 31 + seed.charCodeAt(i)) >>> 0;
  for (let k = 0; k < lines.length; k++) {
    const line = lines[(h + k) % lines.length]!;
    if (!said.has(line.toLowerCase())) return line;
  }
  return undefined;
}
