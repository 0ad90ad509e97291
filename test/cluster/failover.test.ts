/**
 * Issue 15's cluster scenario with real parts: two portals and two shards over a real nats-server, two
 * worlds in a real PostgreSQL, websocket players on both portals playing all along. Shards serve many
 * worlds and take over a dead shard's worlds by themselves: kill -9 of one shard, then of the other,
 * then of nats-server, while everyone plays. Afterwards, per world: every acknowledged command is in
 * the event log as acknowledged, and the sequence numbers have no gap and no duplicate (one writer at
 * a time). Skipped, with the reason, without nats-server or PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { natsSkip, startNats, type RunningNats } from '../server/nats.js';
import { postgresBinDir, startPostgres, type RunningPostgres } from '../server/stores.js';
import { tempDir, writeLittleWorld, WsClient } from '../server/helpers.js';
import { LightmudProcess, type LogLine } from './processes.js';
import { SayingPlayer } from './players.js';

const skip = natsSkip() || (postgresBinDir() ? false : 'PostgreSQL is not installed: the cluster tests are skipped');
const BIN = new URL('../../bin/lightmud.mjs', import.meta.url).pathname;
const WORLDS = ['north', 'south'] as const;
const CHARACTERS = ['kitty', 'orc', 'gardener'];

const serving = (world: string) => (l: LogLine) => l.msg === 'serving the world on the bus' && l.world === world;
const standingBy = (world: string) => (l: LogLine) => typeof l.msg === 'string' && l.msg.includes('standing by') && l.world === world;

describe.skipIf(skip)('two portals, two shards, two worlds: failover by itself under load', () => {
  let nats: RunningNats;
  let pg: RunningPostgres;
  let tmp: ReturnType<typeof tempDir>;
  let worldFile: string;
  const processes: LightmudProcess[] = [];
  const players: SayingPlayer[] = [];

  const shard = (worlds: string[]) => {
    const p = LightmudProcess.start('shard', ['--bus', nats.url, '--db', pg.url, '--world-id', worlds.join(','), '--world', worldFile]);
    processes.push(p);
    return p;
  };
  const events = async (world: string) => {
    const c = await pg.client();
    try {
      return (await c.query('SELECT seq::int AS seq, actor, input FROM lightmud_events WHERE world = $1 ORDER BY seq', [world])).rows as { seq: number; actor: string; input: string }[];
    } finally {
      await c.end();
    }
  };
  /** Every player of every world has had `n` more commands acknowledged. */
  const everyonePlays = (n: number) => Promise.all(players.map((p) => p.ackedMore(n)));

  beforeAll(async () => {
    [nats, pg] = await Promise.all([startNats(), startPostgres()]);
    tmp = tempDir('lightmud-failover-');
    worldFile = writeLittleWorld(tmp.dir);
  }, 120_000);

  afterAll(async () => {
    for (const p of players) await p.stop().catch(() => {});
    for (const p of players) await p.client.close().catch(() => {});
    for (const p of processes) await p.stop();
    await nats?.stop();
    await pg?.stop();
    tmp?.cleanup();
  }, 90_000);

  it('a shard serves several worlds and stands by for held ones; each world fails over to the live shard, and moves on purpose; nothing acknowledged is lost', async () => {
    // Shard A takes north; shard B takes south and stands by for north.
    const a = shard(['north']);
    await a.waitFor(serving('north'), 'A serving north');
    const b = shard(['north', 'south']);
    await b.waitFor(serving('south'), 'B serving south');
    await b.waitFor(standingBy('north'), 'B standing by for north');
    expect(b.lines.some(serving('north'))).toBe(false);

    // A portal for each world, three players on each, playing from here on.
    const wsUrl: Record<string, string> = {};
    for (const world of WORLDS) {
      const portal = LightmudProcess.start('serve', ['--remote', '--bus', nats.url, '--world-id', world, '--db', join(tmp.dir, `portal-${world}.db`), '--http-port', '0', '--telnet-port', 'off', '--host', '127.0.0.1', '--bus-timeout', '1000']);
      processes.push(portal);
      const up = await portal.waitFor((l) => l.event === 'listening', `the ${world} portal to listen`);
      wsUrl[world] = `ws://127.0.0.1:${up.httpPort as number}/ws`;
      for (const character of CHARACTERS) {
        const c = await WsClient.open(`ws://127.0.0.1:${up.httpPort as number}/ws`);
        await c.guest(character);
        const p = new SayingPlayer(c, `${world}-${character}`);
        players.push(p);
        p.start();
      }
    }
    await everyonePlays(3);

    // Across the worlds, between portals of different shards: who lists the other world's players, a tell reaches one.
    const ghost = await WsClient.open(wsUrl.north!);
    await ghost.guest('ghost');
    let who = '';
    for (let i = 0; i < 40 && !who.includes('(south): 3 playing'); i++) {
      if (i) await new Promise((r) => setTimeout(r, 150));
      who = (await ghost.command('who')).result.text;
    }
    expect(who.split('\n').slice(0, 2)).toEqual(['7 playing in 2 worlds:', 'Little world (this world, north): 4 playing']);
    expect(who).toContain('Little world (south): 3 playing');
    expect((await ghost.command('tell kitty@south the north says hello')).result.text).toBe('You tell kitty (in Little world): "the north says hello"');
    const southKitty = players.find((p) => p.name === 'south-kitty')!.client;
    await southKitty.seen((f) => f.type === 'observation' && f.kind === 'system' && f.text === 'ghost (in Little world) tells you: "the north says hello"', 'the tell in the south');
    await ghost.close();

    // kill -9 of A, north's writer: B takes north by itself; both worlds play on.
    await a.kill9();
    await b.waitFor(serving('north'), 'B taking north over');
    await everyonePlays(3);

    // A comes back for both worlds and stands by; kill -9 of B: A takes both.
    const a2 = shard(['north', 'south']);
    await a2.waitFor(standingBy('north'), 'A standing by for north');
    await a2.waitFor(standingBy('south'), 'A standing by for south');
    await everyonePlays(2);
    await b.kill9();
    await a2.waitFor(serving('north'), 'A taking north over');
    await a2.waitFor(serving('south'), 'A taking south over');
    await everyonePlays(3);

    // kill -9 of nats-server while everyone plays: they are told; play resumes when it is back.
    await nats.kill();
    await new Promise((r) => setTimeout(r, 500));
    await nats.restart();
    await everyonePlays(3);

    // Moving a world on purpose: B comes back for both, north is moved from A to B. The portal holds the
    // players' commands while no shard serves it: nobody is told anything.
    const b2 = shard(['north', 'south']);
    await b2.waitFor(standingBy('north'), 'B standing by for north');
    await b2.waitFor(standingBy('south'), 'B standing by for south');
    const toldBefore = players.map((p) => p.told.length);
    const move = spawnSync(process.execPath, [BIN, 'shard', '--move', 'north', '--bus', nats.url, '--db', pg.url, '--hold', '3000'], { encoding: 'utf8', timeout: 60_000 });
    expect(move.stderr).toBe('');
    expect(move.status).toBe(0);
    expect(move.stdout).toMatch(new RegExp(`^moved "north" from "lightmud pid ${a2.pid} world north" to "lightmud pid ${b2.pid} world north": let go after \\d+ ms \\(saved, closed\\), served again \\d+ ms after the request\n$`));
    await b2.waitFor(serving('north'), 'B serving north');
    await everyonePlays(3);
    expect(players.map((p) => p.told.length)).toEqual(toldBefore);
    // A world nobody writes cannot be moved.
    const nowhere = spawnSync(process.execPath, [BIN, 'shard', '--move', 'nowhere', '--bus', nats.url, '--db', pg.url], { encoding: 'utf8', timeout: 60_000 });
    expect(nowhere.status).toBe(1);
    expect(nowhere.stderr).toContain('nobody writes the world "nowhere" now (the database does not know it): nothing to move');

    for (const p of players) await p.stop();
    // What the players were told is only ever that the world is unavailable (or may not have done the last command).
    for (const p of players) for (const t of p.told) expect(t.code).toBe('unavailable');
    expect(players.reduce((n, p) => n + p.told.length, 0)).toBeGreaterThan(0);

    for (const world of WORLDS) {
      const logged = await events(world);
      // One writer at a time: no gap, no duplicate.
      expect(logged.map((e) => e.seq)).toEqual(logged.map((_, i) => i + 1));
      // Every acknowledged command is there, as acknowledged.
      for (const p of players.filter((x) => x.name.startsWith(`${world}-`))) {
        const character = p.name.slice(world.length + 1);
        expect(p.acked.length).toBeGreaterThanOrEqual(14);
        for (const ack of p.acked) expect(logged.find((e) => e.seq === ack.seq)).toMatchObject({ actor: character, input: ack.text });
      }
    }

    // The database says who writes each world now: north B's second run (moved there), south A's second run.
    const list = spawnSync(process.execPath, [BIN, 'shard', '--list', '--db', pg.url], { encoding: 'utf8', timeout: 30_000 });
    expect(list.status).toBe(0);
    const rows = list.stdout.trim().split('\n');
    expect(rows).toHaveLength(2);
    for (const [i, [world, pid]] of ([['north', b2.pid], ['south', a2.pid]] as const).entries()) {
      expect(rows[i]).toMatch(new RegExp(`^${world}\\tevents \\d+\\twritten by "lightmud pid ${pid} world ${world}"\\ttaken last by shard [0-9a-f-]+ pid ${pid} at `));
    }
  }, 240_000);
});

describe('lightmud shard: several worlds, bad input', () => {
  const run = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });

  it('refuses a world named twice, a bad name among several, and --list without PostgreSQL', () => {
    const twice = run(['shard', '--bus', 'nats://127.0.0.1:4222', '--db', 'postgres://u@h/d', '--world-id', 'a,b,a']);
    expect(twice.status).toBe(2);
    expect(twice.stderr).toContain('--world-id names a world twice: a,b,a');
    const bad = run(['shard', '--bus', 'nats://127.0.0.1:4222', '--db', 'postgres://u@h/d', '--world-id', 'a,,b']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--world-id is 1 to 64 letters, digits, _ or -, not ""');
    const list = run(['shard', '--list', '--db', 'x.db']);
    expect(list.status).toBe(2);
    expect(list.stderr).toContain('--list needs --db postgres://...');
  }, 60_000);
});
