import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/helpers.js';

interface StepReply {
  episode?: string;
  observation: string;
  done: boolean;
  admissible_commands: string[];
  infos: { score: number; moves: number; inventory: string[]; max_moves: number; seed: number; character: string; ok: boolean };
}

describe('step API (Gym style) at /api/agent/reset and /api/agent/step', () => {
  let server: TestServer;
  let base: string;
  const post = async (path: string, body: unknown, token?: string): Promise<{ status: number; json: StepReply & { error?: string } }> => {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
    return { status: res.status, json: (await res.json()) as StepReply & { error?: string } };
  };
  beforeAll(async () => {
    server = await startTestServer();
    base = `http://127.0.0.1:${server.httpPort}`;
  });
  afterAll(() => server.stop());

  it('plays a guest episode on a private seeded copy of the world: observation, done, admissible commands, infos', async () => {
    const r = await post('/api/agent/reset', { seed: 3, character: 'kitty', maxMoves: 4 });
    expect(r.status).toBe(200);
    const token = r.json.episode!;
    expect(token).toMatch(/^lme_/);
    expect(r.json).toMatchObject({ done: false, infos: { score: 0, moves: 0, inventory: [], seed: 3, character: 'kitty', max_moves: 4 } });
    expect(r.json.observation).toMatch(/^You are kitty\. I am a kitty\.[\s\S]*Walled Garden/);
    expect(r.json.admissible_commands).toEqual(expect.arrayContaining(['get shovel', 'hug orc', 'go north', 'look', 'inventory']));

    const s1 = await post('/api/agent/step', { command: 'get shovel' }, token);
    expect(s1.json).toMatchObject({ observation: 'You get the shovel.', done: false, infos: { score: 1, moves: 1, inventory: ['shovel'], ok: true } });
    expect(s1.json.admissible_commands).toContain('wield shovel');
    const s2 = await post('/api/agent/step', { command: 'wield shovel' }, token);
    expect(s2.json.infos).toMatchObject({ score: 2, inventory: ['shovel (wielded)'] });
    const s3 = await post('/api/agent/step', { command: 'wear shovel' }, token);
    expect(s3.json.infos).toMatchObject({ score: 2, moves: 3, ok: false });
    expect(s3.json.observation).toMatch(/shovel/);
    const s4 = await post('/api/agent/step', { command: 'remove shovel' }, token);
    expect(s4.json).toMatchObject({ done: true, infos: { score: 3, moves: 4 } });
    const s5 = await post('/api/agent/step', { command: 'drop shovel' }, token);
    expect(s5.json).toMatchObject({ done: true, infos: { moves: 4 } });
    expect(s5.json.observation).toMatch(/episode is over/);

    // The shared world did not change: the shovel still lies in the garden there.
    const state = await server.host.state('kitty');
    expect(state!.objects.map((o) => o.id)).toContain('shovel');
    expect(state!.character.carrying).toEqual([]);

    // Reset in place with the episode token: a fresh copy.
    const again = await post('/api/agent/reset', { seed: 3, character: 'kitty' }, token);
    expect(again.json).toMatchObject({ episode: token, infos: { moves: 0, score: 0, inventory: [] } });
  });

  it('repeats exactly: the same seed and commands give the same replies', async () => {
    const play = async () => {
      const r = await post('/api/agent/reset', { seed: 11 });
      const out = [r.json.observation, r.json.infos.character];
      for (const c of ['look', 'get shovel', 'go north', 'get rake', 'give rake to ghost', 'inventory']) out.push((await post('/api/agent/step', { command: c }, r.json.episode)).json.observation);
      return out;
    };
    const [a, b] = [await play(), await play()];
    expect(a).toEqual(b);
  });

  it('takes an agent key, and refuses what it should', async () => {
    const { key } = server.agentApi.keys.create('stepper');
    const r = await post('/api/agent/reset', { seed: 1, character: 'orc' }, key);
    expect(r.status).toBe(200);
    const s = await post('/api/agent/step', { command: 'hug kitty' }, key);
    expect(s.json).toMatchObject({ observation: 'You hug the kitty.', infos: { character: 'orc', score: 1 } });
    expect((await post('/api/agent/step', { command: 'look' })).status).toBe(401);
    expect((await post('/api/agent/step', { command: 'look' }, 'lme_nope')).status).toBe(404);
    expect((await post('/api/agent/step', { command: 'look' }, 'lmk_wrong')).status).toBe(401);
    expect((await post('/api/agent/step', {}, key)).status).toBe(400);
    expect((await post('/api/agent/reset', { seed: 'x' })).status).toBe(400);
    expect((await post('/api/agent/reset', { character: 'dragon' })).status).toBe(404);
    server.agentApi.keys.revoke('stepper');
    expect((await post('/api/agent/step', { command: 'look' }, key)).status).toBe(401);
  });
});
