/**
 * Gold units (Mephisto's idea): scenes with one known right action, served to a worker now and then
 * in place of an ordinary unit, and checked. The worker sees an ordinary episode: the scene's partner
 * (a script character) speaks first, with one line, and the worker's one turn is the answer; the
 * action (or emote) they take is compared with the scene's answer. Gold episodes are never exported;
 * results are shown per worker on the review page (failures count against the worker there).
 *
 * When: at a decaying frequency, the worker's 1st, 3rd, 7th, 15th, ... unit (0-based index 2^k - 1).
 * A gold scene that cannot be cast when it is due (its room or characters busy) is served at the
 * worker's next unit instead: the k-th gold is due once the worker has done 2^k - 1 units.
 */
import { isEmote } from '../engine/emotes.js';

export interface GoldScene {
  /** Names the scene in the review (letters, digits, '-' and '_'). */
  id: string;
  /** Room id the scene is played in. */
  location: string;
  /** The character the worker plays. */
  persona: string;
  /** The character who speaks first (a script), to whom the line is said. */
  partner: string;
  /** The partner's line that asks for the action. */
  say: string;
  /** The one right action (canonical text, as the action buttons show it) or emote. */
  answer: string;
}

/**
 * The result stored on a gold unit: `pending` until the worker's turn, then `pass` or `fail` (a turn
 * timed out fails), or `void`: the answer was not something the worker could do when served.
 */
export interface GoldResult {
  scene: string;
  answer: string;
  given: string | null;
  result: 'pending' | 'pass' | 'fail' | 'void';
}

/** Units done before the k-th gold unit (k from 0) is due: 0, 2, 6, 14, ... (the worker's 1st, 3rd, 7th, 15th unit). */
export function goldDueAt(k: number): number {
  return 2 ** (k + 1) - 2;
}

/** Whether the worker's next unit should be gold, given the units they have done and how many of them were gold. */
export function goldDue(unitsDone: number, goldDone: number): boolean {
  return unitsDone >= goldDueAt(goldDone);
}

const norm = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();

/** Check the worker's turn against the scene's answer. */
export function checkGold(scene: GoldScene, given: { action?: string; emote?: string } | null, answerWasValid: boolean): GoldResult {
  const g = given?.action ?? given?.emote ?? null;
  const result = !answerWasValid ? 'void' : g !== null && norm(g) === norm(scene.answer) ? 'pass' : 'fail';
  return { scene: scene.id, answer: scene.answer, given: g, result };
}

export function answerIsEmote(scene: GoldScene): boolean {
  return isEmote(norm(scene.answer));
}
