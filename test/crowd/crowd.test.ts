import { describe, expect, it } from 'vitest';
import { CrowdClient, startCrowdServer } from './helpers.js';

describe('crowd room over real sockets', () => {
  it('pairs two workers, alternates turns with one utterance and one action or emote each, stores provenance, asks for the end form and gives a code', async () => {
    const server = await startCrowdServer();
    try {
      const a = await CrowdClient.join(server, 'garden-chat', 'PLATFORM-A');
      expect(await a.next('waiting')).toMatchObject({ position: 1 });
      const b = await CrowdClient.join(server, 'garden-chat', 'PLATFORM-B');
      const pa = await a.next('paired');
      const pb = await b.next('paired');
      expect(pa.partner).toMatchObject({ id: pb.you.id, kind: 'human' });
      expect(pa.you.persona).not.toBe('');
      expect(['garden', 'shed']).toContain((await a.next('state')).room.id);

      // a starts (first to arrive). A line the checks refuse changes nothing.
      expect(await a.turn('hi')).toMatchObject({ type: 'refused', problems: [expect.stringContaining('at least 3 words')] });
      const sa = a.frames.filter((f) => f.type === 'state').at(-1) as { validActions: string[] } | undefined;
      const action = sa?.validActions.find((x) => x.startsWith('hug')) ?? sa!.validActions[0]!;
      expect(await a.turn('Hello friend, how are you today?', action)).toMatchObject({ type: 'accepted' });
      expect((await b.next('log', (f) => f.who === 'partner' && f.text.includes('Hello friend'))).text).toContain('says');
      expect(await b.turn('I AM VERY ANGRY TODAY')).toMatchObject({ type: 'refused', problems: [expect.stringContaining('capital')] });
      expect(await b.turn('I am well, thank you kindly.', 'smile')).toMatchObject({ type: 'accepted' });
      expect(await a.turn('Hello friend, how are you today?')).toMatchObject({ type: 'refused', problems: [expect.stringContaining('said that already')] });
      expect(await a.turn('Shall we walk in the garden?', 'fly to the moon')).toMatchObject({ type: 'refused', problems: [expect.stringContaining('not something you can do')] });
      expect(await a.turn('Shall we walk in the garden?')).toMatchObject({ type: 'accepted' });
      expect(await b.turn('Yes, let us go there now.', 'nod')).toMatchObject({ type: 'accepted' });

      expect(await a.next('end')).toMatchObject({ reason: expect.stringContaining('complete') });
      await b.next('end');
      a.send({ type: 'form', rating: 5, feedback: 'fun' });
      b.send({ type: 'form', rating: 4, report: 'nothing wrong really' });
      const codeA = (await a.next('done')).code;
      const codeB = (await b.next('done')).code;
      expect(codeA).toMatch(/^[A-Z0-9]{10}$/);
      expect(codeB).not.toBe(codeA);

      const store = server.crowd!.store;
      const [ep] = store.episodes('garden-chat');
      expect(ep).toMatchObject({ status: 'complete' });
      const turns = store.turns(ep!.id);
      expect(turns).toHaveLength(4);
      expect(turns.map((t) => t.speaker)).toEqual([pa.you.id, pb.you.id, pa.you.id, pb.you.id]);
      expect(turns[0]).toMatchObject({ say: 'Hello friend, how are you today?', action });
      expect(turns[1]).toMatchObject({ emote: 'smile' });
      expect(turns.every((t) => t.provenance.kind === 'human')).toBe(true);
      const pseudonyms = new Set(turns.map((t) => (t.provenance as { worker: string }).worker));
      expect(pseudonyms.size).toBe(2);
      for (const p of pseudonyms) expect(p).toMatch(/^w-[0-9a-f]{20}$/);
      // The platform ids are nowhere in the database.
      const dump = JSON.stringify(server.crowd!.store.db.prepare('SELECT * FROM crowd_units').all()) + JSON.stringify(server.crowd!.store.db.prepare('SELECT * FROM crowd_turns').all());
      expect(dump).not.toContain('PLATFORM-A');
      const units = store.units('garden-chat');
      expect(units.map((u) => u.status)).toEqual(['completed', 'completed']);
      expect(units.find((u) => u.code === codeA)).toMatchObject({ rating: 5, feedback: 'fun' });
      const unitA = units.find((u) => u.code === codeA)!;
      expect(unitA.checks.map((c) => c.problems[0])).toEqual([expect.stringContaining('3 words'), expect.stringContaining('said that already'), expect.stringContaining('not something')]);
      await a.close();
      await b.close();
    } finally {
      await server.stop();
    }
  });

  it('pairs a worker who waited past the fallback with a model character, marked as such, with the model provenance', async () => {
    const server = await startCrowdServer({ modelFallbackSeconds: 0.3 });
    try {
      const a = await CrowdClient.join(server, 'garden-chat', 'solo-worker');
      await a.next('waiting');
      const p = await a.next('paired');
      expect(p.partner.kind).toBe('script');
      const state = await a.next('state');
      expect(state.people.find((x) => x.id === p.partner.id)).toMatchObject({ driver: 'script', player: false });
      await a.turn('Good morning to you, neighbour.');
      expect((await a.next('log', (f) => f.who === 'partner' && f.text.includes('Hello there'))).model).toBe(true);
      await a.turn('Who are you and what do you do?');
      await a.next('end');
      const [ep] = server.crowd!.store.episodes('garden-chat');
      const turns = server.crowd!.store.turns(ep!.id);
      expect(turns.map((t) => t.provenance.kind)).toEqual(['human', 'script', 'human', 'script']);
      expect(turns[1]).toMatchObject({ say: 'Hello there, who are you?', emote: 'wave', provenance: { kind: 'script', script: 'test-script' } });
      await a.close();
    } finally {
      await server.stop();
    }
  });

  it('tells the partner when a worker drops, then replaces them with a model character after the drop time', async () => {
    const server = await startCrowdServer({ partnerDropSeconds: 0.5 });
    try {
      const a = await CrowdClient.join(server, 'garden-chat', 'stays');
      const b = await CrowdClient.join(server, 'garden-chat', 'leaves');
      await a.next('paired');
      await b.next('paired');
      await a.turn('Hello friend, how are you today?');
      await b.close();
      expect(await a.next('partner', (f) => f.status === 'away')).toMatchObject({ message: expect.stringContaining('0.5 seconds') });
      expect(await a.next('partner', (f) => f.status === 'replaced')).toBeTruthy();
      // The model (here: the script) takes the dropped worker's turn.
      expect((await a.next('log', (f) => f.who === 'partner')).model).toBe(true);
      await a.turn('Oh, you seem different now.');
      await a.next('end');
      const units = server.crowd!.store.units('garden-chat');
      expect(units.map((u) => [u.status, u.partner]).sort()).toEqual([['completed', 'human'], ['returned', 'human']]);
      await a.close();
    } finally {
      await server.stop();
    }
  });

  it('lets a worker come back within the drop time and carry on, and ends and credits both when the task says so', async () => {
    const server = await startCrowdServer({ partnerDropSeconds: 0.5, partnerDrop: 'end_and_credit' });
    try {
      const a = await CrowdClient.join(server, 'garden-chat', 'w1');
      const b = await CrowdClient.join(server, 'garden-chat', 'w2');
      const pa = await a.next('paired');
      await b.next('paired');
      expect(await a.turn('Hello friend, how are you today?', 'smile')).toMatchObject({ type: 'accepted' });
      expect(await b.turn('Very well, thank you for asking.')).toMatchObject({ type: 'accepted' });
      await a.close();
      await b.next('partner', (f) => f.status === 'away');
      const a2 = await CrowdClient.join(server, 'garden-chat', 'w1');
      expect((await a2.next('paired')).episode).toBe(pa.episode);
      // The conversation so far comes back with the pairing.
      expect((await a2.next('log', (f) => f.who === 'you')).text).toBe('You: "Hello friend, how are you today?" (smile)');
      expect((await a2.next('log', (f) => f.who === 'partner')).text).toBe(`${pa.partner.name}: "Very well, thank you for asking."`);
      await b.next('partner', (f) => f.status === 'back');
      expect(await a2.turn('I am back again, sorry about that.')).toMatchObject({ type: 'accepted' });
      await a2.close();
      expect(await b.next('partner', (f) => f.status === 'gone')).toBeTruthy();
      await b.next('end');
      b.send({ type: 'form', rating: 2, report: 'partner left' });
      await b.next('done');
      const units = server.crowd!.store.units('garden-chat');
      expect(units.map((u) => u.status)).toEqual(['completed', 'completed']);
      expect(server.crowd!.store.episodes('garden-chat')[0]).toMatchObject({ status: 'ended' });
      await b.close();
    } finally {
      await server.stop();
    }
  });

  it('refuses workers of a paused task and workers past their unit limit', async () => {
    const server = await startCrowdServer({ maxUnitsPerWorker: 1, modelFallbackSeconds: 0 });
    try {
      const a = await CrowdClient.join(server, 'garden-chat', 'once');
      await a.next('paired');
      await a.turn('Hello friend, how are you today?');
      await a.turn('That is good to hear, friend.');
      await a.next('end');
      a.send({ type: 'form', rating: 3 });
      await a.next('done');
      await a.close();
      const again = await CrowdClient.join(server, 'garden-chat', 'once');
      expect(await again.next('closed')).toMatchObject({ message: expect.stringContaining('most units') });
      server.crowd!.store.setTaskStatus('garden-chat', 'paused');
      const other = await CrowdClient.join(server, 'garden-chat', 'new');
      expect(await other.next('closed')).toMatchObject({ message: expect.stringContaining('paused') });
      const none = await CrowdClient.join(server, 'no-such-task', 'x');
      expect(await none.next('closed')).toMatchObject({ message: expect.stringContaining('no task') });
    } finally {
      await server.stop();
    }
  });

  it('warns a worker before the turn ends, passes the turn when time is up, and lets a worker go after two missed turns', async () => {
    const server = await startCrowdServer({ modelFallbackSeconds: 0, turnSeconds: 0.6, warningSeconds: 0.4 });
    try {
      const a = await CrowdClient.join(server, 'garden-chat', 'slow');
      await a.next('paired');
      expect(await a.next('turn')).toMatchObject({ yours: true, turn: 1, of: 4 });
      expect(await a.next('warning')).toBeTruthy();
      expect(await a.next('log', (f) => f.text.includes('ran out of time'))).toBeTruthy();
      // The partner takes the turn that passed; then it is the worker's again, and it runs out again.
      expect(await a.next('log', (f) => f.who === 'partner' && f.text.includes('Hello there'))).toBeTruthy();
      expect(await a.next('closed')).toMatchObject({ message: expect.stringContaining('The episode ended') });
      const [unit] = server.crowd!.store.units('garden-chat');
      expect(unit).toMatchObject({ status: 'returned' });
      expect(unit!.checks.map((c) => c.problems[0])).toEqual(['turn timed out', 'turn timed out']);
      await a.close();
    } finally {
      await server.stop();
    }
  });

  it('counts crowd connections against the server\'s limits and drops frames beyond the rate', async () => {
    const server = await startCrowdServer({}, { maxConnectionsPerIp: 1, commandsPerSecond: 1, commandBurst: 5 });
    try {
      const a = await CrowdClient.join(server, 'garden-chat', 'first');
      await a.next('waiting');
      const b = await CrowdClient.join(server, 'garden-chat', 'second');
      expect(await b.next('closed')).toMatchObject({ message: expect.stringContaining('Too many connections from your address') });
      for (let i = 0; i < 10; i++) a.send({ type: 'ping' });
      expect(await a.next('error')).toMatchObject({ message: expect.stringContaining('Too many messages') });
      await a.close();
    } finally {
      await server.stop();
    }
  });
});
