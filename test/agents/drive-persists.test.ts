/**
 * An admin's @drive survives a restart: the choice is kept in the server's SQLite file and wins
 * over the world file's policy when the server starts again on the same database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startServer, type RunningServer } from '../../server/net/server.js';
import { driveCommand } from '../../server/agents/drive-command.js';
import { cleanup, littleWorldTexts, makeAgentModel, tempDir, writeLittleWorld, writeUtterances } from './helpers.js';

let dir: string;
let db: string;
let world: string;
const running: RunningServer[] = [];

const start = async () => {
  const s = await startServer({ db, world, httpPort: 0, telnetPort: null, host: '127.0.0.1', logger: false, linkdeadMs: 0 });
  running.push(s);
  return s;
};

beforeAll(() => {
  dir = tempDir();
  const modelDir = makeAgentModel(littleWorldTexts());
  copyFileSync(writeUtterances(dir), join(modelDir, 'utterances.txt'));
  process.env.LIGHTMUD_MODEL = modelDir;
  process.env.LIGHTMUD_AGENT_CACHE = join(dir, 'cache');
  process.env.LIGHTMUD_AGENT_IDLE_SECONDS = '0';
  db = join(dir, 'drive.db');
  world = writeLittleWorld(dir, { gardener: 'model' });
}, 120_000);

afterAll(async () => {
  for (const s of running) await s.close().catch(() => {});
  cleanup();
});

describe('@drive across a restart', () => {
  it('keeps what the admin set, over the world file, and forgets nothing else', async () => {
    const first = await start();
    expect(first.host.driverOf('gardener')?.kind).toBe('model');
    expect(first.host.driverOf('kitty')).toBeUndefined();
    expect(await driveCommand(first.host, 'kitty model')).toMatch(/driven by the model now/);
    expect(await driveCommand(first.host, 'gardener idle')).toMatch(/idle now/);
    await first.close();

    const sql = new Database(db, { readonly: true });
    const rows = sql.prepare('SELECT character, kind FROM agent_drive ORDER BY character').all();
    sql.close();
    expect(rows).toEqual([{ character: 'gardener', kind: 'idle' }, { character: 'kitty', kind: 'model' }]);

    const second = await start();
    expect(second.host.driverOf('kitty')?.kind).toBe('model');
    expect(second.host.driverOf('gardener')).toBeUndefined(); // the world file says model; the admin said idle
    expect(await driveCommand(second.host, 'list')).toMatch(/kitty\s+model/);
    expect(await driveCommand(second.host, 'gardener model')).toMatch(/driven by the model now/);
    await second.close();

    const third = await start();
    expect(third.host.driverOf('gardener')?.kind).toBe('model');
    await third.close();
  }, 120_000);
});
