/**
 * Export of reviewed crowd episodes: JSONL (the episode format of server/episodes with setting,
 * personas, objects, and every turn's provenance) and ParlAI's LIGHT text (dialogue, action, emote;
 * the same writer as `lightmud corpus export` and `lightmud episodes --format parlai`).
 * An episode is exported when it reached its last turn and every worker's unit in it is approved;
 * gold scenes (gold.ts) never are.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Rng } from '../engine/rng.js';
import type { World } from '../engine/world.js';
import type { Episode } from '../episodes/episode.js';
import { episodeExamples, toParlai, type Example } from '../episodes/examples.js';
import type { CrowdStore, EpisodeRow, Provenance, UnitRow } from './store.js';

export interface CrowdEpisode extends Episode {
  source: 'crowd';
  task: string;
  setting: EpisodeRow['setup']['setting'];
  personas: EpisodeRow['setup']['personas'];
  objects: EpisodeRow['setup']['objects'];
  /** Per turn, who wrote it: a worker's pseudonym, a model (name and version) or a script. */
  provenance: Provenance[];
  units: { worker: string; character: string; rating: number | null; status: UnitRow['status']; bonus: number | null }[];
  endReason: string | null;
}

/** The approved episodes of a task, in the JSONL form. */
export function approvedEpisodes(store: CrowdStore, task: string): CrowdEpisode[] {
  const units = store.units(task);
  const out: CrowdEpisode[] = [];
  for (const ep of store.episodes(task)) {
    if (ep.status !== 'complete') continue;
    const mine = units.filter((u) => u.episode === ep.id);
    if (!mine.length || !mine.every((u) => u.status === 'approved')) continue;
    // A gold unit's scene is a check of the worker, not data.
    if (mine.some((u) => u.gold)) continue;
    const turns = store.turns(ep.id);
    out.push({
      id: ep.id, room: ep.room, characters: ep.characters, source: 'crowd', task,
      setting: ep.setup.setting, personas: ep.setup.personas, objects: ep.setup.objects,
      turns: turns.map((t) => ({ speaker: t.speaker, say: t.say, ...(t.action ? { action: t.action } : {}), ...(t.emote ? { emote: t.emote } : {}) })),
      provenance: turns.map((t) => t.provenance),
      units: mine.map((u) => ({ worker: u.worker, character: u.character, rating: u.rating, status: u.status, bonus: u.bonus })),
      endReason: ep.endReason,
    });
  }
  return out;
}

export interface ExportReport {
  episodes: number;
  turns: number;
  files: string[];
  /** Episodes left out of the ParlAI files: their actions do not replay on the world file (the live world had changed). */
  skipped: { episode: string; reason: string }[];
}

/** Write DIR/episodes.jsonl and DIR/crowd.{dialogue,action,emote}.txt. */
export function exportTask(store: CrowdStore, task: string, world: World, dir: string, seed = 1): ExportReport {
  mkdirSync(dir, { recursive: true });
  const eps = approvedEpisodes(store, task);
  const jsonl = join(dir, 'episodes.jsonl');
  writeFileSync(jsonl, eps.map((e) => JSON.stringify(e)).join('\n') + (eps.length ? '\n' : ''));
  const examples: Example[] = [];
  const skipped: ExportReport['skipped'] = [];
  for (const ep of eps) {
    try {
      examples.push(...episodeExamples(world, ep));
    } catch (err) {
      skipped.push({ episode: ep.id, reason: (err as Error).message });
    }
  }
  // Distractors: the other episodes' lines (LIGHT drew them from the whole data set).
  const distractors = eps.flatMap((e) => e.turns.filter((t) => t.say).map((t) => ({ episode: e.id, text: t.say })));
  const files = [jsonl];
  for (const [task_, name] of [['speech', 'dialogue'], ['action', 'action'], ['emote', 'emote']] as const) {
    const file = join(dir, `crowd.${name}.txt`);
    writeFileSync(file, toParlai(examples, task_, distractors, new Rng(seed)));
    files.push(file);
  }
  return { episodes: eps.length, turns: eps.reduce((a, e) => a + e.turns.length, 0), files, skipped };
}
