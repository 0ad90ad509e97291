import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeAdmin, startTestServer, tempDir, TelnetClient, writeLittleWorld, WsClient } from './helpers.js';
import { storeKinds } from './stores.js';

const BIN = fileURLToPath(new URL('../../bin/lightmud.mjs', import.meta.url));

interface Child {
  proc: ChildProcess;
  httpPort: number;
  telnetPort: number;
  logs: Record<string, unknown>[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Run `lightmud serve` as a child process; resolves once its "listening" log line names the ports. `onLog` sees every log line before. */
function serve(store: string[], world: string, onLog?: (entry: Record<string, unknown>) => void): Promise<Child> {
  const proc = spawn(process.execPath, [BIN, 'serve', ...store, '--world', world, '--http-port', '0', '--telnet-port', '0', '--host', '127.0.0.1'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: Record<string, unknown>[] = [];
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += String(d)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: proc.stdout! });
    lines.on('line', (line) => {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      logs.push(entry);
      onLog?.(entry);
      if (entry.event === 'listening') resolve({ proc, httpPort: entry.httpPort as number, telnetPort: entry.telnetPort as number, logs, exited });
    });
    void exited.then(({ code }) => reject(new Error(`lightmud serve exited (${code}) before listening: ${stderr}`)));
  });
}

for (const kind of storeKinds()) describe.skipIf(kind.skip)(`persistence (${kind.name})`, () => {
  const tmp = tempDir();
  beforeAll(() => kind.setup());
  afterAll(async () => {
    await kind.teardown();
    tmp.cleanup();
  });

  it('keeps every acknowledged change across a clean stop and a kill -9', async () => {
    const db = kind.serveArgs(tmp.dir, 'crash');
    const world = writeLittleWorld(tmp.dir);

    // Run 1: play, then stop cleanly with SIGTERM.
    let child = await serve(db, world);
    let ws = await WsClient.open(`ws://127.0.0.1:${child.httpPort}/ws`);
    await ws.guest('kitty');
    await ws.command('get shovel');
    await ws.command('go north');
    child.proc.kill('SIGTERM');
    expect((await ws.nextOfType('bye')).reason).toContain('shutting down');
    expect(await child.exited).toEqual({ code: 0, signal: null });
    expect(child.logs.some((l) => l.msg === 'stopped; state saved')).toBe(true);

    // Run 2: the state is back; act again over websocket and telnet, then kill -9 right after the last acknowledgement.
    child = await serve(db, world);
    ws = await WsClient.open(`ws://127.0.0.1:${child.httpPort}/ws`);
    const back = await ws.guest('kitty');
    expect(back.room.id).toBe('shed');
    expect(back.character.carrying.map((o) => o.id)).toEqual(['shovel']);
    const acknowledged: number[] = [];
    for (const cmd of ['drop shovel', 'get rake', 'go south', 'put rake in oak chest', 'get gold coin from chest', 'say remember me']) {
      const { result } = await ws.command(cmd);
      expect(result.ok, `${cmd}: ${result.text}`).toBe(true);
      acknowledged.push(result.seq!);
    }
    ws.send({ type: 'register', name: 'dora', password: 'dora password' });
    expect((await ws.nextOfType('error')).code).toBe('already_logged_in');
    const acct = await WsClient.open(`ws://127.0.0.1:${child.httpPort}/ws`);
    await acct.nextOfType('hello');
    acct.send({ type: 'register', name: 'dora', password: 'dora password', character: 'orc' });
    await acct.nextOfType('welcome');
    await acct.command('hug gardener');
    const t = await TelnetClient.open(child.telnetPort);
    await t.guest('ghost');
    t.line('give lantern to ... nobody');
    await t.waitFor('> ');
    t.line('drop lantern');
    await t.waitFor('You drop the lantern.');
    child.proc.kill('SIGKILL');
    expect((await child.exited).signal).toBe('SIGKILL');

    // Run 3: everything acknowledged is there.
    child = await serve(db, world);
    const restored = child.logs.find((l) => l.msg === 'world restored from the database')!;
    expect(restored).toMatchObject({ restored: 'snapshot', diverged: 0 });
    expect(restored.replayed as number).toBeGreaterThanOrEqual(8);
    ws = await WsClient.open(`ws://127.0.0.1:${child.httpPort}/ws`);
    const state = await ws.guest('kitty');
    expect(state.room.id).toBe('garden');
    expect(state.character.carrying.map((o) => o.id)).toEqual(['coin']);
    expect(state.objects).toContainEqual({ id: 'rake', name: 'rake', parent: 'chest', rel: 'in' });
    const { result: shed } = await ws.command('look');
    expect(shed.text).toContain('Walled Garden');
    const ghost = await WsClient.open(`ws://127.0.0.1:${child.httpPort}/ws`);
    const ghostState = await ghost.guest('ghost');
    expect(ghostState.objects).toContainEqual({ id: 'lantern', name: 'lantern', parent: 'shed', rel: 'in' });
    expect(ghostState.objects).toContainEqual({ id: 'shovel', name: 'shovel', parent: 'shed', rel: 'in' });
    const dora = await WsClient.open(`ws://127.0.0.1:${child.httpPort}/ws`);
    await dora.nextOfType('hello');
    dora.send({ type: 'login', name: 'dora', password: 'dora password' });
    expect(await dora.nextOfType('welcome')).toMatchObject({ character: { id: 'orc' }, account: { name: 'dora' } });
    child.proc.kill('SIGTERM');
    expect((await child.exited).code).toBe(0);

    // The log holds every acknowledged command, in order, with actor and text.
    const rows = await kind.logged(tmp.dir, 'crash', { seqs: acknowledged });
    expect(rows.map((r) => r.input)).toEqual(['drop shovel', 'get rake', 'go south', 'put rake in oak chest', 'get gold coin from chest', 'say remember me']);
    expect(rows.every((r) => r.actor === 'kitty')).toBe(true);
    expect(rows[5]!.text).toBe('You say, "remember me"');
  });
});

for (const kind of storeKinds().filter((k) => k.name === 'postgres')) describe.skipIf(kind.skip)(`one writer per world (${kind.name})`, () => {
  const tmp = tempDir();
  beforeAll(() => kind.setup());
  afterAll(async () => {
    await kind.teardown();
    tmp.cleanup();
  });

  it('a second server on the same world refuses to write and stands by; it takes over, with everything acknowledged, when the first is killed -9', async () => {
    const world = writeLittleWorld(tmp.dir);
    const first = await serve(kind.serveArgs(tmp.dir, 'fence'), world);
    const ws = await WsClient.open(`ws://127.0.0.1:${first.httpPort}/ws`);
    await ws.guest('kitty');
    const got = await ws.command('get shovel');
    expect(got.result.ok).toBe(true);

    // The second server: another local file, the same PostgreSQL world. It says why it waits, and does not listen.
    const args = kind.serveArgs(tmp.dir, 'fence');
    args[args.indexOf('--local-db') + 1] = `${tmp.dir}/second-local.db`;
    let standing: (e: Record<string, unknown>) => void;
    const stoodBy = new Promise<Record<string, unknown>>((resolve) => (standing = resolve));
    let listening = false;
    const second = serve(args, world, (e) => {
      if (typeof e.msg === 'string' && e.msg.includes('held by another server')) standing(e);
      if (e.event === 'listening') listening = true;
    });
    const notice = await stoodBy;
    expect(notice).toMatchObject({ level: 50, world: 'fence', holder: expect.stringContaining(`lightmud pid ${first.proc.pid} world fence`) });
    await new Promise((r) => setTimeout(r, 500));
    expect(listening).toBe(false);
    // The first still writes.
    expect((await ws.command('go north')).result.ok).toBe(true);

    first.proc.kill('SIGKILL');
    const killedAt = Date.now();
    const took = await second;
    const restored = took.logs.find((l) => l.msg === 'world restored from the database')!;
    expect(restored).toMatchObject({ restored: 'snapshot', store: 'postgres world fence' });
    expect(Date.now() - killedAt).toBeLessThan(10_000);
    const kitty = await WsClient.open(`ws://127.0.0.1:${took.httpPort}/ws`);
    const state = await kitty.guest('kitty');
    expect(state.room.id).toBe('shed');
    expect(state.character.carrying.map((o) => o.id)).toEqual(['shovel']);
    const dropped = await kitty.command('drop shovel');
    expect(dropped.result.ok).toBe(true);
    took.proc.kill('SIGTERM');
    expect((await took.exited).code).toBe(0);
    expect((await kind.logged(tmp.dir, 'fence', { limit: 10 })).map((r) => r.input)).toEqual(['get shovel', 'go north', 'drop shovel']);
  });
});

for (const kind of storeKinds()) describe.skipIf(kind.skip)(`reloads keep everyone connected (${kind.name})`, () => {
  const tmp = tempDir();
  beforeAll(() => kind.setup());
  afterAll(async () => {
    await kind.teardown();
    tmp.cleanup();
  });

  it('reloads the game code and the world without dropping websocket or telnet players', async () => {
    const server = await startTestServer(kind.serverOptions(tmp.dir, 'reload'), tmp.dir);
    try {
      await makeAdmin(server, 'root', 'root password');
      const admin = await WsClient.open(server.wsUrl);
      await admin.nextOfType('hello');
      admin.send({ type: 'login', name: 'root', password: 'root password', character: 'orc' });
      await admin.nextOfType('welcome');
      await admin.nextOfType('state');
      const player = await WsClient.open(server.wsUrl);
      await player.guest('kitty');
      const t = await TelnetClient.open(server.telnetPort!);
      await t.guest('gardener');
      await player.command('get shovel');

      const before = server.host.info.thread;
      const reload = await admin.command('@reload');
      expect(reload.result).toMatchObject({ ok: true, text: expect.stringMatching(/Reloaded the game code .* 3 sessions kept/) });
      expect(server.host.info.thread).not.toBe(before);
      await player.next((f) => f.type === 'observation' && f.kind === 'system' && f.text.includes('reloaded'));
      await t.waitFor('game code was reloaded');

      // Same connections, same state, still playing together.
      const { state } = await player.command('inventory');
      expect(state.character.carrying.map((o) => o.id)).toEqual(['shovel']);
      t.line('say still here');
      await player.event('The gardener says, "still here"');

      // A command sent while the code reloads waits and runs on the new code.
      const racing = admin.command('@reload');
      const during = await player.command('drop shovel');
      expect(during.result.ok).toBe(true);
      await racing;

      const world = await admin.command('@reload world');
      expect(world.result).toMatchObject({ ok: true, text: expect.stringContaining('Reloaded the world') });
      await t.waitFor('The world was reloaded');
      const fresh = await player.next((f) => f.type === 'state' && f.id === undefined && f.objects.some((o) => o.id === 'shovel'));
      expect(fresh).toBeTruthy();
      const { result } = await player.command('get shovel');
      expect(result.ok).toBe(true);
      t.line('look');
      await t.waitFor('Walled Garden');
      expect(player.closed).toBeNull();
      expect(t.closed).toBe(false);
      await Promise.all([admin.close(), player.close(), t.close()]);
    } finally {
      await server.stop();
    }
  });
});

for (const kind of storeKinds()) describe.skipIf(kind.skip)(`a crashed game worker (${kind.name})`, () => {
  const tmp = tempDir();
  beforeAll(() => kind.setup());
  afterAll(async () => {
    await kind.teardown();
    tmp.cleanup();
  });

  it('restarts a crashed game worker from the database while players stay connected', async () => {
    const server = await startTestServer(kind.serverOptions(tmp.dir, 'worker'), tmp.dir);
    try {
      const c = await WsClient.open(server.wsUrl);
      await c.guest('carter');
      const got = await c.command('go back door');
      expect(got.state.room.id).toBe('shed');
      await c.command('get rake');
      await server.host.crashForTest();
      const after = await c.command('inventory');
      expect(after.result.text).toContain('rake');
      expect(after.state.room.id).toBe('shed');
      expect(c.closed).toBeNull();
      await c.close();
    } finally {
      await server.close();
    }
  });
});
