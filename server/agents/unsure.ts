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
import { FAREWELL, GREETING } from './conversation-flow.js';
import { asksAboutYou, lastSentence, lineKind } from './line-kind.js';

/** Plain lines for each kind of heard line, in the order they are tried. */
const LINES: Record<'farewell' | 'thanks' | 'sorry' | 'greeting' | 'wellbeing' | 'tired' | 'hungry' | 'cold' | 'lost' | 'lostThing' | 'nervous' | 'hurt' | 'sad' | 'goodNews' | 'theirNews' | 'plans' | 'offered' | 'promise' | 'mishap' | 'compliment' | 'aboutMe' | 'willTell' | 'offer' | 'tag' | 'ability' | 'ever' | 'usually' | 'advice' | 'shouldI' | 'personal' | 'opinion' | 'folk' | 'exists' | 'permission' | 'yesno' | 'wh' | 'remark', string[]> = {
  farewell: ['Safe roads to you.', 'Go well, then.', 'Farewell. Mind how you go.', 'Goodbye, then.'],
  thanks: ["You're welcome.", 'Think nothing of it.', 'Glad to help.'],
  sorry: ['No harm done.', "It's no bother.", "Don't fret about it."],
  greeting: ['Good day to you.', 'Hello there.', 'Well met.'],
  wellbeing: ['Well enough, thank you.', "Can't complain. And you?", 'Getting by, thank you.', 'Not so bad, all told.'],
  tired: ['Then sit a while and rest.', 'Rest your feet, then.'],
  hungry: ["I'm sorry to hear it. Food's hard to come by some days."],
  cold: ["It's a cold one, right enough."],
  lost: ['Lost? Ask me the way to a place, and I might know it.'],
  // "I think I dropped a ring somewhere near here."
  lostThing: ["Oh dear. I'll keep an eye out for it.", 'I hope it turns up. Retrace your steps, maybe.'],
  // "I'm a bit nervous around strangers."
  nervous: ['No need to be nervous around me.', "Take your time. There's no hurry."],
  // "I cut my hand earlier and it still stings.", "I've a headache."
  hurt: ['Ouch. That sounds painful.', "Oh dear. I hope it mends soon.", 'That sounds sore. Take it easy for a while.'],
  // "I'm a bit lonely here.", "I lost my purse.", "It's been a long day."
  sad: ["I'm sorry to hear that.", "That's hard. I hope things look up for you.", "Ah, that's a shame."],
  // "I'm getting married next month!", "Good news: I got the job."
  goodNews: ["Well, that's good news!", 'Glad to hear it!', 'Good for you!'],
  // "My sister is getting married next spring."
  theirNews: ["That's happy news. Wish them joy from me.", 'Well, congratulations to them!', "That's good news. Give them my best."],
  // "I'm thinking of staying here a few weeks.", "I plan to head north tomorrow."
  plans: ['Well, I hope it goes well for you.', 'Sounds like a fair plan to me.'],
  // "If you ever want company on a walk, just ask."
  offered: ["Thank you, I'll remember that.", 'Kind of you. I might take you up on that.'],
  // "If I pass this way again, I'll tell you how it went."
  promise: ["Please do. I'd like that.", "I'll look forward to it."],
  // "I tried cooking and burned everything."
  mishap: ['Oh dear. It happens to the best of us.', "Ah well. You'll do better next time."],
  // "You look like a thoughtful sort.", "I like your hat."
  compliment: ["That's kind of you to say.", 'Why, thank you!', "You're too kind."],
  // "What do you think of me?"
  aboutMe: ['You seem decent enough to me.', "Fair enough so far, I'd say.", 'I hardly know you yet, but you seem all right.'],
  // "Want to hear a riddle?", "Shall I sing you a song?"
  willTell: ["Go on, then. Let's hear it.", "All right, I'm listening.", "Go on, I'm all ears."],
  offer: ["No, I'm all right, thank you.", 'Kind of you, but no.', 'Not just now, thanks.'],
  tag: ['Aye, that it is.', 'It is, right enough.'],
  // "Can you read and write?", "Do you know how to swim?"
  ability: ['A little. Enough to get by.', "Some. Not as well as I'd like.", 'A bit, yes.'],
  // Modest, not curt: readers found "That's my own business, friend." rude and "Why do you ask?" evasive.
  // "Do you ever remember your dreams?", "Have you ever been to a big wedding?"
  ever: ['Now and then.', 'Once or twice.', 'Not often, no.'],
  // "Do you usually start your day this early?"
  usually: ['Most days, yes.', 'Usually, aye.'],
  // "Any advice for someone who's hopeless in the kitchen?"
  advice: ['Take it slowly, and ask someone who knows.', 'Patience, mostly. It comes with time.'],
  // "Should I write to my family more often, do you think?"
  shouldI: ["I would, if I were you.", "It can't hurt, I'd say."],
  personal: ["I'd sooner not say.", "Ah, that's a long story for another day.", "Me? There's not much to tell."],
  // "What colour do you like best?", "What do you think of me?": a taste or a view, not a life story
  opinion: ["I've never given it much thought, to be honest.", "Hm. I'd have to think on that one."],
  // "Do folk here usually welcome newcomers?", "Are people friendly here?"
  folk: ['It depends who you ask, I would say.', 'Some, and some not.'],
  // "Is there an inn nearby?", "Have you heard any news?" ("Not that I know of." is kept to these: it had
  // answered "Can you read and write?")
  exists: ['Not that I know of.', "Hm. I couldn't say."],
  // "Mind if I sit with you a while?", "May I ask you something?"
  permission: ['Not at all. Go ahead.', 'Please do.', 'Go right ahead.'],
  yesno: ["Hm. I couldn't say.", 'Hard to say, really.', "I'm not sure, to be honest."],
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
const THANKS = /\b(?:thank you|thanks|thank ye|much obliged|grateful|you(?:'re| are) (?:very |too |so )?kind)\b/;
// ("sorry to hear", "sorry about your ...": sympathy, not an apology)
const SORRY = /\b(?:sorry(?! (?:to hear|for you|about your|for your))|apologi[sz]e|forgive me|pardon me|my apologies)\b/;
const INTENSITY = '(?:(?:a bit|a little|rather|quite|very|so|really|feeling|awfully|terribly) )*';
/** Something that hurts the speaker: a cut, an ache, an illness. */
const HURT = new RegExp(
  `\\bi(?:'ve| have)? (?:cut|hurt|burn(?:ed|t)|scraped|scratched|twisted|sprained|broke|bruised|stubbed|banged|bumped|grazed) my\\b|\\bmy \\w+(?: \\w+)? (?:hurts|aches|stings|throbs|is sore|is bleeding|is killing me)\\b|\\bit (?:still |really )?(?:hurts|stings|aches|throbs)\\b|\\bi(?:'m| am) ${INTENSITY}(?:sick(?! of)|ill|hurt|injured|unwell|poorly|sore|wounded|bleeding)\\b|\\bi(?:'ve| have)?(?: got)? (?:a|an) (?:bad |terrible |awful )?(?:headache|cold|fever|cough|toothache|blister|splinter|bruise|sore \\w+|stomach ache|bellyache)\\b`,
);
/** A sorrow or worry of the speaker's own. */
const SAD = new RegExp(
  `\\bi(?:'m| am) ${INTENSITY}(?:sad|lonely|worried|homesick|miserable|unhappy|upset|heartbroken|troubled|frightened|scared|afraid(?= of)|nervous|anxious)\\b|\\bi(?:'ve| have)? lost my\\b|\\bi (?:\\w+ )?miss (?:my|home|the|them|him|her)\\b|\\b(?:had|having|been) (?:a |such a )?(?:bad|rough|terrible|awful|hard|long|miserable) (?:day|week|time|night|year|journey|road)\\b|\\bmy \\w+ (?:died|drowned|was killed|passed away|passed on|is dead|is sick|is ill|left me|ran off)\\b`,
);
/** Good news of the speaker's own. */
const GOOD_NEWS = new RegExp(
  `\\bi(?:'m| am) ${INTENSITY}(?:happy|excited|delighted|thrilled|overjoyed)\\b(?! to (?:meet|see|be here))|\\b(?:good|great|wonderful|happy) news\\b|\\bi(?:'m| am) (?:getting married|going to be a (?:father|mother))\\b|\\bi (?:just )?(?:got married|got the job|had a baby|won(?![a-z']))`,
);
/** Good news of someone dear to the speaker ("My sister is getting married next spring."). */
const THEIR_NEWS = /\bmy (?:\w+ )?(?:sister|brother|daughter|son|cousin|friend|niece|nephew|mother|father|aunt|uncle)(?:'s| is| are) (?:getting married|to be married|to be wed|having a baby|expecting)\b/;
/** Praise of the one spoken to. */
const COMPLIMENT = /\byou (?:look|seem|sound)(?: like)? (?:a |an )?(?:very |so |rather |quite |really )?(?:kind|nice|wise|clever|strong|thoughtful|friendly|honest|good|fine|capable|hard-working|hardworking|decent|sensible|smart|pleasant|cheerful|learned)\b|\bi (?:like|love|admire) your\b|\byou(?:'re| are) (?:very |so |rather |quite |really )?(?:kind|wise|clever|funny|friendly|helpful|brave|generous|good company|a good)\b|\b(?:lovely|nice|fine|beautiful|pretty) (?:\w+ )?you (?:have|keep|wear)\b|\byou(?: have|'ve got| have got) (?:a |such a )?(?:very |really |so |rather )?(?:kind|lovely|nice|fine|good|gentle|warm|pleasant|beautiful|friendly|honest|wise|sharp|clever|steady|sound) (?:way|voice|face|smile|manner|heart|eye|laugh|head|hand|mind)\b|\byou (?:look|seem|sound) like (?:someone|somebody|a person|the sort|the kind|one) (?:who|that|of)\b|\byou(?:'re| are) (?:a |such a )?(?:very |really )?(?:good|hard|honest|kind|fine) (?:worker|listener|sort|soul|person)\b|\byou(?:'re| are) (?:very |so |really )?easy to talk to\b/;
/** A question after what the one asked thinks of the asker. */
const ABOUT_ME = /\b(?:think|make) of me\b|\bthink about me\b|\bdo you (?:like|trust) me\b|\bwhat am i like\b/;
/** The speaker offers to tell, sing or show something. */
const WILL_TELL = /^(?:(?:do )?(?:you )?(?:want|wanna) to|would you like to|(?:shall|can|may|should) i|let me) (?:hear|tell|sing|show|recite|play)\b/;
/** A thing of the speaker's that is lost ("I dropped a ring", "I can't find my purse"); not the way, not a person. */
const LOST_THING = /\bi (?:think i |must have |might have )?(?:dropped|lost|mislaid|misplaced|can't find|cannot find)\s+(?:my|a|an|the|one of my)\s+(?!way\b|wife\b|husband\b|mother\b|father\b|son\b|daughter\b|brother\b|sister\b|friend\b|family\b|child\b|parents\b|temper\b|nerve\b|mind\b)/;
const NERVOUS = /\bi(?:'m| am) (?:(?:a bit|a little|rather|quite|very|so|really|always|usually) )*(?:nervous|shy|uneasy|awkward)\b/;
/** A plan of the speaker's own. */
const PLANS = /\bi(?:'ve| have) been thinking (?:of|about) (?:\w+ing)\b|\bi(?:'m| am) (?:thinking (?:of|about)|planning (?:to|on)|hoping to|going to (?:stay|settle|head|leave|travel|look|try|buy|build|open|learn|visit|find))\b|\bi (?:plan|mean|intend|hope) to\b|\bi might (?:stay|settle|head|stop)\b/;
/** An offer in the form of a statement ("If you ever need a hand, just ask."). */
const OFFERED = /^if you (?:ever )?(?:want|need|fancy|like)\b|^if you(?:'re| are) ever (?:short|in need|stuck)\b|\bjust (?:ask|say the word|let me know)\b|\bi(?:'d| would) be (?:happy|glad) to (?:help|lend|show)\b/;
/** Asking leave to do something ("Mind if I sit here?"); "Can I help?" is an offer, tested first. */
const PERMISSION = /^(?:(?:do you |would you )?mind if i|may i|can i|could i|is it (?:all right|alright|ok|okay) if i)\b/;
/** A yes/no question about people in general. */
const FOLK = /^(?:do|does|are|is|will|would|did) (?:the )?(?:folk|folks|people|they|most|many|villagers|locals|the people)\b(?! (?:\w+ )?(?:know|have a|sell|serve))/;
/** A yes/no question whether something is or happened, where "not that I know of" answers it. */
const EXISTS = /^(?:is|are|was|were) there\b|^(?:have|has|did) (?:you|anyone|anybody) (?:heard|seen|noticed)\b|^(?:do|does) (?:you|anyone) know (?:of|if|whether|any|anyone|anybody|someone|somebody|a place)\b|^(?:has|have) (?:anyone|anybody|someone)\b/;

/** The speaker promises to come back or tell ("If I pass this way again, I'll tell you how it went."). */
const PROMISE = /\bi(?:'ll| will) (?:tell you|let you know|come back|come by|stop by|drop by|visit)\b/;
/** A small misfortune of the speaker's own doing ("I burned everything", "I overslept"). */
const MISHAP = /\bi (?:(?:tried [^.!?]* and )|(?:just |nearly |almost |went and )?)(?:burned|burnt|broke|spilled|spilt|ruined|forgot|tripped|fell|missed|overslept|tore|ripped|slipped|got soaked|got caught in|got wet|got stuck)\b/;
/** How often one does or did a thing ("Did you ever marry?" is about one's life: personal). */
const EVER = /^do (?:you|ye) (?:ever|often|sometimes)\b|^have (?:you|ye) ever (?!been married|married|had (?:a )?(?:wife|husband|children|child))/;
const USUALLY = /^(?:do|are) (?:you|ye) (?:usually|always|normally|generally)\b/;
/** A request for advice ("Any advice for ...?", "What should I do about ...?"). */
const ADVICE = /^(?:any|got any|have you (?:got )?any) (?:advice|tips|counsel)\b|^what (?:should|would you have) i do\b|^what do you (?:suggest|recommend|advise)\b|^how (?:should|can|do) i (?:get better|learn|improve)\b/;

/** "Should I write to my family more often?": asking whether to do a thing. */
const SHOULD_I = /^should i\b(?! (?:go|leave|stay|wait|come)\b)/;

/** A question after what the one asked can do ("Can you read?"); "Can you help me?" is a request. */
const ABILITY = /^(?:can|could) (?:you|ye) (?:read|write|swim|sing|dance|cook|fight|ride|sew|count|fish|hunt|climb|play|speak|whistle|juggle|knit|carve|shoot|tell the time)\b|^do (?:you|ye) know how to\b/;

export type UnsureKind = keyof typeof LINES;
type Kind = UnsureKind;

/** The first kind whose pattern matches `text`, in the order listed. */
const firstKind = (table: [RegExp, Kind][], text: string): Kind | undefined => table.find(([re]) => re.test(text))?.[1];

/** Kinds read on the whole line, before anything else: a goodbye, thanks or an apology anywhere in it. */
const ANYWHERE: [RegExp, Kind][] = [
  [FAREWELL, 'farewell'],
  [THANKS, 'thanks'],
  [SORRY, 'sorry'],
];

/** Kinds read on the last sentence, question or not. */
const ASKING: [RegExp, Kind][] = [
  [WILL_TELL, 'willTell'],
  [OFFERED, 'offered'],
  [ADVICE, 'advice'],
  [SHOULD_I, 'shouldI'],
  [ABOUT_ME, 'aboutMe'],
  [ABILITY, 'ability'],
  // "How are you today?", "How are you keeping?", "How's life?" (not "How do you know ...?")
  [/^(?!.*\bhow (?:are|did|do) you (?:know|get|make|find|manage|come|feel about)\b)(?:and\s+)?how(?:'s| is| are| have)\s+(?:you|ye|things|life|it going|you been|your day)\b[^?]*\?$/, 'wellbeing'],
  // "You well this morning?", "Are you keeping well?", "All well with you?", "How goes it?", "How fare you?"
  [/^(?:and\s+)?(?:(?:are\s+)?(?:you|ye)\s+(?:keeping |doing |faring )?(?:well|all right|alright|keeping)|(?:keeping|doing|faring) well|all well(?: with you)?|how (?:goes it|fare you|do you fare|have you been|do you do))(?:[ ,]+(?:today|tonight|this (?:morning|evening|afternoon|day)|these days|lately|then|now|friend|my friend|mistress|sir))*\s*\?$/, 'wellbeing'],
];

/** "Are you married?", "Do you believe in magic?": about the speaker's own life ("Have you heard any news?", "Did you find where they went?" are not). */
const ABOUT_OWN_LIFE = /^(?:are|were)\s+(?:you|ye)\b|^did\s+(?:you|ye)\s+ever\b|^(?:do|would|will)\s+(?:you|ye)\s+(?:like|love|have|believe|enjoy|want|miss|ever|sing|play|pray|hope|fear|mind|dream|think|sleep|eat|drink|hunt|fish|go|live|work)\b|^have\s+(?:you|ye)\s+(?:ever|always|been|got|a|any|no|lived|worked|travelled|traveled|married|seen a)\b/;

/** Kinds of a yes/no question (its last sentence), in order; else 'yesno'. */
const YES_NO: [RegExp, Kind][] = [
  // "Cold tonight, isn't it?": agreeing is the plain answer
  [/,\s*(?:isn't|aren't|wasn't|don't|doesn't|didn't|right|eh)\b[^,]*\?$/, 'tag'],
  // "Do you need any help?", "Can I get you anything?", "Would you like some bread?": an offer
  [/\b(?:need|want)\s+(?:any|some|a)\s+(?:help|hand)\b|^(?:can|could|shall|may)\s+i\s+(?:help|get|bring|fetch|carry|do)\b|^would\s+(?:you|ye)\s+(?:like|care for|fancy)\b|^do\s+(?:you|ye)\s+want\s+(?:a|an|some|me to)\b/, 'offer'],
  [USUALLY, 'usually'],
  // (a taste or a view asked about is an opinion, however it is asked)
  [new RegExp(`^(?!.*(?:${OPINION.source}))(?:${EVER.source})`), 'ever'],
  [new RegExp(`^(?=.*(?:${OPINION.source}))(?:${ABOUT_OWN_LIFE.source})`), 'opinion'],
  [ABOUT_OWN_LIFE, 'personal'],
  [PERMISSION, 'permission'],
  [FOLK, 'folk'],
  [EXISTS, 'exists'],
];

/** Kinds of a remark (no question at its end), read on the whole line, in order; else 'remark'. */
const REMARKS: [RegExp, Kind][] = [
  [/\bi(?:'m| am)\s+(?:so |very |really |a bit |rather )?(?:tired|weary|exhausted|worn out)\b|\bwalking all day\b/, 'tired'],
  [/\bi(?:'m| am)\s+(?:so |very |really |a bit |rather )?(?:hungry|starving|famished)\b/, 'hungry'],
  [/\bi(?:'m| am)\s+(?:so |very |really |a bit |rather )?(?:cold|freezing|frozen)\b/, 'cold'],
  [/\bi(?:'m| am)\s+(?:a bit |rather |quite )?lost\b|\bi(?:'ve| have)? lost my way\b|\bi(?:'ve| have)? (?:already |just )?(?:got|gotten|been|got myself) lost\b/, 'lost'],
  [LOST_THING, 'lostThing'],
  [NERVOUS, 'nervous'],
  [HURT, 'hurt'],
  [SAD, 'sad'],
  [THEIR_NEWS, 'theirNews'],
  [GOOD_NEWS, 'goodNews'],
  [PLANS, 'plans'],
  [PROMISE, 'promise'],
  [MISHAP, 'mishap'],
  [GREETING, 'greeting'],
  [COMPLIMENT, 'compliment'],
];

/** The kind of plain line `heard` calls for. */
export function unsureKind(heard: string): Kind {
  const s = heard.toLowerCase().trim();
  const last = lastSentence(s);
  const early = firstKind(ANYWHERE, s) ?? firstKind(ASKING, last);
  if (early) return early;
  const kind = lineKind(heard);
  if (kind === 'yesno') return firstKind(YES_NO, last) ?? 'yesno';
  // "Where are you from?", "What makes you laugh?": about the speaker's own life;
  // "What would you give someone as a wedding gift?": a view asked for, not one's life
  if (kind !== 'remark') return asksAboutYou(heard) ? (OPINION.test(last) || /^what would (?:you|ye)\b/.test(last) ? 'opinion' : 'personal') : 'wh';
  return firstKind(REMARKS, s) ?? 'remark';
}

/**
 * A plain line for `heard`, not one of `said` (the lines of the conversation so far, lowercased), the
 * choice among equals spread by `seed` (the speaker's name) so that a room of characters does not
 * answer in chorus. Undefined when every such line was said already.
 */
export function unsureLine(heard: string, said: Set<string>, seed: string, kind: Kind = unsureKind(heard)): string | undefined {
  const lines = LINES[kind];
  let h = 0;
  for (let i = 0; i < seed.length; i++) h = (h * 31 + seed.charCodeAt(i)) >>> 0;
  for (let k = 0; k < lines.length; k++) {
    const line = lines[(h + k) % lines.length]!;
    if (!said.has(line.toLowerCase())) return line;
  }
  return undefined;
}
