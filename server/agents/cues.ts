/**
 * Social cues in a partner's line that call for a particular kind of response (LIGHT's table 9):
 * a threat ("you must die!") calls for hitting back, fleeing or screaming; sadness ("I'm feeling
 * sad") for a hug; hunger or thirst ("I'm parched") for food or drink, offered when the character has
 * some. Detection is by rule (small word lists); which response the character gives to a
 * threat is left to the model (see policy.ts).
 */
import { sentences } from './requests.js';

export type Cue = 'threat' | 'sad' | 'hungry' | 'thirsty';

const THREAT = [
  /\byou (?:must|will|shall|are going to|'re going to|gonna) (?:die|pay|suffer|perish|bleed|regret)\b/,
  /\bi(?:'ll| will| shall|'m going to| am going to|'m gonna| am gonna) (?:kill|murder|gut|end|hurt|cut|smash|crush|destroy|beat|stab|slay|strangle|throttle|skin|flay|break|drown|burn|get) (?:you|ye|thee)\b/,
  /\b(?:prepare|ready yourself) to die\b/,
  /\byou(?:'re| are) (?:dead|finished|done for)\b/,
  /\bdie,? (?:you|scum|wretch|fool|thief|dog|villain|witch)\b/,
  /^die\b/,
  /\bor (?:else|you die|you'll regret|i'll (?:kill|hurt|gut|end|cut|skin|break|make you)|i will (?:kill|hurt|gut|end|cut|skin|break|make you))\b/,
  /\b(?:fight|face) me\b/,
  /\ben garde\b|\bhave at (?:you|thee|ye)\b/,
  /\bi(?:'ll| will) have your (?:head|hide|life|blood|guts)\b/,
  /\byour (?:life|blood) is mine\b/,
  /\b(?:death|doom) to you\b/,
  /\bi(?:'ll| will) make you (?:pay|suffer|bleed|regret)\b/,
];

const SAD = [
  /\bi(?:'m| am| feel|'ve been| have been)(?: feeling)?(?: so| very| really| terribly| awfully| a bit| rather| quite)? (?:sad|lonely|alone|down|miserable|unhappy|heartbroken|depressed|upset|blue|gloomy|wretched|forlorn|hopeless|low|sorrowful|grieving|lost)\b/,
  /\bi need (?:a hug|comfort|a friend)\b/,
  /\bcomfort me\b/,
  /\b(?:my|our) (?:\w+ )?(?:died|is dead|passed away|was killed)\b/,
  /\bi miss (?:him|her|them|my|home)\b/,
  /\bi(?:'ve| have) lost (?:everything|my|all)\b/,
  /\bnobody (?:loves|cares about|likes) me\b/,
  /\bi (?:could|want to|wanna) cry\b/,
];

/** Hunger and thirst said of oneself ("I'm starving", "Haven't had a drop all day"): food or drink, if the character has some, is offered (view.ts). */
const HUNGRY = [
  /\bi(?:'m| am)(?: so| very| really| rather| a bit| half| near| nearly)? (?:hungry|starving|starved|famished|ravenous)\b/,
  /\bi (?:haven't|have not|hadn't) eaten\b|\bnot eaten (?:in|for|since)\b|\bhaven't had a bite\b/,
];
const THIRSTY = [
  /\bi(?:'m| am)(?: so| very| really| rather| a bit| half)? (?:thirsty|parched|dry as)\b/,
  /\b(?:haven't|have not|hadn't) had a (?:drop|drink|sip)\b|\bdying (?:of|for a) (?:thirst|drink)\b/,
];

/** The cue in a partner's line, if any (a threat wins over sadness, sadness over hunger and thirst). */
export function cueOf(text: string): Cue | null {
  const ss = sentences(text).map((s) => s.toLowerCase());
  if (ss.some((s) => THREAT.some((r) => r.test(s)))) return 'threat';
  if (ss.some((s) => SAD.some((r) => r.test(s)))) return 'sad';
  if (ss.some((s) => THIRSTY.some((r) => r.test(s)))) return 'thirsty';
  if (ss.some((s) => HUNGRY.some((r) => r.test(s)))) return 'hungry';
  return null;
}

/** Emotes that answer a threat without fighting. */
export const FEAR_EMOTES = ['scream', 'gasp', 'cry', 'growl'] as const;
