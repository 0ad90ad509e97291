/**
 * Conversation quality, as far as rules can see it: the defects a reader of model characters'
 * lines notices first, counted over episodes replayed in the engine (so every claim is checked
 * against the world as it was at that turn).
 *
 *   self_naming     a line names its own speaker ("The goat wants the orchard", said by the goat)
 *   absent_name     a line names someone or something that is neither here nor in the world
 *   own_repeat      a speaker says one of its own earlier lines of the episode again
 *   contradiction   a line claims to have (or not to have) something the graph says otherwise
 *   undone_action   an action undoes the same character's previous action (get X, then drop X)
 *   hostility       hit or steal with no reason in the conversation (the partner hit, robbed or
 *                   threatened first) or the persona
 *   shares_content  (not a defect) a reply shares a content word with the line it answers
 *   plain_line      (not a defect) a stock plain line of unsure.ts ("Is that so?"): passable alone, stilted
 *                   when two characters trade them
 *
 * Used by the conversation bench (bench/conversation.bench.ts) and its tests.
 */
import { execute } from '../engine/index.js';
import type { World } from '../engine/world.js';
import type { Episode } from '../episodes/episode.js';
import { stageEpisode } from '../episodes/stage.js';
import { irWords } from '../../models/runtime/lexical.js';
import { undoes } from '../../models/runtime/hybrid.js';
import type { LineJudge } from './line-judge.js';
import { hostilityAllowed } from './policy.js';
import { isPlainLine } from './unsure.js';
import type { HistoryEntry } from './context.js';

export interface QualityCounts {
  lines: number;
  actions: number;
  replies: number;
  self_naming: number;
  absent_name: number;
  own_repeat: number;
  contradiction: number;
  undone_action: number;
  hostility: number;
  shares_content: number;
  plain_line: number;
}

export interface Flagged {
  episode: string;
  turn: number;
  defect: keyof QualityCounts;
  text: string;
}

export function emptyCounts(): QualityCounts {
  return { lines: 0, actions: 0, replies: 0, self_naming: 0, absent_name: 0, own_repeat: 0, contradiction: 0, undone_action: 0, hostility: 0, shares_content: 0, plain_line: 0 };
}

const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9' ]+/g, ' ').replace(/\s+/g, ' ').trim();

/** Count the defects of one episode into `counts`; returns the flagged turns. */
export function episodeQuality(world: World, ep: Episode, judge: LineJudge, counts: QualityCounts): Flagged[] {
  const w = stageEpisode(world, ep.room, ep.characters);
  const flagged: Flagged[] = [];
  const said = new Map<string, Set<string>>();
  const lastAct = new Map<string, string>();
  const history = new Map<string, HistoryEntry[]>(ep.characters.map((c) => [c, []]));
  const flag = (turn: number, defect: keyof QualityCounts, text: string) => {
    counts[defect]++;
    flagged.push({ episode: ep.id, turn, defect, text });
  };
  ep.turns.forEach((t, i) => {
    const me = w.character(t.speaker);
    const partnerId = ep.characters.find((c) => c !== t.speaker);
    const partner = partnerId ? w.character(partnerId) : undefined;
    if (!me) return;
    if (t.say) {
      counts.lines++;
      const mine = said.get(t.speaker) ?? new Set<string>();
      if (mine.has(norm(t.say))) flag(i, 'own_repeat', t.say);
      if (isPlainLine(t.say)) counts.plain_line++;
      mine.add(norm(t.say));
      said.set(t.speaker, mine);
      const room = w.roomOf(t.speaker)!;
      const objects = w.visibleFrom(t.speaker).flatMap((id) => w.object(id)?.name ?? []);
      const held = objects.length ? w.visibleFrom(t.speaker).filter((id) => w.object(id) && w.holderOf(id) === t.speaker).map((id) => w.object(id)!.name) : [];
      const present = w.charactersIn(room).filter((c) => c.id !== t.speaker && c.id !== partnerId).map((c) => c.name);
      const heard = ep.turns[i - 1]?.speaker !== t.speaker ? ep.turns[i - 1]?.say : undefined;
      const v = judge.judge(t.say, { selfName: me.name, selfPersona: me.persona, partnerName: partner?.name, present, objects, held, said: new Set(), partnerLine: heard });
      if (!v.ok && (v.reason === 'self_naming' || v.reason === 'absent_name' || v.reason === 'contradiction')) flag(i, v.reason, t.say);
      const prev = ep.turns[i - 1];
      if (prev && prev.speaker !== t.speaker && prev.say) {
        counts.replies++;
        const theirs = new Set(irWords(prev.say));
        if (irWords(t.say).some((x) => theirs.has(x))) counts.shares_content++;
      }
      execute(w, t.speaker, `say ${t.say}`);
      for (const c of ep.characters) history.get(c)!.push({ speaker: c === t.speaker ? 'self' : 'partner', kind: 'say', text: t.say });
    }
    if (t.action) {
      counts.actions++;
      const before = lastAct.get(t.speaker);
      if (before && undoes(t.action, before)) flag(i, 'undone_action', t.action);
      if (!hostilityAllowed(history.get(t.speaker)!, me.persona, t.action)) flag(i, 'hostility', t.action);
      lastAct.set(t.speaker, t.action);
      execute(w, t.speaker, t.action);
      for (const c of ep.characters) history.get(c)!.push({ speaker: c === t.speaker ? 'self' : 'partner', kind: 'act', text: t.action });
    }
  });
  return flagged;
}

/** Rates per line (or per action for undone actions and hostility; per reply for shared content). */
export function rates(c: QualityCounts): Record<string, number> {
  const per = (n: number, d: number) => (d ? n / d : 0);
  return {
    self_naming: per(c.self_naming, c.lines),
    absent_name: per(c.absent_name, c.lines),
    own_repeat: per(c.own_repeat, c.lines),
    contradiction: per(c.contradiction, c.lines),
    undone_action: per(c.undone_action, c.actions),
    hostility: per(c.hostility, c.actions),
    shares_content: per(c.shares_content, c.replies),
    plain_line: per(c.plain_line, c.lines),
  };
}
