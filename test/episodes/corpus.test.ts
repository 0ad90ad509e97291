/** The written episode corpus: big enough, in the bundled world and beyond it, every action executes, no copies, splits as LIGHT's. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { World } from '../../server/engine/index.js';
import { CorpusCheck } from '../../server/episodes/corpus-check.js';
import { readEpisodeFiles } from '../../server/episodes/read.js';
import { CORPUS_WORLD, DEFAULT_WORLD, loadWorld } from '../../server/world-io/load-world.js';
import { splitOf, type SplitConfig } from '../../server/episodes/splits.js';

const DATA = new URL('../../world-data/episodes/', import.meta.url).pathname;

describe('the written episode corpus', () => {
  const world = new World(loadWorld(CORPUS_WORLD).state);
  const bundled = new World(loadWorld(DEFAULT_WORLD).state);
  const { episodes, errors } = readEpisodeFiles(DATA);

  it('has at least 3,000 episodes and 36,000 turns, and every one replays in the engine without a problem', async () => {
    expect(errors).toEqual([]);
    expect(episodes.length).toBeGreaterThanOrEqual(3000);
    // A minute of replay: yield between slices, so the test process can answer vitest's runner (which gives up on
    // a process silent for 60 s, though the test passes).
    const check = new CorpusCheck(world, { minTurns: 8 });
    for (let i = 0; i < episodes.length; i++) {
      check.add(episodes[i]!);
      if (i % 100 === 99) await new Promise((r) => setImmediate(r));
    }
    const report = check.report();
    expect(report.problems.slice(0, 10)).toEqual([]);
    expect(report.turns).toBeGreaterThanOrEqual(36_000);
    // the plain-voice settings and the "ask" episodes (people getting to know each other) talk more and act
    // less than the first corpus did: 19% of turns with an action after the second round of "ask" episodes
    expect(report.withAction / report.turns).toBeGreaterThan(0.15);
    expect(report.withEmote / report.turns).toBeGreaterThan(0.2);
  }, 240_000);

  it('is set in every room of the bundled world and in at least 150 corpus-only settings', () => {
    const rooms = new Set(episodes.map((e) => e.room));
    for (const r of bundled.rooms()) expect(rooms.has(r.id), r.id).toBe(true);
    expect([...rooms].filter((r) => !bundled.room(r)).length).toBeGreaterThanOrEqual(150);
  });

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
