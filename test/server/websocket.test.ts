import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeAdmin, startTestServer, WsClient, type TestServer } from './helpers.js';
import type { ErrorFrame, StateFrame } from '../../server/net/protocol.js';
import { runAgent } from '../../clients/agent-example.js';

describe('websocket play', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ linkdeadMs: 60_000 });
    await makeAdmin(server, 'root', 'root password');
  });
  afterAll(() => server.stop());

  it('greets, lists free characters, and plays a guest with state frames', async () => {
    const c = await WsClient.open(server.wsUrl);
    const hello = await c.nextOfType('hello');
    expect(hello).toMatchObject({ protocol: 1, world: { title: 'Little world' } });
    c.send({ type: 'login', guest: true });
    const list = await c.nextOfType('characters');
    expect(list.characters.map((x) => x.name)).toEqual(expect.arrayContaining(['kitty', 'orc', 'gardener']));
    c.send({ type: 'choose', character: 'kitty' });
    const welcome = await c.nextOfType('welcome');
    expect(welcome).toMatchObject({ character: { id: 'kitty', name: 'kitty' }, account: null, resumed: false });
    expect(welcome.token).toMatch(/^[\w-]{21}$/);
    const look = await c.next((f) => f.type === 'observation' && f.kind === 'look');
    expect(look).toMatchObject({ text: expect.stringContaining('Walled Garden') });
    const state = await c.nextOfType('state');
    expect(state.room).toMatchObject({ id: 'garden', name: 'Walled Garden', exits: [{ label: 'north', to: 'shed', name: 'Tool Shed' }] });
    expect(state.character).toMatchObject({ id: 'kitty', carrying: [] });
    expect(state.people.map((p) => p.id).sort()).toEqual(['gardener', 'orc']);
    expect(state.objects.map((o) => o.id)).toEqual(expect.arrayContaining(['shovel', 'chest', 'coin']));
    expect(state.validActions).toEqual(expect.arrayContaining(['get shovel', 'hug orc']));

    const { result, state: after } = await c.command('get shovel');
    expect(result).toMatchObject({ kind: 'result', ok: true, text: 'You get the shovel.' });
    expect(result.seq).toBeGreaterThan(0);
    expect(after.character.carrying).toEqual([{ id: 'shovel', name: 'shovel' }]);
    expect(after.validActions).toEqual(expect.arrayContaining(['drop shovel', 'wield shovel']));

    const failed = await c.command('eat the boulder');
    expect(failed.result.ok).toBe(false);
    await c.command('drop shovel');
    await c.close();
  });

  it('sends others a fresh state when the world changes around them, not for speech', async () => {
    const a = await WsClient.open(server.wsUrl);
    await a.guest('kitty');
    const b = await WsClient.open(server.wsUrl);
    const before = await b.guest('gardener');
    expect(before.validActions).toContain('get shovel');
    await a.command('say mine now');
    const said = await b.event('says, "mine now"');
    await a.command('get shovel');
    const got = await b.event('The kitty gets a shovel.');
    // Nothing changed for b with the speech: no state between the two events.
    const between = b.frames.slice(b.frames.indexOf(said), b.frames.indexOf(got));
    expect(between.filter((f) => f.type === 'state')).toEqual([]);
    const after = await b.nextOfType('state');
    expect(after.validActions).not.toContain('get shovel');
    expect(after.objects).toContainEqual({ id: 'shovel', name: 'shovel', parent: 'kitty', rel: 'carried' });
    await a.command('drop shovel');
    await b.event('The kitty drops a shovel.');
    expect((await b.nextOfType('state')).validActions).toContain('get shovel');
    await Promise.all([a.close(), b.close()]);
  });

  it('answers malformed frames with typed errors and keeps the connection', async () => {
    const c = await WsClient.open(server.wsUrl);
    await c.nextOfType('hello');
    const err = () => c.nextOfType('error');
    c.raw('this is not json');
    expect((await err()).code).toBe('bad_json');
    c.raw('\u0000\u0001{{{ \ufffd');
    expect((await err()).code).toBe('bad_json');
    c.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    expect((await err()).code).toBe('bad_frame');
    c.send({ type: 'teleport-me', id: 7 });
    expect(await err()).toMatchObject({ code: 'unknown_type', id: 7 });
    c.raw('[1,2,3]');
    expect((await err()).code).toBe('bad_frame');
    c.send({ type: 'command', id: 'x' });
    expect(await err()).toMatchObject({ code: 'bad_frame', id: 'x' });
    c.send({ type: 'login', name: 42 });
    expect((await err()).code).toBe('bad_frame');
    c.send({ type: 'command', text: 'look', id: 'early' });
    expect(await err()).toMatchObject({ code: 'not_logged_in', id: 'early' });
    c.send({ type: 'login', guest: true, character: 'nobody-at-all' });
    expect((await err()).code).toBe('no_such_character');
    c.send({ type: 'ping', id: 'p' });
    expect(await c.nextOfType('pong')).toMatchObject({ id: 'p' });

    // Still usable.
    c.send({ type: 'login', guest: true, character: 'orc' });
    await c.nextOfType('welcome');
    c.send({ type: 'command', text: 'x'.repeat(1001), id: 'long' });
    expect(await err()).toMatchObject({ code: 'too_long', id: 'long' });
    c.send({ type: 'login', guest: true, character: 'kitty' });
    expect((await err()).code).toBe('already_logged_in');
    const { result: look } = await c.command('look');
    expect(look.text).toContain('Walled Garden');
    await c.close();
  });

  it('refuses a frame over the size limit by closing that connection only', async () => {
    const other = await WsClient.open(server.wsUrl);
    await other.guest('carter');
    const c = await WsClient.open(server.wsUrl);
    await c.nextOfType('hello');
    c.send({ type: 'command', text: 'x'.repeat(1024 * 1024) });
    const closed = await c.waitClosed();
    expect(closed.code).toBe(1009);
    const { result } = await other.command('look');
    expect(result.text).toContain('Muddy Road');
    await other.close();
  });

  it('gives a character to one connection at a time', async () => {
    const a = await WsClient.open(server.wsUrl);
    await a.guest('ghost');
    const b = await WsClient.open(server.wsUrl);
    await b.nextOfType('hello');
    b.send({ type: 'login', guest: true, character: 'ghost' });
    expect(await b.nextOfType('error')).toMatchObject({ code: 'character_taken' });
    b.send({ type: 'login', guest: true });
    const list = await b.nextOfType('characters');
    expect(list.characters.map((x) => x.id)).not.toContain('ghost');
    await Promise.all([a.close(), b.close()]);
  });

  it('registers accounts with hashed passwords, logs in, and resumes by token', async () => {
    const a = await WsClient.open(server.wsUrl);
    await a.nextOfType('hello');
    a.send({ type: 'register', name: 'alice', password: 'pw' });
    expect(await a.nextOfType('error')).toMatchObject({ code: 'bad_name' });
    a.send({ type: 'register', name: 'alice', password: 'correct horse', character: 'gardener' });
    const welcome = await a.nextOfType('welcome');
    expect(welcome.account).toEqual({ name: 'alice', role: 'player' });
    await a.nextOfType('state');
    await a.command('give apple to orc');
    await a.drop();

    const row = server.accounts.db.prepare('SELECT password FROM accounts WHERE name = ?').get('alice') as { password: string };
    expect(row.password).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(row.password).not.toContain('correct horse');

    // The token takes the same character up again, on a new connection.
    const b = await WsClient.open(server.wsUrl);
    await b.nextOfType('hello');
    b.send({ type: 'resume', token: welcome.token });
    expect(await b.nextOfType('welcome')).toMatchObject({ character: { id: 'gardener' }, resumed: true, account: { name: 'alice' } });

    // A second connection resuming takes over; the first is told and closed.
    const c = await WsClient.open(server.wsUrl);
    await c.nextOfType('hello');
    c.send({ type: 'login', name: 'alice', password: 'correct horse' });
    expect(await c.nextOfType('welcome')).toMatchObject({ character: { id: 'gardener' }, resumed: true });
    expect(await b.nextOfType('bye')).toMatchObject({ reason: expect.stringContaining('new connection') });
    await b.waitClosed();

    const d = await WsClient.open(server.wsUrl);
    await d.nextOfType('hello');
    d.send({ type: 'login', name: 'alice', password: 'wrong password' });
    expect(await d.nextOfType('error')).toMatchObject({ code: 'auth_failed' });
    d.send({ type: 'resume', token: 'no-such-token-at-all' });
    expect(await d.nextOfType('error')).toMatchObject({ code: 'bad_token' });
    d.send({ type: 'register', name: 'ALICE', password: 'another one' });
    expect(await d.nextOfType('error')).toMatchObject({ code: 'name_taken' });
    await Promise.all([c.close(), d.close()]);
  });

  it('keeps admin commands from players and runs them for admins', async () => {
    const player = await WsClient.open(server.wsUrl);
    await player.guest('kitty');
    for (const cmd of ['@save', '@reload', '@kick orc', '@teleport kitty to shed', '@create gold ring', '@drive ghost idle']) {
      player.send({ type: 'command', text: cmd, id: cmd });
      expect(await player.next<ErrorFrame>((f) => f.type === 'error' && f.id === cmd)).toMatchObject({ code: 'forbidden' });
    }

    const admin = await WsClient.open(server.wsUrl);
    await admin.nextOfType('hello');
    admin.send({ type: 'login', name: 'root', password: 'root password', character: 'orc' });
    expect((await admin.nextOfType('welcome')).account).toEqual({ name: 'root', role: 'admin' });
    await admin.nextOfType('state');

    const saved = await admin.command('@save');
    expect(saved.result).toMatchObject({ ok: true, text: expect.stringContaining('Saved') });

    const driving = await admin.command('@drive list');
    expect(driving.result.text).toMatch(/No character is driven|ghost|kitty|orc|gardener/);
    expect((await admin.command('@drive ghost sing')).result.text).toMatch(/^Usage: @drive/);

    const created = await admin.command('@create golden goblet +drink');
    expect(created.result.ok).toBe(true);
    expect(created.state.objects.map((o) => o.name)).toContain('golden goblet');
    await player.event('makes a golden goblet appear');

    const moved = await admin.command('@teleport kitty to tool shed');
    expect(moved.result).toMatchObject({ ok: true, text: 'You send the kitty to Tool Shed.' });
    await player.next((f) => f.type === 'observation' && f.text === 'You are whisked away to Tool Shed.');
    await player.next((f) => f.type === 'observation' && f.kind === 'look' && f.text.startsWith('Tool Shed'));
    const there = await player.next<StateFrame>((f) => f.type === 'state' && f.room.id === 'shed');
    expect(there.people.map((p) => p.id)).toContain('ghost');

    const who = await admin.command('@who');
    expect(who.result.text).toMatch(/kitty/);
    const kicked = await admin.command('@kick kitty being rude');
    expect(kicked.result.ok).toBe(true);
    expect(await player.nextOfType('bye')).toMatchObject({ reason: expect.stringContaining('kicked by root') });
    await player.waitClosed();
    await admin.close();
  });

  it('serves the HTTP API and the browser client', async () => {
    const base = `http://127.0.0.1:${server.httpPort}`;
    const c = await WsClient.open(server.wsUrl);
    await c.guest('carter');
    const health = await (await fetch(`${base}/healthz`)).json();
    expect(health).toMatchObject({ ok: true, world: 'Little world' });
    const world = (await (await fetch(`${base}/api/world`)).json()) as { counts: object; rooms: { id: string; characters: number }[] };
    expect(world.counts).toEqual({ rooms: 3, characters: 5, objects: expect.any(Number) });
    expect(world.rooms.find((r) => r.id === 'road')).toMatchObject({ characters: 1 });
    const who = (await (await fetch(`${base}/api/who`)).json()) as { players: { character: string; room: string; transport: string }[] };
    expect(who.players).toContainEqual(expect.objectContaining({ character: 'carter', room: 'Muddy Road', transport: 'websocket' }));
    const page = await fetch(`${base}/`);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('/client.js');
    expect((await fetch(`${base}/client.js`)).status).toBe(200);
    await c.close();
  });
});

describe('the agent example', () => {
  it('logs in, plays turns from its valid actions, and quits', async () => {
    const server = await startTestServer();
    try {
      const lines: string[] = [];
      const sent = await runAgent({ url: server.wsUrl, character: 'kitty', turns: 6, delayMs: 0, log: (l) => lines.push(l) });
      expect(sent).toHaveLength(6);
      expect(lines[0]).toContain('Walled Garden');
      expect(lines).toContain('[playing kitty in Walled Garden]');
      // The kitty is free again after the agent quits.
      const c = await WsClient.open(server.wsUrl);
      await c.guest('kitty');
      await c.close();
    } finally {
      await server.stop();
    }
  });
});
