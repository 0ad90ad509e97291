/**
 * Which split an episode of the written corpus belongs to (world-data/episodes/splits.json):
 * episodes in rooms of the unseen categories are test_unseen (LIGHT's unseen test); the rest are
 * split by a hash of the episode id. Used by training, export and the agents' threshold tuning.
 */
import type { World } from '../engine/world.js';
import type { Episode } from './episode.js';

export type Split = 'train' | 'valid' | 'test_seen' | 'test_unseen';

export interface SplitConfig {
  unseen_categories: string[];
  valid_percent: number;
  test_seen_percent: number;
}

/** FNV-1a, for a split that depends only on the episode id. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

export function splitOf(ep: Episode, world: World, cfg: SplitConfig): Split {
  const category = world.room(ep.room)?.category.toLowerCase() ?? '';
  if (cfg.unseen_categories.some((c) => c.toLowerCase() === category)) return 'test_unseen';
  const bucket = hash(ep.id) % 100;
  if (bucket < cfg.valid_percent) return 'valid';
  if (bucket < cfg.valid_percent + cfg.test_seen_percent) return 'test_seen';
  return 'train';
}

