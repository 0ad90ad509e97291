/**
 * A crowd episode in a room where the world has a model character: the model character leaves the
 * episode's characters alone (LIGHT staged its episodes with nobody else there). The model is the
 * agents tests' tiny real one.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../server/net/server.js';
import { AgentManager, type TurnRecord } from '../../server/agents/manager.js';
import { cleanup, littleWorldTexts, makeAgentModel, tempDir, writeLittleWorld, writeUtterances } from '../agents/helpers.js';
import { CrowdClient, scriptPartner, taskSpec } from './helpers.js';

describe('crowd episodes beside model characters', () => {
  it('are not answered by the model characters of the room, who still answer others', async () => {
    const dir = tempDir();
    const modelDir = makeAgentModel(littleWorldTexts());
    copyFileSync(writeUtterances(dir), join(modelDir, 'utterances.txt'));
    process.env.LIGHTMUD_MODEL = modelDir;
    process.env.LIGHTMUD_AGENT_CACHE = join(dir, 'cache');
    process.env.LIGHTMUD_AGENT_IDLE_SECONDS = '0';
    const world = writeLittleWorld(dir);
    const server = await startServer({ db: join(dir, 'q.db'), world, httpPort: 0, telnetPort: null, host: '127.0.0.1', logger: false, linkdeadMs: 0, crowd: { partner: scriptPartner, tickMs: 100 } });
    const turns: TurnRecord[] = [];
    const agents = await AgentManager.start(server.host, { drive: { gardener: 'model' }, memory: false, onTurn: (t) => turns.push(t) });
    try {
      expect(server.host.driverOf('gardener')?.kind).toBe('model');
      server.crowd!.store.createTask(taskSpec(world, { locations: ['garden'], personas: ['kitty', 'orc'] }));
      const ws = { httpPort: server.httpPort } as Parameters<typeof CrowdClient.join>[0];
      const a = await CrowdClient.join(ws, 'garden-chat', 'q1');
      const b = await CrowdClient.join(ws, 'garden-chat', 'q2');
      await a.next('paired');
      await b.next('paired');
      await a.turn('Hello there, gardener! How are you?');
      await b.turn('Gardener, do you have an apple for me?');
      await a.turn('Good morning to you, gardener.');
      await b.turn('Tell me about your cabbages, gardener.');
      await a.next('end');
      // The control: a line from a character nobody seats is answered. The gardener's turns run one
      // at a time, in order, so once it has answered this one it has taken any turn the episode caused.
      await server.host.submit('kitty', 'say Are you there, gardener?');
      for (let i = 0; i < 400 && !turns.some((t) => t.trigger.text?.includes('Are you there')); i++) await new Promise((r) => setTimeout(r, 50));
      expect(turns.map((t) => t.trigger.text)).toEqual(['Are you there, gardener?']);
      await a.close();
      await b.close();
    } finally {
      await agents.close();
      await server.close();
      cleanup();
    }
  }, 60_000);
});
