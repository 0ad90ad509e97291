import { describe, expect, it } from 'vitest';
import { bundledModelPartner } from '../../server/crowd/partners.js';
import { CrowdClient, startCrowdServer } from './helpers.js';

// The bundled model as the fallback partner (loads the real ranking models: ~10 s on 2 cores).
describe('the bundled model as a partner', () => {
  it('takes the seat of a worker who waited past the fallback, its turns stored with the model name and version', async () => {
    const server = await startCrowdServer({ modelFallbackSeconds: 0, turns: 4 }, { crowd: { partner: bundledModelPartner(), tickMs: 100 } });
    try {
      const a = await CrowdClient.join(server, 'garden-chat', 'solo');
      a.waitMs = 90_000; // the first model turn waits for the model to load
      const p = await a.next('paired');
      expect(p.partner.kind).toBe('model');
      await a.turn('Hello there, do you have anything to eat?');
      expect((await a.next('log', (f) => f.who === 'partner')).model).toBe(true);
      await a.turn('Thank you, that is very kind of you.');
      await a.next('end');
      const [ep] = server.crowd!.store.episodes('garden-chat');
      const turns = server.crowd!.store.turns(ep!.id);
      expect(turns).toHaveLength(4);
      for (const t of [turns[1]!, turns[3]!]) {
        expect(t.provenance).toMatchObject({ kind: 'model', model: 'lightmud:default', version: expect.stringMatching(/^[0-9a-f]{12}$/) });
        expect(t.say || t.action || t.emote).toBeTruthy();
      }
      await a.close();
    } finally {
      await server.stop();
    }
  }, 120_000);
});
