/**
 * Worlds on demand (issue 15, crowds at scale): shards started with --on-demand open a world when a
 * portal started with --on-demand finds nobody serving it (a new world from the shards' world file),
 * and reclaim it when idle; the portal started again finds it where it was left. Real nats-server,
 * PostgreSQL, shards and portals as child processes; skipped, with the reason, without them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { natsSkip, startNats, type RunningNats } from '../server/nats.js';
import { postgresBinDir, startPostgres, type RunningPostgres } from '../server/stores.js';
import { tempDir, writeLittleWorld, WsClient } from '../server/helpers.js';
import { LightmudProcess, type LogLine } from './processes.js';

const skip = natsSkip() || (postgresBinDir() ? false : 'PostgreSQL is not installed: the cluster tests are skipped');
const BIN = new URL('../../bin/lightmud.mjs', import.meta.url).pathname;

describe.skipIf(skip)('worlds opened on demand and reclaimed when idle', () => {
  let nats: RunningNats;
  let pg: RunningPostgres;
  let tmp: ReturnType<typeof tempDir>;
  const processes: LightmudProcess[] = [];
  const shards: LightmudProcess[] = [];

  const portal = async (world: string, onDemand = true) => {
    const p = LightmudProcess.start('serve', ['--remote', ...(onDemand ? ['--on-demand'] : []), '--bus', nats.url, '--world-id', world, '--db', join(tmp.dir, `portal-${world}.db`), '--http-port', '0', '--telnet-port', 'off', '--host', '127.0.0.1']);
    processes.push(p);
    const up = await p.waitFor((l) => l.event === 'listening', `the portal of ${world} to listen`);
    return { p, url: `ws://127.0.0.1:${up.httpPort as number}/ws` };
  };
  const logged = (match: (l: LogLine) => boolean) => shards.flatMap((s) => s.lines.filter(match).map((l) => ({ pid: s.pid, l })));

  beforeAll(async () => {
    [nats, pg] = await Promise.all([startNats(), startPostgres()]);
    tmp = tempDir('lightmud-on-demand-');
    const worldFile = writeLittleWorld(tmp.dir);
    for (let i = 0; i < 2; i++) {
      const s = LightmudProcess.start('shard', ['--bus', nats.url, '--db', pg.url, '--on-demand', '--reclaim-after', '1', '--world', worldFile]);
      shards.push(s);
      processes.push(s);
    }
    await Promise.all(shards.map((s) => s.waitForMsg('every world given is served; open to requests for more')));
  }, 120_000);

  afterAll(async () => {
    for (const p of processes) await p.stop();
    await nats?.stop();
    await pg?.stop();
    tmp?.cleanup();
  }, 60_000);

  it('a portal\'s world is opened by one shard from the template, reclaimed when idle, and found again where it was left', async () => {
    const [one, two] = await Promise.all([portal('pair-1'), portal('pair-2')]);
    for (const world of ['pair-1', 'pair-2']) {
      // Each opened by exactly one shard.
      expect(logged((l) => l.msg === 'serving the world on the bus' && l.world === world)).toHaveLength(1);
    }
    const kitty = await WsClient.open(one.url);
    await kitty.guest('kitty');
    expect((await kitty.command('look')).result.text).toContain('Walled Garden');
    expect((await kitty.command('get shovel')).result.ok).toBe(true);
    // The other pair's world is its own: its shovel is still on the ground.
    const orc = await WsClient.open(two.url);
    await orc.guest('orc');
    expect((await orc.command('get shovel')).result.ok).toBe(true);
    await kitty.close();
    await orc.close();
    await one.p.stop();
    await two.p.stop();

    // Idle (nobody asks, nobody watches) for a second: both reclaimed.
    for (const world of ['pair-1', 'pair-2']) {
      await Promise.any(shards.map((s) => s.waitFor((l) => typeof l.msg === 'string' && l.msg.startsWith('reclaimed an idle world') && l.world === world, `${world} reclaimed`)));
    }
    const list = spawnSync(process.execPath, [BIN, 'shard', '--list', '--db', pg.url], { encoding: 'utf8', timeout: 30_000 });
    expect(list.stdout).toMatch(/^pair-1\tevents \d+\tno writer\t/m);
    expect(list.stdout).toMatch(/^pair-2\tevents \d+\tno writer\t/m);

    // The portal back: the world opened again, with the kitty still carrying the shovel.
    const again = await portal('pair-1');
    const back = await WsClient.open(again.url);
    const state = await back.guest('kitty');
    expect(state.character.carrying.map((o) => o.name)).toContain('shovel');
    expect(logged((l) => l.msg === 'serving the world on the bus' && l.world === 'pair-1')).toHaveLength(2);
    await back.close();
  }, 120_000);

  it('a portal without --on-demand does not start a world nobody serves', async () => {
    const p = LightmudProcess.start('serve', ['--remote', '--bus', nats.url, '--world-id', 'pair-9', '--db', join(tmp.dir, 'portal-9.db'), '--http-port', '0', '--telnet-port', 'off', '--host', '127.0.0.1']);
    processes.push(p);
    expect((await p.exited).code).toBe(1);
    expect(p.output).toContain('The world "pair-9" is unavailable');
  }, 60_000);
});

describe('worlds on demand: bad flags', () => {
  const run = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });

  it('refuses --reclaim-after without --on-demand, and --on-demand on a server that is not a portal', () => {
    const reclaim = run(['shard', '--bus', 'nats://127.0.0.1:4222', '--db', 'postgres://u@h/d', '--world-id', 'a', '--reclaim-after', '5']);
    expect(reclaim.status).toBe(2);
    expect(reclaim.stderr).toContain('--reclaim-after is for worlds opened on demand: add --on-demand');
    const noWorlds = run(['shard', '--bus', 'nats://127.0.0.1:4222', '--db', 'postgres://u@h/d']);
    expect(noWorlds.status).toBe(2);
    expect(noWorlds.stderr).toContain('--world-id NAME[,NAME...] is required (or --on-demand)');
    const serve = run(['serve', '--on-demand']);
    expect(serve.status).toBe(2);
    expect(serve.stderr).toContain('--on-demand is for a portal (--remote)');
  }, 60_000);
});
