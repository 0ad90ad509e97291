/**
 * Room building over the wire: @dig, @describe, @link, @unlink and @create, refused for players and for
 * bad input, and kept over a kill -9 right after the acknowledgement (a real `lightmud serve` child
 * process on one SQLite file, restarted).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeAdmin, startTestServer, tempDir, writeLittleWorld, WsClient, type TestServer } from './helpers.js';
import type { ErrorFrame } from '../../server/net/protocol.js';
import { openDb } from '../../server/store/db.js';
import { AccountStore } from '../../server/store/accounts.js';

const BIN = fileURLToPath(new URL('../../bin/lightmud.mjs', import.meta.url));

interface Child {
  proc: ChildProcess;
  httpPort: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function serve(db: string, world: string): Promise<Child> {
  const proc = spawn(process.execPath, [BIN, 'serve', '--db', db, '--world', world, '--http-port', '0', '--telnet-port', '0', '--host', '127.0.0.1'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += String(d)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      try {
        const entry = JSON.parse(line) as Record<string, unknown>;
        if (entry.event === 'listening') resolve({ proc, httpPort: entry.httpPort as number, exited });
      } catch {
        // not a log line
      }
    });
    void exited.then(({ code }) => reject(new Error(`lightmud serve exited (${code}) before listening: ${stderr}`)));
  });
}

async function loginAdmin(url: string, character: string): Promise<WsClient> {
  const admin = await WsClient.open(url);
  await admin.nextOfType('hello');
  admin.send({ type: 'login', name: 'root', password: 'root password', character });
  await admin.nextOfType('welcome');
  await admin.nextOfType('state');
  return admin;
}

describe('building, refused', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    await makeAdmin(server, 'root', 'root password');
  });
  afterAll(() => server.stop());

  it('refuses every builder command to a player, saying why', async () => {
    const player = await WsClient.open(server.wsUrl);
    await player.guest('kitty');
    for (const cmd of ['@dig east Herb Bed', '@describe here = A garden.', '@desc here = x', '@link east Muddy Road', '@unlink north', '@create object spade with weapon']) {
      player.send({ type: 'command', text: cmd, id: cmd });
      const err = await player.next<ErrorFrame>((f) => f.type === 'error' && f.id === cmd);
      expect(err).toMatchObject({ code: 'forbidden' });
      expect(err.message).toMatch(/for admins only \(building is for admins/);
    }
    // Nothing changed.
    const look = await player.command('look');
    expect(look.state.room.exits.map((e) => e.label)).toEqual(['north']);
    expect(look.state.objects.map((o) => o.name)).not.toContain('spade');
    await player.close();
  });

  it('refuses bad input with a reason and changes nothing', async () => {
    const admin = await loginAdmin(server.wsUrl, 'orc');
    const refused: [string, RegExp][] = [
      ['@dig', /^Usage: @dig DIRECTION NAME/],
      ['@dig east', /The room needs a name/],
      ['@dig north Another Shed', /already an exit "north" here, to Tool Shed/],
      [`@dig east ${'x'.repeat(81)}`, /at most 80 characters/],
      ['@link east Moon Palace', /no room called "Moon Palace"/],
      ['@link east', /Link east to which room/],
      ['@link north Muddy Road', /already an exit "north" here/],
      ['@link east Walled Garden', /cannot lead to the room it is in/],
      ['@unlink west', /no exit "west" here\. Exits: north\./],
      ['@describe here', /^Usage: @describe/],
      ['@describe here =   ', /description is empty/],
      ['@describe unicorn = A unicorn.', /You see no "unicorn" here/],
      ['@describe candle = A candle.', /could be candle \(candle-1\), candle \(candle-2\)/],
      ['@create', /The object needs a name/],
      ['@create = A thing with no name.', /The object needs a name/],
      ['@create spade with weapon, edible', /./], // "edible" is not an affordance, so "with ..." stays part of the name: allowed
      ['@create mug +shiny', /Unknown affordance: shiny/],
      ['@create rock with fixed gettable', /both fixed and gettable/],
    ];
    for (const [cmd, reason] of refused) {
      const { result } = await admin.command(cmd);
      if (cmd.startsWith('@create spade')) {
        expect(result).toMatchObject({ ok: true, text: expect.stringContaining('spade with weapon, edible') });
        continue;
      }
      expect(result.ok, cmd).toBe(false);
      expect(result.text, cmd).toMatch(reason);
      expect(result.seq, cmd).toBeUndefined();
    }
    // Over-long text: a command is at most 1000 characters on the wire (the build limit, 4000, is the world file's: test/host/build.test.ts).
    const long = `@describe here = ${'y'.repeat(1001)}`;
    admin.send({ type: 'command', text: long, id: 'long' });
    expect(await admin.next<ErrorFrame>((f) => f.type === 'error' && f.id === 'long')).toMatchObject({ code: 'too_long' });
    const after = await admin.command('look');
    expect(after.state.room.exits.map((e) => e.label)).toEqual(['north']);
    expect(after.state.room.description).toBe('Rows of cabbages and a chest by the wall.');
    await admin.drop(); // more than the burst of commands were sent: a quit now would be rate limited
  });
});

describe('building, kept', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it('digs, describes, links, unlinks and creates; a kill -9 after the acknowledgement keeps all of it', async () => {
    const db = join(tmp.dir, 'build.db');
    const world = writeLittleWorld(tmp.dir);
    let child = await serve(db, world);
    const url = () => `ws://127.0.0.1:${child.httpPort}/ws`;
    const reg = await WsClient.open(url());
    await reg.nextOfType('hello');
    reg.send({ type: 'register', name: 'root', password: 'root password', character: 'orc' });
    await reg.nextOfType('welcome');
    await reg.close();
    // As `lightmud admin grant root` does, while the server runs on the file.
    const side = openDb(db);
    expect(new AccountStore(side).setRole('root', 'admin')).toBe(true);
    side.close();

    const watcher = await WsClient.open(url());
    await watcher.guest('kitty');
    const admin = await loginAdmin(url(), 'orc');

    const dug = await admin.command('@dig e Herb Bed');
    expect(dug.result).toMatchObject({ ok: true, text: expect.stringMatching(/^You dig east to a new room, Herb Bed \(herb-bed-\d+\); its way back is "west"\.$/) });
    expect(dug.result.seq).toBeGreaterThan(0);
    expect(dug.state.room.exits.map((e) => e.label)).toEqual(['north', 'east']);
    await watcher.event('The orc opens a new way east.');
    const bed = dug.state.room.exits[1]!.to;

    const there = await admin.command('go east');
    expect(there.state.room).toMatchObject({ id: bed, name: 'Herb Bed', category: 'Farm' });
    expect(there.state.room.exits).toEqual([{ label: 'west', to: 'garden', name: 'Walled Garden' }]);
    expect((await admin.command('@describe here = Thyme and sage in neat rows, humming with bees.')).result.ok).toBe(true);
    const linked = await admin.command('@link "garden gate" Muddy Road');
    expect(linked.result).toMatchObject({ ok: true, text: expect.stringContaining('You link garden gate to Muddy Road (road); one way') });
    expect((await admin.command('@dig up Tree House')).result.ok).toBe(true);
    expect((await admin.command('@unlink up')).result.text).toMatch(/^You close the way up \(to Tree House\)\.$/);
    const made = await admin.command('@create object watering can = A dented tin can with a long spout. with container');
    expect(made.result.text).toMatch(/^You create a watering can \(watering-can-\d+\)\.$/);
    expect((await admin.command('@create bee skep with fixed, container')).result.ok).toBe(true);
    expect((await admin.command('@create iron sword +weapon')).result.ok).toBe(true);
    const described = await admin.command('@describe watering can = A dented tin can, green with age.');
    expect(described.result).toMatchObject({ ok: true, text: 'You describe the watering can: A dented tin can, green with age.' });
    const last = await admin.command('@describe me = You see a gardening orc, soil under its claws.');
    expect(last.result.ok).toBe(true);
    // kill -9 right after the last acknowledgement.
    child.proc.kill('SIGKILL');
    expect((await child.exited).signal).toBe('SIGKILL');

    child = await serve(db, world);
    const back = await loginAdmin(url(), 'orc');
    const look = await back.command('look');
    expect(look.state.room).toMatchObject({ id: bed, name: 'Herb Bed', description: 'Thyme and sage in neat rows, humming with bees.' });
    expect(look.state.room.exits.map((e) => `${e.label}>${e.to}`)).toEqual(['west>garden', 'garden gate>road']);
    expect(look.state.objects.map((o) => o.name)).toEqual(['watering can', 'bee skep', 'iron sword']);
    expect(look.state.character.description).toBe('You see a gardening orc, soil under its claws.');
    expect((await back.command('examine watering can')).result.text).toContain('A dented tin can, green with age.');
    // The affordances came back: the can holds things, the skep stays put, the sword can be wielded.
    expect((await back.command('get sword')).result.ok).toBe(true);
    expect((await back.command('remove club')).result.ok).toBe(true);
    expect((await back.command('wield sword')).result.ok).toBe(true);
    expect((await back.command('get skep')).result.ok).toBe(false);
    expect((await back.command('get watering can')).result.ok).toBe(true);
    expect((await back.command('go garden gate')).state.room.id).toBe('road');
    expect((await back.command('go the back door')).state.room.id).toBe('shed');
    expect((await back.command('go south')).state.room.id).toBe('garden');
    expect((await back.command('go east')).state.room.id).toBe(bed);
    child.proc.kill('SIGTERM');
    expect(await child.exited).toEqual({ code: 0, signal: null });
  });
});
