/**
 * What kind of line a line is, as a person hears it: a question asking what, where, who, when, why,
 * how or which; a yes/no question ("Are you married?", "Cold tonight, isn't it?"); or a remark. A
 * line's last sentence decides ("Good evening! Cold tonight, isn't it?" asks yes or no).
 */
export type LineKind = 'what' | 'where' | 'who' | 'when' | 'why' | 'how' | 'which' | 'yesno' | 'remark';

const WH = /\b(what|where|who|whom|whose|when|why|how|which)\b/;
const YES_NO = /^(?:are|is|am|was|were|do|does|did|can|could|will|would|have|has|had|may|might|should|shall|must|won't|don't|doesn't|didn't|isn't|aren't|wasn't|can't|couldn't|wouldn't|haven't|hasn't|anyone|anything|any)\b/;

/** The last sentence of a line, as written ("Good evening! Cold tonight, isn't it?" -> "Cold tonight, isn't it?"). */
export function lastSentence(line: string): string {
  const sentences = line.trim().split(/(?<=[.!?])\s+/).filter(Boolean);
  return sentences[sentences.length - 1] ?? '';
}

export function lineKind(line: string): LineKind {
  const last = lastSentence(line).toLowerCase().replace(/^[^a-z]+/, '');
  if (!last.endsWith('?')) return 'remark';
  // "..., isn't it?" / "..., don't you?": a tag asks yes or no
  if (/,\s*(?:isn't|aren't|wasn't|don't|doesn't|didn't|won't|can't|haven't|hasn't|right|eh|yes|no)\b[^,]*\?$/.test(last)) return 'yesno';
  if (YES_NO.test(last)) return 'yesno';
  const wh = WH.exec(last)?.[1];
  if (wh) return (wh === 'whom' || wh === 'whose' ? 'who' : wh) as LineKind;
  return 'yesno';
}

/**
 * Does a line ask about the one it is said to: their life, likes, past or hopes ("Where are you
 * from?", "Are you married?", "What makes you laugh?", "How are you?")? Not a request ("Could you
 * give me...?"), an offer ("Do you need any help?"), a question of what they know or saw ("Do you
 * know the way?", "Have you heard any news?") or one asking leave ("Mind if I sit?"). Only one's own
 * life answers it: another character's answer tells that character's.
 */
export function asksAboutYou(line: string): boolean {
  if (lineKind(line) === 'remark') return false;
  const last = lastSentence(line).toLowerCase();
  if (!/\b(?:you|your|yours|yourself|ye)\b/.test(last)) return false;
  if (/^(?:can|could|would|will|won't)\s+(?:you|ye)\s+(?:please\s+)?(?:give|hand|pass|tell|show|help|lend|spare|take|bring|get|fetch|point|direct|let|sell|lead|take|find|open|watch|mind)\b/.test(last)) return false;
  if (/\b(?:need|want|like)\s+(?:any|some|a)?\s*(?:help|hand|company)\b|^(?:can|could|shall|may)\s+i\b|\bmind if\b/.test(last)) return false;
  if (/\b(?:do|did|does)\s+(?:you|ye)\s+(?:know|hear|see|remember|happen to)\b|\bhave\s+(?:you|ye)\s+(?:heard|seen|noticed)\b|\b(?:you|ye)\s+(?:know|knew)\s+(?:of|where|who|any|the|a)\b/.test(last)) return false;
  return true;
}

/**
 * Is `reply` a yes or a no to a question that asks who, what, where, when, which or how ("Who is in
 * charge around here?" -> "Yes. Everybody wants you to bend the rules.")? Such a reply answered some
 * other question. Suggestions ("How about a drink?", "Why not sit down?") take yes or no.
 */
export function yesNoToWh(heard: string, reply: string): boolean {
  // "Yes, ...", "No.", and the short answers that stand for them: "I would.", "I don't, no."
  if (!/^(?:yes|no|aye|nay|yeah|yep|nope)\b|^i (?:would|wouldn't|do|don't|did|didn't|can|can't|will|won't|am|have|haven't|had|hadn't)\s*[.!,]/i.test(reply.trim())) return false;
  const last = lastSentence(heard).toLowerCase().replace(/^[^a-z]+/, '');
  if (!last.endsWith('?') || /,\s*(?:isn't|aren't|wasn't|don't|doesn't|didn't|won't|can't|right|eh)\b[^,]*\?$/.test(last)) return false;
  return /^(?:who|whom|whose|what|where|when|which|how)\b/.test(last) && !/^(?:how|what) about\b|^what if\b|^how come\b/.test(last);
}
