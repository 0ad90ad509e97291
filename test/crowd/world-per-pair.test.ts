/** A task whose pairs each get a world of their own (worldPerPair) needs a portal with --on-demand: elsewhere a worker is told why, not paired. */
import { describe, expect, it } from 'vitest';
import { pairWorldName } from '../../server/crowd/room.js';
import { CrowdClient, startCrowdServer } from './helpers.js';

describe('a world per pair', () => {
  it('is refused, saying why, on a server that cannot make worlds', async () => {
    const server = await startCrowdServer({ worldPerPair: true });
    try {
      const a = await CrowdClient.join(server, 'garden-chat', 'PLATFORM-A');
      expect((await a.next('closed')).message).toContain('needs to be a portal started with --on-demand');
      expect(server.crowd!.store.episodes('garden-chat')).toEqual([]);
      await a.close();
    } finally {
      await server.stop();
    }
  });

  it('names each episode\'s world in the letters a world name may have', () => {
    expect(pairWorldName('garden-chat-lz3k9-1')).toBe('garden-chat-lz3k9-1');
    expect(pairWorldName('tâche.un-lz3k9-2')).toBe('t_che_un-lz3k9-2');
    expect(pairWorldName('_x-1')).toBe('wx-1');
    const long = pairWorldName(`${'a'.repeat(80)}-lz3k9-3`);
    expect(long.length).toBeLessThanOrEqual(64);
    expect(long.endsWith('-lz3k9-3')).toBe(true);
  });
});
