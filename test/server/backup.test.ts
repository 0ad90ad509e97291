/** `lightmud backup`: a consistent copy of the database while the server runs and writes (SQLite online backup). */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, tempDir, WsClient } from './helpers.js';
import { backupCommand } from '../../server/cli/commands/backup.js';

describe('lightmud backup', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it('copies the database while players act; the copy is whole and serves the saved world', async () => {
    const db = join(tmp.dir, 'live.db');
    const out = join(tmp.dir, 'copy.db');
    const server = await startTestServer({ db }, tmp.dir);
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      const kitty = await WsClient.open(server.wsUrl);
      await kitty.guest('kitty');
      await kitty.command('get shovel');
      // Writes go on during the backup.
      const busy = (async () => {
        for (let i = 0; i < 15; i++) await kitty.command(`say line ${i}`);
      })();
      expect(await backupCommand.run(['--db', db, '--out', out])).toBe(0);
      await busy;
      expect(log.mock.calls.flat().join(' ')).toMatch(/Backed up .* pages in \d+ ms; integrity ok/);
      expect(await backupCommand.run(['--db', db, '--out', out])).toBe(1); // never overwrites
      await kitty.close();
    } finally {
      log.mockRestore();
      await server.close();
    }
    const copy = new Database(out, { readonly: true });
    const inputs = (copy.prepare("SELECT input FROM events WHERE kind = 'command' ORDER BY seq").all() as { input: string }[]).map((r) => r.input);
    copy.close();
    expect(inputs[0]).toBe('get shovel');
    // Start a server on the copy: the shovel is where it was saved.
    const restored = await startTestServer({ db: out }, tmp.dir);
    try {
      const kitty = await WsClient.open(restored.wsUrl);
      const state = await kitty.guest('kitty');
      expect(state.character.carrying.map((o) => o.id)).toEqual(['shovel']);
      await kitty.close();
    } finally {
      await restored.close();
    }
  });
});
