/**
 * From written episodes to training and evaluation examples, as LIGHT built its tasks: at every
 * turn, the speaker's grounded context (setting, persona, partner, objects present and carried,
 * the episode so far) with the gold utterance, action and emote. Action candidates are the
 * speaker's valid actions at that moment; emote candidates the 22 emotes.
 */
import { EMOTES } from '../engine/emotes.js';
import { execute, validActions } from '../engine/game.js';
import type { World } from '../engine/world.js';
import { contextLines, type ContextTask, type HistoryEntry } from '../agents/context.js';
import { factsFor } from '../agents/facts.js';
import type { Episode } from './episode.js';
import { stageEpisode } from './stage.js';

import type { Split } from './splits.js';
export type { Split };
export const SPLITS: Split[] = ['train', 'valid', 'test_seen', 'test_unseen'];
export { splitOf, type SplitConfig } from './splits.js';

export interface Example {
  episode: string;
  turn: number;
  task: ContextTask;
  /** Context lines, oldest first (untruncated; the tokenizer budget picks lines). */
  lines: string[];
  label: string;
  /** Action candidates (the speaker's valid actions); emotes use EMOTES; dialogue draws distractors. */
  candidates?: string[];
}

/** Every example of one episode, replaying it in a staged copy of the world. */
export function episodeExamples(world: World, ep: Episode): Example[] {
  const w = stageEpisode(world, ep.room, ep.characters);
  const out: Example[] = [];
  const turnsSoFar: { speaker: string; kind: 'say' | 'act' | 'emote'; text: string }[] = [];
  const historyFor = (self: string): HistoryEntry[] => turnsSoFar.map((t) => ({ speaker: t.speaker === self ? 'self' : 'partner', kind: t.kind, text: t.text }));
  ep.turns.forEach((t, i) => {
    const partner = ep.characters.find((c) => c !== t.speaker) ?? ep.characters[0]!;
    const partners = ep.characters.filter((c) => c !== t.speaker);
    if (t.say) {
      const facts = factsFor(w, t.speaker, historyFor(t.speaker), partners.length ? partners : [partner]);
      out.push({ episode: ep.id, turn: i, task: 'speech', lines: contextLines(facts, 'speech'), label: t.say });
      execute(w, t.speaker, `say ${t.say}`);
      turnsSoFar.push({ speaker: t.speaker, kind: 'say', text: t.say });
    }
    if (t.action) {
      const facts = factsFor(w, t.speaker, historyFor(t.speaker), partners);
      out.push({ episode: ep.id, turn: i, task: 'action', lines: contextLines(facts, 'action'), label: t.action, candidates: validActions(w, t.speaker) });
      const r = execute(w, t.speaker, t.action);
      if (!r.ok) throw new Error(`episode ${ep.id} turn ${i}: "${t.action}" failed: ${r.text}`);
      turnsSoFar.push({ speaker: t.speaker, kind: 'act', text: t.action });
    }
    if (t.emote) {
      const facts = factsFor(w, t.speaker, historyFor(t.speaker), partners);
      out.push({ episode: ep.id, turn: i, task: 'emote', lines: contextLines(facts, 'emote'), label: t.emote, candidates: [...EMOTES] });
      turnsSoFar.push({ speaker: t.speaker, kind: 'emote', text: t.emote });
    }
  });
  return out;
}

const esc = (s: string) => s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n');
const escItem = (s: string) => esc(s).replace(/\|/g, '__PIPE__');

/**
 * ParlAI LIGHT text for one task: one example a line with its full context (episode_done:True on
 * every line, so no accumulation is needed), the gold label and the candidates. Dialogue gets 19
 * distractors drawn from `distractors` (other episodes' utterances).
 */
export function toParlai(examples: Example[], task: ContextTask, distractors: { episode: string; text: string }[], rng: { int(n: number): number }): string {
  const lines: string[] = [];
  for (const ex of examples) {
    if (ex.task !== task) continue;
    let cands: string[];
    if (task === 'speech') {
      const picked = new Set<string>([ex.label]);
      let guard = 0;
      while (picked.size < 20 && guard++ < 1000) {
        const d = distractors[rng.int(distractors.length)]!;
        if (d.episode !== ex.episode) picked.add(d.text);
      }
      cands = [...picked];
      // put the gold label at a random position, so order carries no signal
      cands.shift();
      cands.splice(rng.int(cands.length + 1), 0, ex.label);
    } else cands = ex.candidates ?? [];
    lines.push(`text:${esc(ex.lines.join('\n'))}\tlabels:${escItem(ex.label)}\tlabel_candidates:${cands.map(escItem).join('|')}\tepisode_done:True`);
  }
  return lines.join('\n') + (lines.length ? '\n' : '');
}
