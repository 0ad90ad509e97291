/**
 * Acceptability checks on what a worker types, in the spirit of LIGHT's and Mephisto's: too short,
 * all in capitals, said already, copied from the persona (word 3-gram Jaccard), and a small safety
 * filter (a word list). Each problem is a sentence the worker can act on; a refused line is never
 * lost (the client keeps it in the input box).
 */
import type { CrowdChecks } from './task.js';

/** A small built-in list: slurs and sexual or violent words that have no place in the task. Matched as whole words. */
const SAFETY_WORDS = [
  'fuck', 'fucking', 'fucker', 'shit', 'cunt', 'bitch', 'whore', 'slut', 'nigger', 'nigga', 'faggot', 'fag', 'retard', 'kike', 'spic',
  'chink', 'rape', 'rapist', 'porn', 'dick', 'cock', 'pussy', 'kys',
];

export function words(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9']+/g) ?? [];
}

function trigrams(text: string): Set<string> {
  const w = words(text);
  const out = new Set<string>();
  for (let i = 0; i + 2 < w.length; i++) out.add(`${w[i]} ${w[i + 1]} ${w[i + 2]}`);
  return out;
}

/** Jaccard similarity of the two texts' word 3-grams (0 when either has none). */
export function trigramJaccard(a: string, b: string): number {
  const x = trigrams(a);
  const y = trigrams(b);
  if (!x.size || !y.size) return 0;
  let inter = 0;
  for (const g of x) if (y.has(g)) inter++;
  return inter / (x.size + y.size - inter);
}

/** The safety filter's words found in a text. */
export function unsafeWords(text: string, extra: readonly string[] = []): string[] {
  const list = new Set([...SAFETY_WORDS, ...extra.map((w) => w.toLowerCase())]);
  return [...new Set(words(text).filter((w) => list.has(w)))];
}

export interface LineContext {
  /** The worker's persona. */
  persona: string;
  /** What the worker said before in this episode. */
  said: string[];
}

/** Problems with one utterance; empty when it is acceptable. */
export function checkLine(text: string, ctx: LineContext, checks: CrowdChecks): string[] {
  const problems: string[] = [];
  const t = text.trim();
  const w = words(t);
  if (w.length < checks.minWords) problems.push(`Please write at least ${checks.minWords} words (you wrote ${w.length}).`);
  const letters = t.replace(/[^A-Za-z]/g, '');
  if (checks.noAllCaps && letters.length >= 4 && letters === letters.toUpperCase()) problems.push('Please do not write in capital letters only.');
  if (checks.noRepeats) {
    const norm = w.join(' ');
    if (norm && ctx.said.some((s) => words(s).join(' ') === norm)) problems.push('You said that already; please say something new.');
  }
  if (checks.personaCopyJaccard < 1 && trigramJaccard(t, ctx.persona) > checks.personaCopyJaccard) {
    problems.push('That copies your character description; please say it in your own words, as your character would speak.');
  }
  const unsafe = unsafeWords(t, checks.blockedWords);
  if (unsafe.length) problems.push(`Please keep it friendly: "${unsafe.join('", "')}" is not allowed in this task.`);
  return problems;
}
