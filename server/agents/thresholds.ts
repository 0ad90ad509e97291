/**
 * Tuning when to act, emote or do neither. In the written corpus about 45% of turns carry an
 * action and 30% an emote; a model character should do the same where the context calls for it.
 * For a sample of held-out corpus turns we take the bi-encoder's best action and best emote score
 * (with the turn's utterance in the history, as at decision time) and choose the two thresholds of
 * the three-way decision (action if the best action reaches its threshold, else emote if the best
 * emote reaches its own, else nothing); see chooseThresholds.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execute } from '../engine/index.js';
import type { World } from '../engine/world.js';
import type { Episode } from '../episodes/episode.js';
import { stageEpisode } from '../episodes/stage.js';
import type { HistoryEntry } from './context.js';
import type { Policy, Thresholds } from './policy.js';
import { agentView } from './view.js';

export interface TuneSample {
  action: number;
  emote: number;
  /** What the corpus turn did. */
  label: 'action' | 'emote' | 'none';
}

export interface TuneResult extends Thresholds {
  /** Agreement with the corpus turns at these thresholds, and of always doing nothing. */
  agreement: number;
  baseline: number;
  n: number;
  /** Rates of acting and emoting at these thresholds. */
  actRate: number;
  emoteRate: number;
}

/** Scores of corpus turns: replays episodes (in order) until `limit` turns are collected. */
export async function tuneSamples(policy: Policy, world: World, episodes: Episode[], limit = 600): Promise<TuneSample[]> {
  const out: TuneSample[] = [];
  const batch: { view: NonNullable<ReturnType<typeof agentView>>; history: HistoryEntry[]; label: TuneSample['label'] }[] = [];
  const flush = async () => {
    const ranked = await policy.rankActs(batch);
    ranked.forEach((r, i) => out.push({ action: r.actions.scores[0] ?? -Infinity, emote: r.emotes.scores[0] ?? -Infinity, label: batch[i]!.label }));
    batch.length = 0;
  };
  for (const ep of episodes) {
    if (out.length + batch.length >= limit) break;
    let w: World;
    try {
      w = stageEpisode(world, ep.room, ep.characters);
    } catch {
      continue;
    }
    const turns: { speaker: string; kind: HistoryEntry['kind']; text: string }[] = [];
    const historyFor = (self: string): HistoryEntry[] => turns.map((t) => ({ speaker: t.speaker === self ? 'self' : 'partner', kind: t.kind, text: t.text }));
    for (const t of ep.turns) {
      if (t.say) {
        execute(w, t.speaker, `say ${t.say}`);
        turns.push({ speaker: t.speaker, kind: 'say', text: t.say });
      }
      const view = agentView(w, t.speaker, { partners: ep.characters.filter((c) => c !== t.speaker) });
      if (view && out.length + batch.length < limit) batch.push({ view, history: historyFor(t.speaker), label: t.action ? 'action' : t.emote ? 'emote' : 'none' });
      if (t.action) {
        if (!execute(w, t.speaker, t.action).ok) break;
        turns.push({ speaker: t.speaker, kind: 'act', text: t.action });
      } else if (t.emote) turns.push({ speaker: t.speaker, kind: 'emote', text: t.emote });
      if (batch.length >= 64) await flush();
    }
  }
  if (batch.length) await flush();
  return out;
}

function quantiles(values: number[], steps: number): number[] {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (!sorted.length) return [0];
  const out: number[] = [];
  for (let i = 0; i <= steps; i++) out.push(sorted[Math.min(sorted.length - 1, Math.floor((i / steps) * (sorted.length - 1)))]!);
  out.push(sorted[sorted.length - 1]! + 1e-6);
  return [...new Set(out)];
}

/**
 * The thresholds: the action threshold where the best action's score separates turns that acted
 * from those that did not best (Youden's J: true-positive rate minus false-positive rate); then the
 * emote threshold that makes the character emote, on the turns it does not act, as often as the
 * corpus does on its turns without an action (emote scores carry little signal on their own, so
 * this keeps the corpus's rate rather than chasing noise).
 */
export function chooseThresholds(samples: TuneSample[]): TuneResult {
  const n = samples.length;
  const baseline = n ? samples.filter((s) => s.label === 'none').length / n : 0;
  const pos = samples.filter((s) => s.label === 'action').length;
  const neg = n - pos;
  let ta = 2;
  let bestJ = -Infinity;
  for (const t of quantiles(samples.map((s) => s.action), 100)) {
    let tp = 0;
    let fp = 0;
    for (const s of samples) if (s.action >= t) s.label === 'action' ? tp++ : fp++;
    const j = (pos ? tp / pos : 0) - (neg ? fp / neg : 0);
    if (j > bestJ + 1e-12) {
      bestJ = j;
      ta = t;
    }
  }
  const rest = samples.filter((s) => s.action < ta);
  const corpusEmoteRate = neg ? samples.filter((s) => s.label === 'emote').length / neg : 0;
  const scores = rest.map((s) => s.emote).sort((a, b) => b - a);
  const k = Math.round(corpusEmoteRate * scores.length);
  const te = k <= 0 ? 2 : k >= scores.length ? (scores[scores.length - 1] ?? 2) : (scores[k - 1]! + scores[k]!) / 2;
  let agree = 0;
  let acts = 0;
  let emotes = 0;
  for (const s of samples) {
    const d = s.action >= ta ? 'action' : s.emote >= te ? 'emote' : 'none';
    if (d === s.label) agree++;
    if (d === 'action') acts++;
    else if (d === 'emote') emotes++;
  }
  return { action: ta, emote: te, agreement: n ? agree / n : 0, baseline, n, actRate: n ? acts / n : 0, emoteRate: n ? emotes / n : 0 };
}

/**
 * Tuned thresholds for a model, cached in `cacheDir` by the model's fingerprint and the corpus, so
 * tuning (a few seconds) runs once per model.
 */
export async function tunedThresholds(policy: Policy, world: World, episodes: Episode[], opts: { cacheDir?: string; limit?: number } = {}): Promise<TuneResult> {
  const key = createHash('sha256').update(policy.ranker.biEncoder.fingerprint).update(JSON.stringify(episodes.map((e) => e.id))).update(String(opts.limit ?? 600)).digest('hex').slice(0, 16);
  const file = opts.cacheDir ? join(opts.cacheDir, `agent-thresholds-${key}.json`) : undefined;
  if (file && existsSync(file)) {
    try {
      const r = JSON.parse(readFileSync(file, 'utf8')) as TuneResult;
      if (Number.isFinite(r.action) && Number.isFinite(r.emote)) return r;
    } catch {
      // rebuilt below
    }
  }
  const r = chooseThresholds(await tuneSamples(policy, world, episodes, opts.limit));
  if (file) {
    mkdirSync(opts.cacheDir!, { recursive: true });
    writeFileSync(file, JSON.stringify(r, null, 1));
  }
  return r;
}
