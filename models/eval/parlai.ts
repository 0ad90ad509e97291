/**
 * Reader for ParlAI's text format as LIGHT's data is distributed:
 *
 *   text:_setting_name Dungeon\n_partner_say hello\tlabels:hi there\tlabel_candidates:a|b|hi there
 *   text:_partner_say how are you?\tlabels:fine\tlabel_candidates:...\tepisode_done:True
 *
 * One example a line, tab-separated `key:value` fields. Values escape newline as `\n`, tab as `\t`
 * and backslash as `\\`; list fields (labels, eval_labels, label_candidates) are `|`-separated, a
 * literal pipe written `__PIPE__` (ParlAI) or `\|`. `episode_done:True` ends an episode.
 *
 * Within an episode a line carries only the new context, so contexts accumulate: an example's
 * context is the previous example's context, then the previous gold label as the character's own
 * line (`_self_say` / `_self_act` / `_self_emote`, as ParlAI adds the label to the history), then
 * its own text. A `_task_speech` / `_task_action` / `_task_emote` line starts the context when
 * the data has none.
 */
import { readFileSync } from 'node:fs';
import { TASK_LINES } from '../runtime/light-format.js';

export type EvalTask = 'dialogue' | 'action' | 'emote';

export class ParlaiFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ParlaiFormatError';
  }
}

export interface ParlaiMessage {
  /** 1-based line number in the file. */
  line: number;
  text: string;
  labels: string[];
  candidates: string[];
  episodeDone: boolean;
  /** Every field as read (unescaped), including unknown ones. */
  fields: Record<string, string>;
}

export interface EvalExample {
  line: number;
  /** Episode number (0-based) and turn within it. */
  episode: number;
  turn: number;
  context: string;
  labels: string[];
  candidates: string[];
}

const LIST_FIELDS = new Set(['labels', 'eval_labels', 'label_candidates', 'text_candidates']);

/** Unescapes \n, \t, \\ (and, in lists, \|); other backslashes are kept as written. */
function unescape(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === '\\' && i + 1 < value.length) {
      const n = value[i + 1]!;
      if (n === 'n') { out += '\n'; i++; continue; }
      if (n === 't') { out += '\t'; i++; continue; }
      if (n === '\\') { out += '\\'; i++; continue; }
      if (n === '|') { out += '|'; i++; continue; }
    }
    out += c;
  }
  return out;
}

/** Splits a list on `|` not preceded by a backslash, then unescapes each item. */
function splitList(value: string): string[] {
  if (value === '') return [];
  const items: string[] = [];
  let cur = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === '\\' && i + 1 < value.length) {
      cur += c + value[i + 1]!;
      i++;
    } else if (c === '|') {
      items.push(cur);
      cur = '';
    } else cur += c;
  }
  items.push(cur);
  return items.map((s) => unescape(s).replaceAll('__PIPE__', '|'));
}

export function parseParlaiLine(raw: string, lineNo: number, file = '<input>'): ParlaiMessage {
  const where = `${file}:${lineNo}`;
  const fields: Record<string, string> = {};
  const lists: Record<string, string[]> = {};
  for (const part of raw.replace(/\r$/, '').split('\t')) {
    if (part === '') continue;
    const colon = part.indexOf(':');
    if (colon <= 0) {
      const shown = part.length > 40 ? `${part.slice(0, 40)}...` : part;
      throw new ParlaiFormatError(`${where}: field "${shown}" is not key:value (fields are tab-separated key:value pairs)`);
    }
    const key = part.slice(0, colon);
    const value = part.slice(colon + 1);
    if (key in fields) throw new ParlaiFormatError(`${where}: field "${key}" appears twice`);
    if (LIST_FIELDS.has(key)) {
      lists[key] = splitList(value);
      fields[key] = lists[key]!.join('|');
    } else fields[key] = unescape(value);
  }
  if (!('text' in fields)) throw new ParlaiFormatError(`${where}: no text: field`);
  const labels = lists.labels ?? lists.eval_labels;
  if (!labels || labels.length === 0 || labels.every((l) => l === '')) throw new ParlaiFormatError(`${where}: no labels: (or eval_labels:) field`);
  const done = fields.episode_done;
  if (done !== undefined && !/^(true|false|1|0)$/i.test(done)) throw new ParlaiFormatError(`${where}: episode_done must be True or False, got "${done}"`);
  return {
    line: lineNo,
    text: fields.text!,
    labels,
    candidates: lists.label_candidates ?? [],
    episodeDone: done !== undefined && /^(true|1)$/i.test(done),
    fields,
  };
}

export function parseParlai(content: string, file = '<input>'): ParlaiMessage[] {
  const out: ParlaiMessage[] = [];
  content.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    out.push(parseParlaiLine(raw, i + 1, file));
  });
  return out;
}

export function readParlaiFile(path: string): ParlaiMessage[] {
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ParlaiFormatError(`${path}: cannot read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  const messages = parseParlai(content, path);
  if (messages.length === 0) throw new ParlaiFormatError(`${path}: no examples`);
  return messages;
}

const SELF_KIND: Record<EvalTask, string> = { dialogue: '_self_say', action: '_self_act', emote: '_self_emote' };
const TASK_LINE: Record<EvalTask, string> = { dialogue: TASK_LINES.speech, action: TASK_LINES.action, emote: TASK_LINES.emote };

export interface AccumulateOptions {
  /** Add each gold label to the history of the episode's later examples (default true). */
  addLabels?: boolean;
  /** Start contexts with the task line when the data has none (default true). */
  taskLine?: boolean;
}

/** Examples with contexts accumulated within each episode. */
export function accumulate(messages: ParlaiMessage[], task: EvalTask, opts: AccumulateOptions = {}): EvalExample[] {
  const out: EvalExample[] = [];
  let history: string[] = [];
  let episode = 0;
  let turn = 0;
  let prevLabel: string | undefined;
  for (const m of messages) {
    const lines = m.text.split('\n');
    if (turn === 0 && opts.taskLine !== false && !lines.some((l) => l.startsWith('_task_'))) history.push(TASK_LINE[task]);
    if (prevLabel !== undefined && opts.addLabels !== false) {
      const own = `${SELF_KIND[task]} ${prevLabel}`;
      if (!lines.some((l) => l.includes(prevLabel!))) history.push(own);
    }
    history.push(...lines.filter((l) => l !== ''));
    out.push({ line: m.line, episode, turn, context: history.join('\n'), labels: m.labels, candidates: m.candidates });
    prevLabel = m.labels[0];
    turn++;
    if (m.episodeDone) {
      history = [];
      episode++;
      turn = 0;
      prevLabel = undefined;
    }
  }
  return out;
}
