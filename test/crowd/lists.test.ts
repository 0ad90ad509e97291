import { afterEach, describe, expect, it, vi } from 'vitest';
import { crowdCommand } from '../../server/cli/commands/crowd.js';
import { CrowdClient, startCrowdServer } from './helpers.js';
import { makeAdmin } from '../server/helpers.js';

afterEach(() => vi.restoreAllMocks());

describe('allow and block lists', () => {
  it('admits only the workers of a task\'s allow list, keeping only their pseudonyms', async () => {
    const server = await startCrowdServer({ id: 'invited-only', allowWorkers: ['INVITED-1', 'INVITED-2'] });
    try {
      const stranger = await CrowdClient.join(server, 'invited-only', 'STRANGER');
      expect(await stranger.next('closed')).toMatchObject({ message: 'This task is open to invited workers only.' });
      const guest = await CrowdClient.join(server, 'invited-only', 'INVITED-1');
      expect(await guest.next('waiting')).toMatchObject({ position: 1 });
      const db = server.crowd!.store.db;
      const dump = JSON.stringify(db.prepare('SELECT * FROM crowd_tasks').all()) + JSON.stringify(db.prepare('SELECT * FROM crowd_worker_lists').all());
      expect(dump).not.toContain('INVITED');
      expect(dump).toContain(server.crowd!.store.pseudonym('INVITED-2'));
      await guest.close();
      await stranger.close();
    } finally {
      await server.stop();
    }
  });

  it('blocks a worker from a task or from every task, with the CLI or the review API', async () => {
    const server = await startCrowdServer();
    const base = `http://127.0.0.1:${server.httpPort}`;
    const out: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
    try {
      expect(await crowdCommand.run(['block', 'BAD-WORKER', '--task', 'garden-chat', '--reason', 'spam', '--db', server.db])).toBe(0);
      expect(await crowdCommand.run(['blocked', '--db', server.db])).toBe(0);
      expect(out.at(-1)).toMatch(/^w-[0-9a-f]{20}  garden-chat  .*  spam$/);
      const bad = await CrowdClient.join(server, 'garden-chat', 'BAD-WORKER');
      expect(await bad.next('closed')).toMatchObject({ message: expect.stringContaining('no more work') });
      expect(await crowdCommand.run(['unblock', 'BAD-WORKER', '--task', 'garden-chat', '--db', server.db])).toBe(0);
      const back = await CrowdClient.join(server, 'garden-chat', 'BAD-WORKER');
      expect(await back.next('waiting')).toBeTruthy();
      await back.close();

      await makeAdmin(server, 'boss', 'secret-1');
      const login = await fetch(`${base}/crowd/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'boss', password: 'secret-1' }) });
      const { token } = (await login.json()) as { token: string };
      const pseudonym = server.crowd!.store.pseudonym('OTHER');
      const r = await fetch(`${base}/crowd/api/workers/${pseudonym}/block`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ reason: 'rude' }) });
      expect(await r.json()).toMatchObject({ worker: pseudonym, task: '*', blocked: true });
      const other = await CrowdClient.join(server, 'garden-chat', 'OTHER');
      expect(await other.next('closed')).toMatchObject({ message: expect.stringContaining('no more work') });
      const refused = await fetch(`${base}/crowd/api/workers/${pseudonym}/block`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(refused.status).toBe(401);
    } finally {
      await server.stop();
    }
  });

  it('asks new workers the onboarding question once: right, they join the queue; wrong, the task ends for them', async () => {
    const onboarding = { text: 'You will play a character.', question: 'How many lines a turn?', choices: ['one', 'five'], answer: 0 };
    const server = await startCrowdServer({ onboarding });
    try {
      const good = await CrowdClient.join(server, 'garden-chat', 'GOOD');
      expect(await good.next('onboarding')).toMatchObject({ question: 'How many lines a turn?', choices: ['one', 'five'] });
      expect(JSON.stringify(good.frames)).not.toContain('"answer"');
      good.send({ type: 'onboard', choice: 0 });
      expect(await good.next('waiting')).toMatchObject({ position: 1 });
      const bad = await CrowdClient.join(server, 'garden-chat', 'WRONG');
      await bad.next('onboarding');
      bad.send({ type: 'onboard', choice: 1 });
      expect(await bad.next('closed')).toMatchObject({ message: expect.stringContaining('not a fit') });
      await bad.close();
      const again = await CrowdClient.join(server, 'garden-chat', 'WRONG');
      expect(await again.next('closed')).toMatchObject({ message: expect.stringContaining('not a fit') });
      await good.close();
      // Passed once: asked no more.
      const back = await CrowdClient.join(server, 'garden-chat', 'GOOD');
      expect(await back.next('waiting')).toBeTruthy();
      expect(back.frames.some((f) => f.type === 'onboarding')).toBe(false);
      await back.close();
    } finally {
      await server.stop();
    }
  });
});
