/**
 * Gold units: scenes with one right action, served at the worker's 1st, 3rd, 7th, ... unit, checked,
 * shown against the worker on the review page, and never exported.
 */
import { describe, expect, it } from 'vitest';
import { checkGold, goldDue, goldDueAt, type GoldScene } from '../../server/crowd/gold.js';
import { checkTaskAgainstWorld, TaskError } from '../../server/crowd/task.js';
import { approvedEpisodes } from '../../server/crowd/export.js';
import { CrowdStore } from '../../server/crowd/store.js';
import { openDb } from '../../server/store/db.js';
import { makeAdmin } from '../server/helpers.js';
import { CrowdClient, startCrowdServer, taskSpec } from './helpers.js';

const HUG: GoldScene = { id: 'hug-me', location: 'garden', persona: 'kitty', partner: 'orc', say: 'I am so sad today, would you hug me?', answer: 'hug orc' };

describe('gold units', () => {
  it('are due at the 1st, 3rd, 7th and 15th unit, and a missed one at the next unit', () => {
    expect([0, 1, 2, 3].map(goldDueAt)).toEqual([0, 2, 6, 14]);
    const served: number[] = [];
    let gold = 0;
    for (let unit = 0; unit < 16; unit++) if (goldDue(unit, gold)) served.push(unit), gold++;
    expect(served).toEqual([0, 2, 6, 14]);
    // the 2nd gold could not be cast at unit 2: it is served at unit 3
    expect(goldDue(3, 1)).toBe(true);
    expect(goldDue(1, 1)).toBe(false);
  });

  it('checks the answer: the action or emote, in any case; nothing fails; an answer that could not be done is void', () => {
    expect(checkGold(HUG, { action: 'hug orc' }, true).result).toBe('pass');
    expect(checkGold(HUG, { action: 'Hug  Orc' }, true).result).toBe('pass');
    expect(checkGold(HUG, { action: 'hit orc' }, true)).toEqual({ scene: 'hug-me', answer: 'hug orc', given: 'hit orc', result: 'fail' });
    expect(checkGold(HUG, { emote: 'smile' }, true).result).toBe('fail');
    expect(checkGold(HUG, null, true).result).toBe('fail');
    expect(checkGold(HUG, { action: 'hug orc' }, false).result).toBe('void');
  });

  it('must name rooms and characters of the world, and a partner other than the persona', () => {
    const rooms = new Set(['garden', 'shed']);
    const chars = new Set(['kitty', 'orc']);
    expect(() => checkTaskAgainstWorld(taskSpec('w.json', { personas: ['kitty', 'orc'], gold: [{ ...HUG, location: 'moon' }] }), rooms, chars, 'task.json')).toThrow(/gold\[0\]\.location: "moon" is not a room/);
    expect(() => checkTaskAgainstWorld(taskSpec('w.json', { personas: ['kitty', 'orc'], gold: [{ ...HUG, partner: 'dragon' }] }), rooms, chars, 'task.json')).toThrow(/gold\[0\]\.partner: "dragon" is not a character/);
    expect(() => taskSpec('w.json', { gold: [{ ...HUG, partner: 'kitty' }] })).toThrow(TaskError);
    expect(() => taskSpec('w.json', { gold: [HUG, HUG] })).toThrow(/gold\[1\]\.id: "hug-me" is used twice/);
  });

  it('serves the scene as the worker\'s first and third unit over the real socket, checks it, counts failures against the worker, and never exports it', async () => {
    const server = await startCrowdServer({ modelFallbackSeconds: 0, turns: 4, maxUnitsPerWorker: 3, gold: [HUG] });
    const base = `http://127.0.0.1:${server.httpPort}`;
    try {
      const store = server.crowd!.store;
      const play = async (lines: [string, string | undefined][]) => {
        const c = await CrowdClient.join(server, 'garden-chat', 'worker-1');
        const paired = await c.next('paired');
        for (const [say, act] of lines) expect(await c.turn(say, act)).toMatchObject({ type: 'accepted' });
        await c.next('end');
        c.send({ type: 'form', rating: 4 });
        await c.next('done');
        await c.close();
        return paired;
      };
      // 1st unit: gold. The worker plays the scene's persona, in its room; the partner (a script) asks first.
      const first = await play([['Of course, come here, big friend.', 'hug orc']]);
      expect(first).toMatchObject({ you: { id: 'kitty' }, partner: { id: 'orc', kind: 'script' } });
      const [u1] = store.unitsOf('garden-chat', store.pseudonym('worker-1'));
      expect(u1!.gold).toEqual({ scene: 'hug-me', answer: 'hug orc', given: 'hug orc', result: 'pass' });
      const ep1 = store.turns(u1!.episode);
      expect(ep1.map((t) => [t.speaker, t.say, t.action ?? null])).toEqual([['orc', HUG.say, null], ['kitty', 'Of course, come here, big friend.', 'hug orc']]);
      expect(ep1[0]!.provenance).toEqual({ kind: 'script', script: 'gold:hug-me' });

      // 2nd unit: an ordinary one.
      await play([['Good morning to you, neighbour.', undefined], ['What a lovely day it is here.', undefined]]);
      // 3rd unit: gold again; this time the worker waves instead of the hug.
      await play([['I would rather not, sorry.', 'wave']]);
      const units = store.unitsOf('garden-chat', store.pseudonym('worker-1'));
      expect(units.map((u) => u.gold?.result ?? null)).toEqual(['pass', null, 'fail']);
      expect(units[2]!.gold).toMatchObject({ given: 'wave', result: 'fail' });

      // The review page shows it against the worker.
      await makeAdmin(server, 'boss', 'secret-1');
      const login = await fetch(`${base}/crowd/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'boss', password: 'secret-1' }) });
      const { token } = (await login.json()) as { token: string };
      const detail = (await (await fetch(`${base}/crowd/api/tasks/garden-chat`, { headers: { authorization: `Bearer ${token}` } })).json()) as { workers: { worker: string; gold: unknown }[] };
      expect(detail.workers).toEqual([expect.objectContaining({ worker: store.pseudonym('worker-1'), gold: { passed: 1, failed: 1, void: 0, pending: 0, failedScenes: ['hug-me: gave wave, not hug orc'] } })]);

      // Approved, the gold episodes are still not data: only the ordinary one is exported.
      for (const u of units) store.setUnitStatus(u.id, 'approved');
      expect(approvedEpisodes(store, 'garden-chat').map((e) => e.id)).toEqual([units[1]!.episode]);
    } finally {
      await server.stop();
    }
  });

  it('gives an ordinary unit when the scene\'s room is busy, and the gold one at the next unit', async () => {
    const server = await startCrowdServer({ modelFallbackSeconds: 0, turns: 2, gold: [HUG] });
    try {
      const store = server.crowd!.store;
      // Worker A is in the gold scene (the garden, kitty and orc) and has not answered yet.
      const a = await CrowdClient.join(server, 'garden-chat', 'worker-a');
      expect(await a.next('paired')).toMatchObject({ you: { id: 'kitty' }, partner: { id: 'orc' } });
      await a.next('turn', (f) => f.yours);
      // Worker B's gold is due, but its room is taken: an ordinary unit elsewhere.
      const b = await CrowdClient.join(server, 'garden-chat', 'worker-b');
      const pb = await b.next('paired');
      expect(pb.setting.name).not.toBe((await a.next('state')).room.name);
      await b.turn('Good morning to you, neighbour.');
      await b.next('end');
      b.send({ type: 'form', rating: 3 });
      await b.next('done');
      await b.close();
      expect(store.unitsOf('garden-chat', store.pseudonym('worker-b')).map((u) => u.gold)).toEqual([null]);
      await a.turn('Of course, come here, big friend.', 'hug orc');
      await a.next('end');
      await a.close();
      // B's next unit is the gold one.
      const b2 = await CrowdClient.join(server, 'garden-chat', 'worker-b');
      expect(await b2.next('paired')).toMatchObject({ you: { id: 'kitty' }, partner: { id: 'orc', kind: 'script' } });
      await b2.turn('There there, all will be well.', 'hug orc');
      await b2.next('end');
      await b2.close();
      expect(store.unitsOf('garden-chat', store.pseudonym('worker-b')).map((u) => u.gold?.result ?? null)).toEqual([null, 'pass']);
    } finally {
      await server.stop();
    }
  });

  it('adds the gold column to a database made before gold units, keeping its units', () => {
    const db = openDb(':memory:');
    try {
      db.exec(`CREATE TABLE crowd_units (id TEXT PRIMARY KEY, task TEXT NOT NULL, episode TEXT NOT NULL, worker TEXT NOT NULL, character TEXT NOT NULL,
        partner TEXT NOT NULL, status TEXT NOT NULL, code TEXT, rating INTEGER, report TEXT, feedback TEXT, checks TEXT NOT NULL DEFAULT '[]',
        review TEXT, bonus REAL, created_at INTEGER NOT NULL, completed_at INTEGER, reviewed_at INTEGER)`);
      db.prepare("INSERT INTO crowd_units (id, task, episode, worker, character, partner, status, created_at) VALUES ('u1', 't', 'e', 'w-1', 'kitty', 'script', 'completed', 1)").run();
      const store = new CrowdStore(db);
      expect(store.unit('u1')).toMatchObject({ status: 'completed', gold: null });
      store.setGold('u1', { scene: 's', answer: 'hug orc', given: null, result: 'fail' });
      expect(store.unit('u1')!.gold).toMatchObject({ result: 'fail' });
      expect(() => new CrowdStore(db)).not.toThrow();
    } finally {
      db.close();
    }
  });

  it('is void when its answer cannot be done when it is served', async () => {
    const server = await startCrowdServer({ modelFallbackSeconds: 0, gold: [{ ...HUG, answer: 'get golden crown' }] });
    try {
      const c = await CrowdClient.join(server, 'garden-chat', 'worker-9');
      await c.next('paired');
      await c.turn('Of course, come here, big friend.', 'hug orc');
      await c.next('end');
      await c.close();
      const [u] = server.crowd!.store.unitsOf('garden-chat', server.crowd!.store.pseudonym('worker-9'));
      expect(u!.gold).toMatchObject({ result: 'void', given: 'hug orc' });
    } finally {
      await server.stop();
    }
  });
});
