/**
 * Model-vs-model episodes when one character kills the other: the episode ends at the death (no
 * turn for the dead, no crash), and the episode still replays exactly in the engine.
 */
import { describe, expect, it } from 'vitest';
import { runEpisodes, verifyEpisodes, type ModelEpisode } from '../../server/agents/episodes.js';
import type { Policy, TurnChoice, TurnInput } from '../../server/agents/policy.js';
import { littleWorld } from '../fixtures/little-world.js';

/** A scripted policy: hit the partner whenever that is valid, else say nothing. */
const brawler = {
  async decide(inputs: TurnInput[]): Promise<TurnChoice[]> {
    return inputs.map(({ view }) => {
      const hit = view.partner ? `hit ${view.partner.name.toLowerCase()}` : undefined;
      const actions = hit && view.validActions.includes(hit) ? [hit] : [];
      return { say: '', actions, why: { say: 'model', act: actions.length ? 'model' : 'none' } };
    });
  },
} as unknown as Policy;

describe('episodes with a death', () => {
  it('end at the death, and replay exactly', async () => {
    const world = littleWorld();
    const episodes: ModelEpisode[] = [];
    await runEpisodes(world, brawler, { n: 12, turns: 30, seed: 5, rooms: ['garden'], onEpisode: (ep) => void episodes.push(ep) });
    expect(episodes).toHaveLength(12);
    // six health, two a harming hit, one hit in three harms: thirty turns of hitting kill in each episode
    for (const ep of episodes) {
      expect(ep.turns.length).toBeLessThan(30);
      const last = ep.turns[ep.turns.length - 1]!;
      expect(last.action).toMatch(/^hit /);
    }
    // the rolls come from the world's seed (each staged episode starts from it): the same again
    const again: ModelEpisode[] = [];
    await runEpisodes(littleWorld(), brawler, { n: 12, turns: 30, seed: 5, rooms: ['garden'], onEpisode: (ep) => void again.push(ep) });
    expect(again.map((ep) => ep.turns)).toEqual(episodes.map((ep) => ep.turns));
    expect(verifyEpisodes(world, episodes)).toEqual([]);
  });
});
