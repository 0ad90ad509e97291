/**
 * Grounded context for model-driven characters, in LIGHT's format (one fact a line):
 *
 *   _task_speech
 *   _setting_name The Rusty Flagon, Tavern
 *   _setting_desc You are in a low, smoky room...
 *   _partner_name the innkeeper
 *   _self_name the bard
 *   _self_persona I am a wandering bard. ...
 *   _object_desc lute : a battered lute with three strings
 *   _partner_say What will it be?
 *   _self_act get lute
 *
 * The input is plain data (`ContextFacts`), so this module does not depend on the engine's World;
 * the function that extracts facts from a live world lives with the agents' driver.
 *
 * Truncation (maxChars or maxTokens) keeps the task, setting, names and persona, drops history
 * oldest first (keeping the newest line as long as possible), then object lines, then the newest
 * history line; if the kept lines still do not fit, the text is cut at the end.
 */
import { selectLines, TASK_LINES } from '../../models/runtime/light-format.js';

export type ContextTask = 'speech' | 'action' | 'emote';

export interface HistoryEntry {
  speaker: 'self' | 'partner';
  kind: 'say' | 'act' | 'emote';
  /** What was said; the action text ("get lute"); the emote ("wave"). */
  text: string;
}

export interface ObjectFact {
  name: string;
  description: string;
  /** Carried, worn or wielded by the character (listed after the objects present in the room). */
  carried?: boolean;
}

export interface ContextFacts {
  setting: { name: string; description: string; /** LIGHT's category, e.g. "Tavern"; shown after the name. */ category?: string };
  self: { name: string; persona: string };
  /** Names of the other characters present (LIGHT has one partner; several are joined with ", "). */
  partners: string[];
  objects: ObjectFact[];
  /** Oldest first. */
  history: HistoryEntry[];
}

export interface FormatOptions {
  maxChars?: number;
  maxTokens?: number;
  /** Token counter for maxTokens (default: whitespace-separated words); pass the model tokenizer's for exact budgets. */
  countTokens?: (text: string) => number;
}

/** One line of text: newlines and runs of spaces become single spaces. */
function flat(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export function historyLine(h: HistoryEntry): string {
  return `_${h.speaker}_${h.kind} ${flat(h.text)}`;
}

/** The context lines, untruncated. */
export function contextLines(facts: ContextFacts, task: ContextTask): string[] {
  const lines: string[] = [TASK_LINES[task]];
  const setting = facts.setting.category ? `${flat(facts.setting.name)}, ${flat(facts.setting.category)}` : flat(facts.setting.name);
  lines.push(`_setting_name ${setting}`);
  lines.push(`_setting_desc ${flat(facts.setting.description)}`);
  if (facts.partners.length) lines.push(`_partner_name ${facts.partners.map(flat).join(', ')}`);
  lines.push(`_self_name ${flat(facts.self.name)}`);
  lines.push(`_self_persona ${flat(facts.self.persona)}`);
  const present = facts.objects.filter((o) => !o.carried);
  const carried = facts.objects.filter((o) => o.carried);
  for (const o of [...present, ...carried]) lines.push(`_object_desc ${flat(o.name)} : ${flat(o.description)}`);
  for (const h of facts.history) lines.push(historyLine(h));
  return lines;
}

const words = (text: string): number => (text.match(/\S+/g) ?? []).length;

/** The LIGHT-format context for `task`, truncated to the given budget. */
export function formatContext(facts: ContextFacts, task: ContextTask, opts: FormatOptions = {}): string {
  let lines = contextLines(facts, task);
  if (opts.maxTokens !== undefined) {
    const count = opts.countTokens ?? words;
    lines = selectLines(lines, count, opts.maxTokens);
  }
  if (opts.maxChars !== undefined) lines = selectLines(lines, (l) => l.length, opts.maxChars, 1);
  let text = lines.join('\n');
  if (opts.maxChars !== undefined && text.length > opts.maxChars) text = text.slice(0, opts.maxChars);
  if (opts.maxTokens !== undefined && !opts.countTokens) {
    const w = text.split('\n').map((l) => l.split(' '));
    // Cut whitespace words at the end until the word count fits.
    let total = words(text);
    while (total > opts.maxTokens && w.length) {
      const last = w[w.length - 1]!;
      last.pop();
      total--;
      if (!last.length) w.pop();
    }
    text = w.map((l) => l.join(' ')).join('\n');
  }
  return text;
}
