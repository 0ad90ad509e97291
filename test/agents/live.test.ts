/**
 * Model-driven characters in the live world: the server is started on a world file in which the
 * gardener's policy is `model`; a player connects over a real websocket on 127.0.0.1 and talks to
 * it. The model is a tiny real one built in a temp dir (LIGHTMUD_MODEL points at it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startServer, type RunningServer } from '../../server/net/server.js';
import { AgentManager, type TurnRecord } from '../../server/agents/manager.js';
import { driveCommand } from '../../server/agents/drive-command.js';
import type { ObservationFrame, StateFrame } from '../../server/net/protocol.js';
import { WsClient } from '../server/helpers.js';
import { cleanup, littleWorldTexts, makeAgentModel, tempDir, writeLittleWorld, writeUtterances } from './helpers.js';

let server: RunningServer;
let dir: string;
let db: string;
let player: WsClient;
const turns: TurnRecord[] = [];

beforeAll(async () => {
  dir = tempDir();
  const modelDir = makeAgentModel(littleWorldTexts());
  copyFileSync(writeUtterances(dir), join(modelDir, 'utterances.txt'));
  process.env.LIGHTMUD_MODEL = modelDir;
  process.env.LIGHTMUD_AGENT_CACHE = join(dir, 'cache');
  process.env.LIGHTMUD_AGENT_IDLE_SECONDS = '0'; // only turns the test causes
  db = join(dir, 'live.db');
  const world = writeLittleWorld(dir, { gardener: 'model', carter: 'scripted' });
  mkdirSync(join(dir, 'scripts'));
  writeFileSync(join(dir, 'scripts', 'carter.txt'), '# the carter is in no hurry\nwait 3600\nsay I am late, I am late.\n');
  server = await startServer({ db, world, httpPort: 0, telnetPort: null, host: '127.0.0.1', logger: false, linkdeadMs: 0 });
  player = await WsClient.open(`ws://127.0.0.1:${server.httpPort}/ws`);
  await player.guest('orc');
}, 120_000);

afterAll(async () => {
  await player?.close().catch(() => {});
  await server?.close();
  cleanup();
});

/** The next event observation from the gardener matching `re`. */
const fromGardener = (re: RegExp) =>
  player.next<ObservationFrame>((f) => f.type === 'observation' && f.kind === 'event' && f.event?.actor === 'gardener' && re.test(f.text), `the gardener: ${re}`);

describe('a model character in the live world', () => {
  it('is driven by the model (and the carter by its script), as the world file says', () => {
    expect(server.host.agents).not.toBeNull();
    expect(server.host.driverOf('gardener')?.kind).toBe('model');
    expect(server.host.driverOf('carter')?.kind).toBe('script');
    expect(server.host.driverOf('kitty')).toBeUndefined();
  });

  it('answers a player over a real websocket', async () => {
    await player.command('say Hello there, gardener!');
    const reply = await fromGardener(/^The gardener says, "/);
    expect(reply.event?.type).toBe('say');
  });

  it('leaves a line that calls someone else by name to them, and answers when called itself', async () => {
    const from = player.frames.length;
    await player.command('say Good day, kitty. Are you hungry?');
    await new Promise((r) => setTimeout(r, 2500));
    const spoke = player.frames.slice(from).some((f) => f.type === 'observation' && f.kind === 'event' && f.event?.actor === 'gardener' && f.event.type === 'say');
    expect(spoke).toBe(false);
    await player.command('say Good day, gardener. Are you hungry?');
    await fromGardener(/^The gardener says, "/);
  });

  it('follows a request: the item arrives in the player\'s hands', async () => {
    await player.command('say Can you give me the apple, gardener?');
    const gave = await fromGardener(/gives you an apple/);
    expect(gave.event).toMatchObject({ type: 'give', actor: 'gardener', target: 'orc', action: 'give apple to orc' });
    const { state } = await player.command('look');
    expect((state as StateFrame).character.carrying.map((t) => t.name)).toContain('apple');
  });

  it('answers truthfully about what it carries', async () => {
    await player.command('say What are you carrying, gardener?');
    const answer = await fromGardener(/says/);
    // Whatever it holds now (it may have picked something up on its own), exactly that.
    const s = (await server.host.state('gardener'))!;
    const held = [...s.character.carrying, ...s.character.wearing, ...s.character.wielding].map((t) => t.name);
    expect(answer.text).toMatch(/^The gardener says, "I'm carrying /);
    for (const name of held) expect(answer.text).toContain(name);
    expect(answer.text).toContain('a sack with a seed in it');
    expect(answer.text).not.toContain('apple'); // given to the player a moment ago
    for (const other of ['shovel', 'gold coin', 'silver ring', 'lantern']) if (!held.includes(other)) expect(answer.text).not.toContain(other);
  });

  it('runs a two-step request as a plan, in order', async () => {
    await player.command('say Gardener, get the gold coin from the oak chest and give it to me.');
    await fromGardener(/gets a gold coin/);
    await fromGardener(/gives you a gold coin/);
  });

  it('says why when it cannot', async () => {
    await player.command('say Give me your sword, gardener.');
    const no = await fromGardener(/says/);
    expect(no.text).toBe('The gardener says, "Sorry, I don\'t have a sword."');
  });

  it('never executes an invalid action: every command it ran succeeded, and the host refuses stale ones', async () => {
    const refused = await server.host.submit('gardener', 'give sword to orc', null, { validOnly: true });
    expect(refused).toMatchObject({ ok: false, failed: 'invalid', seq: 0 });
    const sql = new Database(db, { readonly: true });
    const rows = sql.prepare("SELECT input, ok FROM events WHERE actor = 'gardener' AND kind = 'command'").all() as { input: string; ok: number }[];
    sql.close();
    expect(rows.length).toBeGreaterThan(4);
    expect(rows.filter((r) => !r.ok)).toEqual([]);
    expect(rows.map((r) => r.input)).not.toContain('give sword to orc');
  });

  it('remembers what happened, in SQLite', async () => {
    // Memory rows are written in batches; closing the manager's memory flushes them.
    const sql = new Database(db, { readonly: true });
    await new Promise<void>((resolve) => {
      const check = () => {
        const n = (sql.prepare("SELECT COUNT(*) AS n FROM agent_memory WHERE character = 'gardener'").get() as { n: number }).n;
        if (n >= 8) resolve();
        else setTimeout(check, 50);
      };
      check();
    });
    const rows = sql.prepare("SELECT speaker, kind, text FROM agent_memory WHERE character = 'gardener' ORDER BY id").all() as { speaker: string; kind: string; text: string }[];
    sql.close();
    expect(rows).toContainEqual({ speaker: 'partner', kind: 'say', text: 'Can you give me the apple, gardener?' });
    expect(rows).toContainEqual({ speaker: 'self', kind: 'act', text: 'give apple to orc' });
  });

  it('can be switched at run time: another character to the model, the gardener to idle; a person\'s character is not taken', async () => {
    const agents = server.host.agents!;
    expect(await agents.setPolicy('orc', 'model')).toMatch(/played by a person/);
    expect(await agents.setPolicy('kitty', 'model')).toMatch(/driven by the model now/);
    expect(server.host.driverOf('kitty')?.kind).toBe('model');
    expect(await agents.setPolicy('gardener', 'idle')).toMatch(/idle now/);
    expect(server.host.driverOf('gardener')).toBeUndefined();
    await player.command('say Kitty, give me a hug.');
    const hug = await player.next<ObservationFrame>((f) => f.type === 'observation' && f.kind === 'event' && f.event?.actor === 'kitty' && /hugs you/.test(f.text), 'the kitty\'s hug');
    expect(hug.event?.action).toBe('hug orc');
    expect(await agents.setPolicy('kitty', 'idle')).toMatch(/idle now/);
  });

  it('has an admin command for it (@drive WHO model|idle|script FILE, @drive list)', async () => {
    expect(await driveCommand(server.host, 'kitty model')).toMatch(/kitty \(kitty\) is driven by the model now/);
    expect(await driveCommand(server.host, 'list')).toMatch(/kitty\s+model/);
    expect(await driveCommand(server.host, 'kitty idle')).toMatch(/idle now/);
    expect(await driveCommand(server.host, 'nobody model')).toBe('There is no character "nobody".');
    expect(await driveCommand(server.host, 'kitty sing')).toMatch(/^Usage: @drive/);
    expect(await driveCommand(server.host, 'kitty script')).toMatch(/^Usage: @drive WHO script FILE/);
  });

  it('takes turns of its own only once the people in its room have been quiet a while', async () => {
    const idle: { at: number; trigger: string }[] = [];
    const extra = await AgentManager.start(server.host, { memory: false, drive: { kitty: 'model' }, idleSeconds: 0.2, idleQuietMs: 2000, onTurn: (t) => idle.push({ at: Date.now(), trigger: t.trigger.kind }) });
    try {
      // the orc keeps talking to the gardener beside the kitty for 3 s: the kitty butts in with no turn of its own
      const t0 = Date.now();
      while (Date.now() - t0 < 3000) {
        await player.command('say Nice weather for weeding, gardener.');
        await new Promise((r) => setTimeout(r, 400));
      }
      const lastSpoke = Date.now();
      expect(idle.filter((t) => t.trigger === 'idle')).toEqual([]);
      // quiet: within a few seconds of the 2 s of quiet it takes one
      const deadline = Date.now() + 10_000;
      while (!idle.some((t) => t.trigger === 'idle') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const first = idle.find((t) => t.trigger === 'idle');
      expect(first).toBeDefined();
      expect(first!.at - lastSpoke).toBeGreaterThanOrEqual(1500);
    } finally {
      await extra.close();
    }
  }, 30_000);

  it('runs a scripted character from a file of commands', async () => {
    const script = join(dir, 'ghost.txt');
    writeFileSync(script, '# the ghost comes down to haunt the garden\ngo south\nsay Boo! I have come for your cabbages.\nwait 60\n');
    const onTurn = (t: TurnRecord) => turns.push(t);
    const extra = await AgentManager.start(server.host, { memory: false, scriptPaceMs: 20, onTurn });
    try {
      expect(await extra.setPolicy('ghost', 'scripted', { script })).toMatch(/runs/);
      expect(server.host.driverOf('ghost')?.kind).toBe('script');
      const boo = await player.next<ObservationFrame>((f) => f.type === 'observation' && f.kind === 'event' && f.event?.actor === 'ghost' && /says/.test(f.text), 'the ghost');
      expect(boo.text).toBe('The ghost says, "Boo! I have come for your cabbages."');
    } finally {
      await extra.close();
    }
    expect(server.host.driverOf('ghost')).toBeUndefined();
  });
});
