/**
 * Where a conversation stands, as a person in it knows without thinking: whether I have spoken yet,
 * whether we have said goodbye; and lines that do not fit there: a greeting once the talk is under
 * way ("As you like. I'll bid you good day." -> "Good day." -> "Hello there."), more talk after both
 * have said goodbye, a sentence said twice in one breath ("Goodbye, bird! Goodbye, bird!", a parrot's
 * line in the corpus).
 */
import type { HistoryEntry } from './context.js';

/** A line that opens with a greeting ("Hello there.", "Good morning, smith!", "Well met."). */
export const GREETING = /^(?:hello|hi|hey|greetings|well met|good (?:morning|day|evening|afternoon)|morning|evening|hail)\b/;

/** A goodbye anywhere in a line ("Farewell. Mind how you go.", "I'll bid you good day.", "Go well, then."). */
export const FAREWELL =
  /\b(?:goodbye|good-bye|farewell|bye|take care|be going|be off|be on my way|safe travels|safe roads|go well|see you|until next time|so long|good luck to you|i'll leave you|(?:i'll |i )?bid you (?:good day|good night|good evening|goodbye|farewell)|good night|have a (?:good|nice|lovely|fine|safe) (?:day|evening|night|journey|trip|one)|i(?:'m| am) off(?: now| then)?\s*[.!]*$)/;

const lower = (line: string) => line.toLowerCase().trim().replace(/^[^a-z]+/, '');

/** A greeting word said as a greeting: followed by a stop or a name, not "Morning light is best for fishing." */
const GREETING_SAID = new RegExp(`${GREETING.source}(?:\\s+(?:to you|there|again|all|friend|friends))?\\s*[,.!?]`);

/** Does the line open with a greeting ("Hello there.", "Good morning, smith!", "Hail, traveller.")? */
export function greets(line: string): boolean {
  return GREETING_SAID.test(lower(line));
}

/** Does the line say goodbye? */
export function saysFarewell(line: string): boolean {
  return FAREWELL.test(lower(line));
}

/** Does one sentence of the line come twice ("Goodbye, bird! Goodbye, bird!")? */
export function repeatsItself(line: string): boolean {
  const sentences = line
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.toLowerCase().replace(/[^a-z0-9' ]+/g, '').trim())
    .filter(Boolean);
  return new Set(sentences).size < sentences.length;
}

export interface Flow {
  /** The speaker has said something in the conversation it remembers. */
  spoke: boolean;
  /**
   * The speaker's last line was a goodbye and the partner has said nothing since but goodbyes: the
   * talk is over, and anything more than a wave reads as a second conversation.
   */
  closed: boolean;
}

/** A goodbye that asks nothing more ("Thanks, bye! Oh, where's the inn?" still wants an answer). */
function closes(line: string): boolean {
  return saysFarewell(line) && !/\?\s*["')]*\s*$/.test(line.trim());
}

/** Where the conversation in `history` (oldest first) stands for its speaker ("self"). */
export function flowOf(history: HistoryEntry[]): Flow {
  let lastOwn = -1;
  for (let i = history.length - 1; i >= 0; i--) {
    const e = history[i]!;
    if (e.speaker === 'self' && e.kind === 'say') {
      lastOwn = i;
      break;
    }
  }
  if (lastOwn < 0) return { spoke: false, closed: false };
  const closed = closes(history[lastOwn]!.text) && history.slice(lastOwn + 1).every((e) => e.kind !== 'say' || closes(e.text));
  return { spoke: true, closed };
}

const THANKS_LED = /^(?:(?:oh|well|ah|hm|right|ok|okay),?\s+)?(?:thank you|thanks|thank ye|many thanks|much obliged)\b/;

/**
 * Is the line mainly thanks ("Thanks for the chat.", "Thank you, I'll pay you next market day.", "Hm,
 * I'll keep that in mind, thank you.")? Not a "thank you" that closes an answer or a refusal
 * ("Getting by, thank you.", "No, I'm all right, thank you."): those are not answered "You're welcome."
 */
export function thanksFor(line: string): boolean {
  const s = lower(line);
  return THANKS_LED.test(s) || /\b(?:thank you|thanks) for\b/.test(s) || /\bi(?:'ll| will) (?:keep that in mind|remember that|try that)\b/.test(s);
}

/**
 * Does the line open by reacting to something the partner said: a short question back ("Am I?", "A
 * story? Which one?", "Really?"), thanks, agreement ("It's a deal.", "Right away."), or a follow-on
 * ("Then enjoy it, friend.", "And yet there it goes.")? After a plain line ("Well, well.", "Hm. Go
 * on.") there is nothing to react to, and such a line reads as an answer to someone else.
 */
export function reacts(line: string): boolean {
  const s = lower(line);
  const first = s.split(/(?<=[.!?])\s+/)[0] ?? '';
  if (first.endsWith('?') && (first.match(/[a-z']+/g) ?? []).length <= 3) return true;
  return THANKS_LED.test(s) || /^(?:then|and|but|so|it's a deal|deal|agreed|done|right away|gladly|of course|with pleasure|you're welcome|any time|my pleasure|glad to help|think nothing of it)\b/.test(s);
}
