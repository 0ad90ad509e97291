/** The written episode corpus: big enough, every action executes, no copies, splits as LIGHT's. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { World } from '../../server/engine/index.js';
import { checkCorpus } from '../../server/episodes/corpus-check.js';
import { readEpisodeFiles } from '../../server/episodes/read.js';
import { DEFAULT_WORLD, loadWorld } from '../../server/world-io/load-world.js';
import { splitOf, type SplitConfig } from '../../models/training/dataset.js';

const DATA = new URL('../../world-data/episodes/', import.meta.url).pathname;

describe('the written episode corpus', () => {
  const world = new World(loadWorld(DEFAULT_WORLD).state);
  const { episodes, errors } = readEpisodeFiles(DATA);

  it('has at least 600 episodes of at least 8 turns, and every one replays in the engine without a problem', () => {
    expect(errors).toEqual([]);
    expect(episodes.length).toBeGreaterThanOrEqual(600);
    const report = checkCorpus(world, episodes, { minTurns: 8 });
    expect(report.problems.slice(0, 10)).toEqual([]);
    expect(report.withAction / report.turns).toBeGreaterThan(0.3);
    expect(report.withEmote / report.turns).toBeGreaterThan(0.2);
    expect(report.rooms).toBe(world.rooms().length);
  }, 120_000);

  it('splits by location: the unseen test categories never appear in train or valid', () => {
    const cfg = JSON.parse(readFileSync(DATA + 'splits.json', 'utf8')) as SplitConfig;
    const unseen = new Set(cfg.unseen_categories.map((c) => c.toLowerCase()));
    const counts: Record<string, number> = {};
    for (const ep of episodes) {
      const split = splitOf(ep, world, cfg);
      counts[split] = (counts[split] ?? 0) + 1;
      const category = world.room(ep.room)!.category.toLowerCase();
      expect(split === 'test_unseen', ep.id).toBe(unseen.has(category));
    }
    for (const s of ['train', 'valid', 'test_seen', 'test_unseen']) expect(counts[s], s).toBeGreaterThan(40);
  });
});
