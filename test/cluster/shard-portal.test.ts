/**
 * A cluster's first step (issue 15) with real parts: a real nats-server and a real PostgreSQL on
 * 127.0.0.1, a shard (`lightmud shard`) as a child process owning the world, portals (`lightmud serve
 * --remote`) in this process and as a child process, websocket players on them. Skipped, with the
 * reason, without nats-server or PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { NatsBus } from '../../server/bus/nats-bus.js';
import { BusRemoteError, type Bus, type BusBody } from '../../server/bus/bus.js';
import { gameSubject } from '../../server/cluster/subjects.js';
import { UNSURE } from '../../server/cluster/shard.js';
import type { SubmitResult } from '../../server/host/types.js';
import type { ServerFrame } from '../../server/net/protocol.js';
import { startServer } from '../../server/net/server.js';
import { natsSkip, startNats, type RunningNats } from '../server/nats.js';
import { postgresBinDir, startPostgres, type RunningPostgres } from '../server/stores.js';
import { startTestServer, tempDir, writeLittleWorld, WsClient, type TestServer } from '../server/helpers.js';
import { LightmudProcess, startShard } from './processes.js';
import { attempt } from './players.js';

const quiet = { info() {}, warn() {} };
const skip = natsSkip() || (postgresBinDir() ? false : 'PostgreSQL is not installed: the cluster tests are skipped');
const BIN = new URL('../../bin/lightmud.mjs', import.meta.url).pathname;

describe.skipIf(skip)('a shard and its portals over NATS, the world in PostgreSQL', () => {
  let nats: RunningNats;
  let pg: RunningPostgres;
  let tmp: ReturnType<typeof tempDir>;
  let worldFile: string;
  let shard: LightmudProcess;
  const extra: LightmudProcess[] = [];
  let busA: Bus;
  let raw: Bus;
  let portalA: TestServer;
  let portalB: LightmudProcess;
  let wsB: string;
  const WORLD = 'meadow';

  const events = async () => {
    const c = await pg.client();
    try {
      return (await c.query('SELECT seq::int AS seq, actor, input, text FROM lightmud_events WHERE world = $1 ORDER BY seq', [WORLD])).rows as { seq: number; actor: string; input: string; text: string }[];
    } finally {
      await c.end();
    }
  };
  const shardArgs = () => ({ bus: nats.url, db: pg.url, world: WORLD, worldFile });

  beforeAll(async () => {
    [nats, pg] = await Promise.all([startNats(), startPostgres()]);
    tmp = tempDir('lightmud-cluster-');
    worldFile = writeLittleWorld(tmp.dir);
    shard = await startShard(shardArgs());
    busA = await NatsBus.connect(nats.url, { log: quiet, reconnectWaitMs: 200 });
    raw = await NatsBus.connect(nats.url, { log: quiet, reconnectWaitMs: 200 });
    portalA = await startTestServer({ db: join(tmp.dir, 'portal-a.db'), remote: { bus: busA, world: WORLD, timeoutMs: 1000 }, crossWorld: { bus: busA, world: WORLD, timeoutMs: 500, heartbeatMs: 200, shared: true } });
    portalB = LightmudProcess.start('serve', ['--remote', '--bus', nats.url, '--world-id', WORLD, '--db', join(tmp.dir, 'portal-b.db'), '--http-port', '0', '--telnet-port', 'off', '--host', '127.0.0.1', '--bus-timeout', '1000']);
    const up = await portalB.waitFor((l) => l.event === 'listening', 'portal B to listen');
    wsB = `ws://127.0.0.1:${up.httpPort as number}/ws`;
  }, 120_000);

  afterAll(async () => {
    await portalA?.stop();
    await portalB?.stop();
    for (const p of [shard, ...extra]) await p?.stop();
    await busA?.close();
    await raw?.close();
    await nats?.stop();
    await pg?.stop();
    tmp?.cleanup();
  }, 60_000);

  it('a websocket player plays through a portal; a player on the other portal sees it, and the reverse', async () => {
    const kitty = await WsClient.open(portalA.wsUrl);
    const orc = await WsClient.open(wsB);
    await kitty.guest('kitty');
    await orc.guest('orc');
    expect((await kitty.command('look')).result.text).toContain('Walled Garden');
    const got = await kitty.command('get shovel');
    expect(got.result.ok).toBe(true);
    expect(got.state.character.carrying.map((o) => o.name)).toContain('shovel');
    await kitty.command('say hello from portal A');
    expect((await orc.event('hello from portal A')).text).toMatch(/kitty/i);
    await orc.command('say and hello from portal B');
    expect((await kitty.event('and hello from portal B')).text).toMatch(/orc/i);
    // What was acknowledged is in PostgreSQL's event log, under its sequence number.
    const logged = await events();
    expect(logged.find((e) => e.seq === got.result.seq)).toMatchObject({ actor: 'kitty', input: 'get shovel' });
    await kitty.close();
    await orc.close();
  }, 60_000);

  it('who on either portal lists the players of both portals of the world', async () => {
    const kitty = await WsClient.open(portalA.wsUrl);
    const orc = await WsClient.open(wsB);
    await kitty.guest('kitty');
    await orc.guest('orc');
    // The portals hear of each other by their presence messages (portal B's heartbeat: 2 s): ask until both are listed.
    const names = (text: string) => text.split('\n').slice(2).map((l) => l.trim().split(/\s+/)[0]).sort();
    for (const [c, label] of [[kitty, 'A'], [orc, 'B']] as const) {
      let text = '';
      for (let i = 0; i < 40 && names(text).join() !== 'kitty,orc'; i++) {
        if (i) await new Promise((r) => setTimeout(r, 150));
        text = (await c.command('who')).result.text;
      }
      expect(text.split('\n').slice(0, 2), `who on portal ${label}`).toEqual(['2 playing in 1 world:', `Little world (this world, ${WORLD}): 2 playing`]);
      expect(names(text)).toEqual(['kitty', 'orc']);
    }
    await kitty.close();
    await orc.close();
  }, 60_000);

  it('a resent command id is run once: the repeat gets the first answer', async () => {
    const ask = (body: Record<string, unknown>) => raw.request(gameSubject(WORLD), body as BusBody, 5000);
    // The shard instance a portal would know from an earlier answer.
    const { shard: instance } = await ask({ portal: 'test-portal', id: 100, req: { op: 'summary' } });
    const req = { portal: 'test-portal', id: 1, req: { op: 'submit', actor: 'gardener', text: 'drop pebble', account: null } };
    // Twice at once (the first still running when the second comes) and once more afterwards.
    const [a, b] = await Promise.all([ask(req), ask({ ...req, resend: { shard: instance } })]);
    const c = await ask({ ...req, resend: { shard: instance } });
    const seqOf = (x: BusBody) => ((x as { result: SubmitResult }).result).seq;
    expect(a.ok).toBe(true);
    expect(seqOf(b)).toBe(seqOf(a));
    expect(seqOf(c)).toBe(seqOf(a));
    expect((await events()).filter((e) => e.actor === 'gardener' && e.input === 'drop pebble')).toHaveLength(1);
    // A new id is a new command: the pebble is on the ground now, so this one fails, and is logged.
    const d = await ask({ ...req, id: 2 });
    expect(seqOf(d)).toBeGreaterThan(seqOf(a));
    expect((await events()).filter((e) => e.actor === 'gardener' && e.input === 'drop pebble')).toHaveLength(2);
  }, 30_000);

  it('a resend first sent to another shard is refused, not run; a malformed request is answered with what is wrong', async () => {
    const before = (await events()).length;
    const r = await raw.request(gameSubject(WORLD), { portal: 'test-portal', id: 50, req: { op: 'submit', actor: 'gardener', text: 'drop apple', account: null }, resend: { shard: 'a-shard-that-died' } }, 5000);
    expect(r).toMatchObject({ ok: false, unavailable: true, error: UNSURE });
    expect((await events()).length).toBe(before);
    await expect(raw.request(gameSubject(WORLD), { id: 1, req: { op: 'look', actor: 'kitty' } }, 5000)).rejects.toThrow(BusRemoteError);
    await expect(raw.request(gameSubject(WORLD), { portal: 'p', id: 1, req: { op: 'explode' } }, 5000)).rejects.toThrow(/a known op/);
  }, 30_000);

  it('a second shard of the world stands by; a shard that loses its database connection exits 1 and the standby takes over', async () => {
    const standby = LightmudProcess.start('shard', ['--bus', nats.url, '--db', pg.url, '--world-id', WORLD]);
    extra.push(standby);
    await standby.waitForMsg('standing by');
    const refused = spawnSync(process.execPath, [BIN, 'shard', '--bus', nats.url, '--db', pg.url, '--world-id', WORLD, '--refuse-if-held'], { encoding: 'utf8', timeout: 60_000 });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`the world "${WORLD}" in PostgreSQL is being written by another lightmud`);
    // The first shard's connection is ended under it: it has lost the lock.
    const c = await pg.client();
    try {
      await c.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE $1", [`lightmud pid ${shard.pid} %`]);
    } finally {
      await c.end();
    }
    expect((await shard.exited).code).toBe(1);
    await standby.waitForMsg('serving the world on the bus');
    shard = standby;
    extra.splice(extra.indexOf(standby), 1);
    // The portals play on with the new shard.
    const kitty = await WsClient.open(portalA.wsUrl);
    await kitty.guest('kitty');
    expect((await kitty.command('look')).result.text).toContain('Walled Garden');
    await kitty.close();
  }, 90_000);

  it('kill -9 of the shard while a player plays: the player is told, a new shard takes over, nothing acknowledged is lost, no two writers', async () => {
    const standby = LightmudProcess.start('shard', ['--bus', nats.url, '--db', pg.url, '--world-id', WORLD]);
    extra.push(standby);
    await standby.waitForMsg('standing by');
    const kitty = await WsClient.open(portalA.wsUrl);
    await kitty.guest('kitty');
    const acked: { seq: number; text: string }[] = [];
    const told: string[] = [];
    let killed = false;
    let afterKill = 0;
    const t0 = Date.now();
    for (let n = 1; afterKill < 5; n++) {
      if (Date.now() - t0 > 60_000) throw new Error(`no recovery: acked ${acked.length}, told ${JSON.stringify(told)}\n${standby.output}`);
      const text = `say line ${n}`;
      const f = await attempt(kitty, text, `k${n}`);
      if (f.type === 'observation' && f.kind === 'result') {
        acked.push({ seq: f.seq!, text });
        if (killed) afterKill++;
      } else if (f.type === 'error') {
        expect(f.code).toBe('unavailable');
        told.push(f.message);
        await new Promise((r) => setTimeout(r, 100));
      }
      if (acked.length === 5 && !killed) {
        // Killed with a command on its way: acknowledged (committed before the kill) or not; if not, the player is told.
        killed = true;
        const inFlight = attempt(kitty, 'say in flight', 'flight');
        await shard.kill9();
        const f = await inFlight;
        if (f.type === 'observation' && f.kind === 'result') acked.push({ seq: f.seq!, text: 'say in flight' });
        else told.push((f as { message: string }).message);
      }
    }
    expect(told.length).toBeGreaterThan(0);
    expect(told[0]).toMatch(/unavailable|changed/);
    await standby.waitForMsg('serving the world on the bus', 1000);
    shard = standby;
    extra.splice(extra.indexOf(standby), 1);
    const logged = await events();
    // No duplicate or missing sequence number: one writer at a time.
    expect(logged.map((e) => e.seq)).toEqual(logged.map((_, i) => i + 1));
    // Every acknowledged command is in the log, as acknowledged.
    for (const a of acked) expect(logged.find((e) => e.seq === a.seq)).toMatchObject({ actor: 'kitty', input: a.text });
    await kitty.close();
  }, 120_000);

  it('with no shard at all, the player is told at once and a portal does not start; the portal recovers when a shard comes back', async () => {
    const kitty = await WsClient.open(portalA.wsUrl);
    await kitty.guest('kitty');
    // The orc's player, on the other portal, is there before the shard goes and after it is back.
    const orc = await WsClient.open(wsB);
    await orc.guest('orc');
    await shard.stop();
    expect((await shard.exited).code).toBe(0);
    const t0 = Date.now();
    const f = await attempt(kitty, 'look', 'gone1');
    expect(f).toMatchObject({ type: 'error', code: 'unavailable' });
    expect(Date.now() - t0).toBeLessThan(5000);
    const ready = await fetch(`http://127.0.0.1:${portalA.httpPort}/readyz`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { reasons: string[] }).reasons).toEqual([expect.stringContaining(`The world "${WORLD}" is unavailable`)]);
    const bus = await NatsBus.connect(nats.url, { log: quiet });
    try {
      await expect(startServer({ db: join(tmp.dir, 'portal-c.db'), httpPort: 0, telnetPort: null, host: '127.0.0.1', logger: false, remote: { bus, world: WORLD, timeoutMs: 500 } }))
        .rejects.toThrow(`The world "${WORLD}" is unavailable`);
    } finally {
      await bus.close();
    }
    shard = await startShard(shardArgs());
    const back = await attempt(kitty, 'look', 'back1');
    expect(back).toMatchObject({ type: 'observation', kind: 'result' });
    expect((await fetch(`http://127.0.0.1:${portalA.httpPort}/readyz`)).status).toBe(200);
    // Portal B sent the new shard the characters it watches: the orc gets a fresh state when the kitty changes
    // the room (the shard computes states only for watched characters). Joining takes a moment: try a few times.
    const shovelOnGround = (f: ServerFrame) => f.type === 'state' && f.id === undefined && f.objects.some((o) => o.name === 'shovel' && o.rel === 'in');
    let seen = false;
    for (let i = 0; i < 10 && !seen; i++) {
      const mark = orc.frames.length;
      expect((await kitty.command('drop shovel')).result.ok).toBe(true);
      const deadline = Date.now() + 1000;
      while (Date.now() < deadline && !(seen = orc.frames.slice(mark).some(shovelOnGround))) await new Promise((r) => setTimeout(r, 50));
      if (!seen) expect((await kitty.command('get shovel')).result.ok).toBe(true);
    }
    expect(seen).toBe(true);
    await kitty.close();
    await orc.close();
  }, 90_000);

  it('kill -9 of nats-server: the player is told the world is unavailable; play resumes when it is back', async () => {
    const kitty = await WsClient.open(portalA.wsUrl);
    await kitty.guest('kitty');
    expect(await attempt(kitty, 'look', 'before-nats')).toMatchObject({ type: 'observation', kind: 'result' });
    await nats.kill();
    const t0 = Date.now();
    expect(await attempt(kitty, 'look', 'no-nats')).toMatchObject({ type: 'error', code: 'unavailable' });
    expect(Date.now() - t0).toBeLessThan(5000);
    await nats.restart();
    let back: ServerFrame | null = null;
    for (let i = 0; i < 60 && !(back?.type === 'observation'); i++) {
      back = await attempt(kitty, 'say back again', `nats-back${i}`);
      if (back.type !== 'observation') await new Promise((r) => setTimeout(r, 250));
    }
    expect(back).toMatchObject({ type: 'observation', kind: 'result' });
    const logged = await events();
    expect(logged.find((e) => e.seq === (back as { seq?: number }).seq)).toMatchObject({ actor: 'kitty', input: 'say back again' });
    expect(logged.map((e) => e.seq)).toEqual(logged.map((_, i) => i + 1));
    await kitty.close();
  }, 60_000);
});

describe('lightmud shard and serve --remote: bad input', () => {
  const run = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });

  it('a shard needs a bus, a PostgreSQL database and a world id', () => {
    const noDb = run(['shard', '--bus', 'nats://127.0.0.1:4222', '--world-id', 'w']);
    expect(noDb.status).toBe(2);
    expect(noDb.stderr).toContain('--db postgres://... is required');
    const sqlite = run(['shard', '--bus', 'nats://127.0.0.1:4222', '--db', 'x.db', '--world-id', 'w']);
    expect(sqlite.stderr).toContain('(not "x.db")');
    const dotted = run(['shard', '--bus', 'nats://127.0.0.1:4222', '--db', 'postgres://u@h/d', '--world-id', 'a.b']);
    expect(dotted.status).toBe(2);
    expect(dotted.stderr).toContain('--world-id is 1 to 64 letters, digits, _ or -, not "a.b"');
  }, 60_000);

  it('a portal takes no world of its own', () => {
    const noBus = run(['serve', '--remote', '--world-id', 'w']);
    expect(noBus.status).toBe(2);
    const world = run(['serve', '--remote', '--bus', 'nats://127.0.0.1:4222', '--world-id', 'w', '--world', 'x.json']);
    expect(world.status).toBe(2);
    expect(world.stderr).toContain("--world is the shard's business (lightmud shard), not the portal's");
  }, 60_000);
});
