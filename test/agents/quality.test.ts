/** The conversation-quality counts the bench reports, on episodes with known defects. */
import { describe, expect, it } from 'vitest';
import { World } from '../../server/engine/index.js';
import { DEFAULT_WORLD, loadWorld } from '../../server/world-io/load-world.js';
import { LineJudge, PoolLines, worldProperNames } from '../../server/agents/line-judge.js';
import { emptyCounts, episodeQuality, rates } from '../../server/agents/quality.js';
import type { Episode } from '../../server/episodes/episode.js';

const world = new World(loadWorld(DEFAULT_WORLD, { seed: 1 }).state);
const judge = new LineJudge(new PoolLines([], [], world), worldProperNames(world));

describe('conversation quality', () => {
  it('counts each defect a rule can see, and replies that take up the partner\'s words', () => {
    const ep: Episode = {
      id: 'q-1', room: 'town-square', characters: ['town-crier', 'town-pie-seller'],
      turns: [
        { speaker: 'town-crier', say: 'Good morning! Are your pies fresh today?' },
        { speaker: 'town-pie-seller', say: 'Fresh this morning, every pie.' },
        { speaker: 'town-crier', say: 'The town crier needs a pie.', action: 'hit pie seller' },
        { speaker: 'town-pie-seller', say: 'Ow! What was that for?' },
        { speaker: 'town-crier', say: 'Good morning! Are your pies fresh today?', action: 'drop brass handbell' },
        { speaker: 'town-pie-seller', say: "I don't have any wicker basket." },
        { speaker: 'town-crier', say: 'Sorry.', action: 'get brass handbell' },
      ],
    };
    const counts = emptyCounts();
    const flagged = episodeQuality(world, ep, judge, counts);
    expect(flagged.map((f) => `${f.turn}:${f.defect}`).sort()).toEqual(['2:hostility', '2:self_naming', '4:own_repeat', '5:contradiction', '6:undone_action'].sort());
    expect(counts.lines).toBe(7);
    expect(counts.actions).toBe(3);
    const r = rates(counts);
    expect(r.undone_action).toBeCloseTo(1 / 3);
    expect(r.shares_content).toBeGreaterThan(0);
  });
});
