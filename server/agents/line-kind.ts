/**
 * What kind of line a line is, as a person hears it: a question asking what, where, who, when, why,
 * how or which; a yes/no question ("Are you married?", "Cold tonight, isn't it?"); or a remark. A
 * line's last sentence decides ("Good evening! Cold tonight, isn't it?" asks yes or no).
 */
export type LineKind = 'what' | 'where' | 'who' | 'when' | 'why' | 'how' | 'which' | 'yesno' | 'remark';

const WH = /\b(what|where|who|whom|whose|when|why|how|which)\b/;
const YES_NO = /^(?:are|is|am|was|were|do|does|did|can|could|will|would|have|has|had|may|might|should|shall|must|won't|don't|doesn't|didn't|isn't|aren't|wasn't|can't|couldn't|wouldn't|haven't|hasn't|anyone|anything|any)\b/;

export function lineKind(line: string): LineKind {
  const sentences = line.trim().split(/(?<=[.!?])\s+/).filter(Boolean);
  const last = (sentences[sentences.length - 1] ?? '').toLowerCase().replace(/^[^a-z]+/, '');
  if (!last.endsWith('?')) return 'remark';
  // "..., isn't it?" / "..., don't you?": a tag asks yes or no
  if (/,\s*(?:isn't|aren't|wasn't|don't|doesn't|didn't|won't|can't|haven't|hasn't|right|eh|yes|no)\b[^,]*\?$/.test(last)) return 'yesno';
  if (YES_NO.test(last)) return 'yesno';
  const wh = WH.exec(last)?.[1];
  if (wh) return (wh === 'whom' || wh === 'whose' ? 'who' : wh) as LineKind;
  return 'yesno';
}
