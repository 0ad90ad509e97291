import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { crowdCommand } from '../../server/cli/commands/crowd.js';
import { evalCommand } from '../../server/cli/commands/eval.js';
import { episodesCommand } from '../../server/cli/commands/episodes.js';
import { makeAdmin, tempDir, writeLittleWorld } from '../server/helpers.js';
import { CrowdClient, startCrowdServer, writeTaskFile } from './helpers.js';

const spec = {
  id: 'cli-task', world: 'little-world.json', locations: ['garden'], personas: ['kitty', 'orc'], turns: 2, turnSeconds: 60,
  warningSeconds: 10, reward: '$1', maxConcurrentPairs: 2, maxUnitsPerWorker: 3, modelFallbackSeconds: 0, partnerDrop: 'end_and_credit',
};

function capture(): { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  return { out, err };
}

afterEach(() => vi.restoreAllMocks());

describe('lightmud crowd', () => {
  it('creates, lists, pauses and closes tasks; a bad file or a room not in the world is refused naming the field', async () => {
    const tmp = tempDir();
    try {
      writeLittleWorld(tmp.dir);
      const db = join(tmp.dir, 'crowd.db');
      const io = capture();
      expect(await crowdCommand.run(['create', writeTaskFile(tmp.dir, { ...spec, turnSeconds: 'soon' }), '--db', db])).toBe(1);
      expect(io.err.at(-1)).toMatch(/task\.json: turnSeconds: must be number$/);
      expect(await crowdCommand.run(['create', writeTaskFile(tmp.dir, { ...spec, locations: ['garden', 'moon'] }), '--db', db])).toBe(1);
      expect(io.err.at(-1)).toMatch(/task\.json: locations\[1\]: "moon" is not a room of the world/);
      expect(await crowdCommand.run(['create', writeTaskFile(tmp.dir, spec), '--db', db])).toBe(0);
      expect(io.out.join('\n')).toContain('created task cli-task');
      await expect(crowdCommand.run(['create', writeTaskFile(tmp.dir, spec), '--db', db])).rejects.toThrow(/exists already/);
      expect(await crowdCommand.run(['pause', 'cli-task', '--db', db])).toBe(0);
      expect(await crowdCommand.run(['list', '--db', db])).toBe(0);
      expect(io.out.at(-1)).toMatch(/^cli-task\s+paused\s+units: 0/);
      expect(await crowdCommand.run(['close', 'cli-task', '--db', db])).toBe(0);
      expect(await crowdCommand.run(['close', 'nope', '--db', db])).toBe(1);
      expect(io.err.at(-1)).toMatch(/no task "nope"/);
    } finally {
      tmp.cleanup();
    }
  });
});

async function api(base: string, path: string, opts: { token?: string; body?: unknown } = {}): Promise<{ status: number; json: any; text: string }> {
  const res = await fetch(base + path, {
    method: opts.body === undefined ? 'GET' : 'POST',
    headers: { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(opts.body === undefined ? {} : { body: JSON.stringify(opts.body) }),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, json, text };
}

describe('review and export', () => {
  it('lets only an admin review units, and exports approved episodes with provenance as JSONL and ParlAI text', async () => {
    const server = await startCrowdServer({ modelFallbackSeconds: 0, turns: 4 });
    const base = `http://127.0.0.1:${server.httpPort}`;
    try {
      await makeAdmin(server, 'boss', 'secret-1');
      await server.accounts.register('pleb', 'secret-2');
      // two episodes, each a worker with the scripted partner
      for (const w of ['worker-1', 'worker-2']) {
        const c = await CrowdClient.join(server, 'garden-chat', w);
        await c.next('paired');
        await c.turn('Good morning to you, neighbour.');
        await c.turn('What a lovely day it is here.');
        await c.next('end');
        c.send({ type: 'form', rating: 4, report: w === 'worker-2' ? 'the partner repeated itself' : undefined });
        await c.next('done');
        await c.close();
      }
      expect((await api(base, '/crowd/api/tasks')).status).toBe(401);
      expect((await api(base, '/crowd/api/login', { body: { name: 'pleb', password: 'secret-2' } })).status).toBe(403);
      expect((await api(base, '/crowd/api/login', { body: { name: 'boss', password: 'wrong' } })).status).toBe(401);
      const { token } = (await api(base, '/crowd/api/login', { body: { name: 'boss', password: 'secret-1' } })).json as { token: string };
      const tasks = await api(base, '/crowd/api/tasks', { token });
      expect(tasks.json.tasks).toEqual([expect.objectContaining({ id: 'garden-chat', units: 2, byStatus: { completed: 2 } })]);
      const detail = (await api(base, '/crowd/api/tasks/garden-chat', { token })).json;
      expect(detail.episodes).toHaveLength(2);
      expect(detail.episodes[0].turns).toHaveLength(4);
      expect(detail.episodes.flatMap((e: any) => e.units.map((u: any) => u.report))).toContain('the partner repeated itself');
      expect(detail.workers).toHaveLength(2);
      const [u1, u2] = detail.episodes.map((e: any) => e.units[0].id);
      expect((await api(base, `/crowd/api/units/${u1}/review`, { token, body: { status: 'approved', feedback: 'Nice work', bonus: 0.5 } })).json).toMatchObject({ status: 'approved', review: 'Nice work', bonus: 0.5 });
      expect((await api(base, `/crowd/api/units/${u2}/review`, { token, body: { status: 'soft_rejected', feedback: 'Too short' } })).json).toMatchObject({ status: 'soft_rejected' });
      expect((await api(base, `/crowd/api/units/${u2}/review`, { token, body: { status: 'paid' } })).status).toBe(400);

      const jsonl = await api(base, '/crowd/api/tasks/garden-chat/export?format=jsonl', { token });
      const lines = jsonl.text.trim().split('\n').map((l) => JSON.parse(l));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ source: 'crowd', task: 'garden-chat', turns: expect.any(Array), provenance: [{ kind: 'human' }, { kind: 'script', script: 'test-script' }, { kind: 'human' }, { kind: 'script' }] });
      expect(lines[0].units[0]).toMatchObject({ status: 'approved', rating: 4, bonus: 0.5 });
      const dialogue = await api(base, '/crowd/api/tasks/garden-chat/export?format=dialogue', { token });
      expect(dialogue.text.trim().split('\n')).toHaveLength(4);
      expect(dialogue.text).toContain('labels:Good morning to you, neighbour.');
      expect(dialogue.text).toContain('_self_persona');

      // The CLI writes the same, from the same database.
      const out = join(server.dir, 'export');
      const io = capture();
      expect(await crowdCommand.run(['export', 'garden-chat', '--out', out, '--db', server.db])).toBe(0);
      expect(io.out.at(-1)).toMatch(/exported 1 approved episodes \(4 turns\)/);
      expect(readFileSync(join(out, 'episodes.jsonl'), 'utf8')).toBe(jsonl.text);
      for (const f of ['crowd.dialogue.txt', 'crowd.action.txt', 'crowd.emote.txt']) expect(existsSync(join(out, f))).toBe(true);
      expect(readFileSync(join(out, 'crowd.emote.txt'), 'utf8')).toContain('labels:wave');
      // What was exported is what the project's tools read: eval scores it, the engine replays it.
      expect(await evalCommand.run(['--task', 'dialogue', '--data', join(out, 'crowd.dialogue.txt'), '--baseline', 'ir'])).toBe(0);
      expect(io.out.at(-1)).toMatch(/"n":4/);
      expect(await episodesCommand.run(['--verify', join(out, 'episodes.jsonl'), '--world', server.world])).toBe(0);
      expect(io.out.at(-1)).toMatch(/verified 1 episodes \(4 turns, \d+ actions\) against .*: 0 mismatches, 0 malformed lines/);
      // The soft-rejected worker (the first episode's: the list is newest first) gets no more units.
      expect(detail.episodes[1].units[0].worker).toBe(server.crowd!.store.pseudonym('worker-1'));
      const again = await CrowdClient.join(server, 'garden-chat', 'worker-1');
      expect(await again.next('closed')).toMatchObject({ message: expect.stringContaining('no more work') });
      await again.close();
    } finally {
      await server.stop();
    }
  });
});
