/**
 * Model characters in a cluster: the world's game in a shard (child process), one portal started with
 * --models that drives the gardener (a tiny real ONNX model built in a temp dir), and a player on
 * another portal (child process) who talks to the gardener and is answered once, through the shard.
 * A second portal with --models does not start. Real nats-server and PostgreSQL on 127.0.0.1;
 * skipped, with the reason, without them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { NatsBus } from '../../server/bus/nats-bus.js';
import type { Bus } from '../../server/bus/bus.js';
import { startServer, type RunningServer } from '../../server/net/server.js';
import type { ObservationFrame } from '../../server/net/protocol.js';
import { natsSkip, startNats, type RunningNats } from '../server/nats.js';
import { postgresBinDir, startPostgres, type RunningPostgres } from '../server/stores.js';
import { WsClient } from '../server/helpers.js';
import { cleanup, littleWorldTexts, makeAgentModel, tempDir, writeLittleWorld, writeUtterances } from '../agents/helpers.js';
import { LightmudProcess, startShard } from './processes.js';

const skip = natsSkip() || (postgresBinDir() ? false : 'PostgreSQL is not installed: the cluster tests are skipped');
const quiet = { info() {}, warn() {} };
const WORLD = 'glade';

describe.skipIf(skip)('model characters in a cluster', () => {
  let nats: RunningNats;
  let pg: RunningPostgres;
  let dir: string;
  let shard: LightmudProcess;
  let bus: Bus;
  let modelPortal: RunningServer;
  let playerPortal: LightmudProcess;
  let orc: WsClient;
  const env = { ...process.env };

  beforeAll(async () => {
    [nats, pg] = await Promise.all([startNats(), startPostgres()]);
    dir = tempDir('lightmud-cluster-models-');
    const modelDir = makeAgentModel(littleWorldTexts());
    copyFileSync(writeUtterances(dir), join(modelDir, 'utterances.txt'));
    process.env.LIGHTMUD_MODEL = modelDir;
    process.env.LIGHTMUD_AGENT_CACHE = join(dir, 'cache');
    process.env.LIGHTMUD_AGENT_IDLE_SECONDS = '0'; // only turns the test causes
    const world = writeLittleWorld(dir, { gardener: 'model' });
    shard = await startShard({ bus: nats.url, db: pg.url, world: WORLD, worldFile: world });
    bus = await NatsBus.connect(nats.url, { log: quiet, reconnectWaitMs: 200 });
    modelPortal = await startServer({ db: join(dir, 'models.db'), httpPort: 0, telnetPort: null, host: '127.0.0.1', logger: false, linkdeadMs: 0, remote: { bus, world: WORLD, timeoutMs: 3000, models: true } });
    playerPortal = LightmudProcess.start('serve', ['--remote', '--bus', nats.url, '--world-id', WORLD, '--db', join(dir, 'players.db'), '--http-port', '0', '--telnet-port', 'off', '--host', '127.0.0.1']);
    const up = await playerPortal.waitFor((l) => l.event === 'listening', 'the players\' portal to listen');
    orc = await WsClient.open(`ws://127.0.0.1:${up.httpPort as number}/ws`);
    await orc.guest('orc');
  }, 120_000);

  afterAll(async () => {
    await orc?.close().catch(() => {});
    await playerPortal?.stop();
    await modelPortal?.close();
    await shard?.stop();
    await bus?.close();
    await nats?.stop();
    await pg?.stop();
    cleanup();
    for (const k of ['LIGHTMUD_MODEL', 'LIGHTMUD_AGENT_CACHE', 'LIGHTMUD_AGENT_IDLE_SECONDS']) {
      if (env[k] === undefined) delete process.env[k];
      else process.env[k] = env[k];
    }
  }, 60_000);

  it('the portal with --models drives the gardener; a player on another portal is answered once, through the shard', async () => {
    expect(modelPortal.host.driverOf('gardener')?.kind).toBe('model');
    expect(modelPortal.host.driverOf('kitty')).toBeUndefined();
    const from = orc.frames.length;
    await orc.command('say Hello there, gardener!');
    const reply = await orc.seen((f) => f.type === 'observation' && f.kind === 'event' && (f as ObservationFrame).event?.actor === 'gardener' && (f as ObservationFrame).event?.type === 'say', 'the gardener\'s reply') as ObservationFrame;
    expect(reply.text).toMatch(/^The gardener says, "/);
    // Once: the other portal does not drive the gardener as well.
    await new Promise((r) => setTimeout(r, 2000));
    const says = orc.frames.slice(from).filter((f) => f.type === 'observation' && f.kind === 'event' && (f as ObservationFrame).event?.actor === 'gardener' && (f as ObservationFrame).event?.type === 'say');
    expect(says).toHaveLength(1);
  }, 60_000);

  it('a second portal with --models does not start', async () => {
    const second = LightmudProcess.start('serve', ['--remote', '--models', '--bus', nats.url, '--world-id', WORLD, '--db', join(dir, 'second.db'), '--http-port', '0', '--telnet-port', 'off', '--host', '127.0.0.1']);
    const { code } = await second.exited;
    expect(code).toBe(1);
    expect(second.output).toContain(`another portal of the world "${WORLD}" drives its model characters (portal `);
    expect(second.output).toContain('give --models to one portal only');
  }, 60_000);
});
