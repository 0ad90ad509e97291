/**
 * Crowds at scale, first step (issue 15): a collection task with worldPerPair on a portal started with
 * --on-demand gives each pair a world of its own, opened on demand by the shards from the task's world and
 * reclaimed once the episode is over. Two pairs play the same location with the same two personas at the
 * same time, which one shared world could not hold. Real nats-server, PostgreSQL and on-demand shards
 * (child processes); skipped, with the reason, without them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { NatsBus } from '../../server/bus/nats-bus.js';
import type { Bus } from '../../server/bus/bus.js';
import { natsSkip, startNats, type RunningNats } from '../server/nats.js';
import { postgresBinDir, startPostgres, type RunningPostgres } from '../server/stores.js';
import { startTestServer, tempDir, writeLittleWorld, type TestServer } from '../server/helpers.js';
import { CrowdClient, scriptPartner, taskSpec } from '../crowd/helpers.js';
import { LightmudProcess } from './processes.js';

const skip = natsSkip() || (postgresBinDir() ? false : 'PostgreSQL is not installed: the cluster tests are skipped');
const quiet = { info() {}, warn() {} };

describe.skipIf(skip)('a crowd task with a world per pair, on a cluster', () => {
  let nats: RunningNats;
  let pg: RunningPostgres;
  let tmp: ReturnType<typeof tempDir>;
  let bus: Bus;
  let portal: TestServer;
  const shards: LightmudProcess[] = [];

  beforeAll(async () => {
    [nats, pg] = await Promise.all([startNats(), startPostgres()]);
    tmp = tempDir('lightmud-crowd-pairs-');
    const worldFile = writeLittleWorld(tmp.dir);
    for (let i = 0; i < 2; i++) shards.push(LightmudProcess.start('shard', ['--bus', nats.url, '--db', pg.url, '--on-demand', '--reclaim-after', '1', '--world', worldFile]));
    await Promise.all(shards.map((s) => s.waitForMsg('open to requests for more')));
    bus = await NatsBus.connect(nats.url, { log: quiet, reconnectWaitMs: 200 });
    // The portal's own world (the lobby) is opened on demand too, from the same file.
    portal = await startTestServer({ db: join(tmp.dir, 'portal.db'), telnetPort: null, remote: { bus, world: 'lobby', timeoutMs: 3000, openOnDemand: true }, crowd: { partner: scriptPartner, tickMs: 100 } });
    portal.crowd!.store.createTask(taskSpec(portal.world, { id: 'garden-pairs', worldPerPair: true, locations: ['garden'], personas: ['kitty', 'orc'], turns: 2 }));
  }, 120_000);

  afterAll(async () => {
    await portal?.stop();
    for (const s of shards) await s.stop();
    await bus?.close();
    await nats?.stop();
    await pg?.stop();
    tmp?.cleanup();
  }, 60_000);

  it('two pairs play the same room and personas at once, each in its own world; the worlds are reclaimed after', async () => {
    const workers = await Promise.all(['W1', 'W2', 'W3', 'W4'].map((w) => CrowdClient.join(portal, 'garden-pairs', w)));
    const paired = await Promise.all(workers.map((c) => c.next('paired')));
    const episodes = new Set(paired.map((p) => p.episode));
    expect(episodes.size).toBe(2);
    // Both pairs in the garden, as the kitty and the orc.
    for (const c of workers) expect((await c.next('state')).room.id).toBe('garden');
    for (const ep of episodes) expect(paired.filter((p) => p.episode === ep).map((p) => p.you.id).sort()).toEqual(['kitty', 'orc']);

    // Each pair plays its two turns: whoever is first says a line, the other answers.
    for (const ep of episodes) {
      const pair = workers.filter((_, i) => paired[i]!.episode === ep);
      await new Promise((r) => setTimeout(r, 100));
      const first = pair.find((c) => c.myTurn()) ?? pair[0]!;
      const second = pair.find((c) => c !== first)!;
      expect(await first.turn(`Good morning from episode ${ep.slice(-6)}.`)).toMatchObject({ type: 'accepted' });
      await second.next('log', (f) => f.who === 'partner' && f.text.includes(`episode ${ep.slice(-6)}`));
      expect(await second.turn('Good morning to you as well.')).toMatchObject({ type: 'accepted' });
    }
    for (const c of workers) await c.next('end');
    const stored = portal.crowd!.store.episodes('garden-pairs');
    expect(stored.map((e) => e.status)).toEqual(['complete', 'complete']);

    // Each pair's lines are in the event log of its own world in PostgreSQL, and only there.
    const c = await pg.client();
    try {
      const worlds = (await c.query("SELECT DISTINCT world FROM lightmud_events WHERE input LIKE 'say Good morning from episode%' ORDER BY world")).rows.map((r: { world: string }) => r.world);
      expect(worlds).toHaveLength(2);
      for (const ep of episodes) {
        const rows = (await c.query('SELECT world FROM lightmud_events WHERE input = $1', [`say Good morning from episode ${ep.slice(-6)}.`])).rows as { world: string }[];
        expect(rows).toHaveLength(1);
        expect(ep.replace(/[^A-Za-z0-9_-]/g, '_')).toBe(rows[0]!.world);
      }
    } finally {
      await c.end();
    }
    // The portal left the pairs' worlds: the shards reclaim them.
    for (const ep of episodes) {
      await Promise.any(shards.map((s) => s.waitFor((l) => typeof l.msg === 'string' && l.msg.startsWith('reclaimed an idle world') && l.world === ep, `${ep} reclaimed`)));
    }
    for (const w of workers) await w.close();
  }, 120_000);
});
