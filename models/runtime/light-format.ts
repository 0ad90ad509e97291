/**
 * LIGHT's context format (Urbanek et al., 2019; ParlAI's light_dialog teacher): one fact a line,
 *
 *   _task_speech
 *   _setting_name Dungeon, Inside Castle
 *   _setting_desc You are in a damp cell...
 *   _partner_name guard
 *   _self_name prisoner
 *   _self_persona I am a prisoner. ...
 *   _object_desc key : a rusty iron key
 *   _partner_say what are you looking at?
 *   _self_act get key
 *
 * and the truncation rule shared by the context formatter (server/agents/context.ts) and the
 * runtime's token-level truncation: task, setting, names and persona are always kept; history is
 * dropped oldest first (the newest history line is kept as long as possible), then object lines
 * (last first), then the newest history line. If the kept lines still do not fit, the caller cuts
 * the text at the end.
 */

export type LineRole = 'header' | 'object' | 'history';

const HEADER_PREFIXES = ['_task_', '_setting_', '_partner_name', '_self_name', '_self_persona'];

export function lineRole(line: string): LineRole {
  if (HEADER_PREFIXES.some((p) => line.startsWith(p))) return 'header';
  if (line.startsWith('_object_desc')) return 'object';
  return 'history';
}

/** The task line of each task, in LIGHT's spelling. */
export const TASK_LINES = { speech: '_task_speech', action: '_task_action', emote: '_task_emote' } as const;

/**
 * Chooses which lines to keep so that `sum(cost(line)) + sep * (kept - 1) <= budget`, following the
 * rule above. Returns the kept lines in their original order.
 */
export function selectLines(lines: string[], cost: (line: string) => number, budget: number, sep = 0): string[] {
  const costs = lines.map(cost);
  const keep = lines.map(() => true);
  const total = (): number => {
    let t = 0;
    let count = 0;
    for (let i = 0; i < lines.length; i++) if (keep[i]) { t += costs[i]!; count++; }
    return t + sep * Math.max(0, count - 1);
  };
  if (total() <= budget) return lines.slice();
  const history: number[] = [];
  const objects: number[] = [];
  lines.forEach((l, i) => {
    const role = lineRole(l);
    if (role === 'history') history.push(i);
    else if (role === 'object') objects.push(i);
  });
  // 1. oldest history first, keeping the newest line
  for (let h = 0; h < history.length - 1 && total() > budget; h++) keep[history[h]!] = false;
  // 2. object lines, last first
  for (let o = objects.length - 1; o >= 0 && total() > budget; o--) keep[objects[o]!] = false;
  // 3. the newest history line
  if (history.length && total() > budget) keep[history[history.length - 1]!] = false;
  return lines.filter((_, i) => keep[i]);
}
